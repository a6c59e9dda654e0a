package harnish

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"sync"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/hooksock"
	"github.com/harnish/harnish/internal/hooksock/hooksrv"
	"github.com/harnish/harnish/task"
)

// hookServer answers the pre-tool-use hooks of the run's agents over a unix
// socket in the state directory, while the Runner is open: an agent starts
// a hook before every tool call, and a hook that hands the call to the
// running host (cmd/internal/hookcmd) skips building the guardrails in a
// process of its own. It judges with the zero hook.Handler, as the hook
// process would, so the answers are the same either way.
type hookServer struct {
	srv     *hooksrv.Server
	prev    string // the socket variable before Open, as the process started with it
	hadPrev bool
}

// serveHooks listens on the state directory's hook socket (replacing one a
// crashed host left) and names it in the process's environment
// (hooksock.EnvSocket), which the agents and their hooks inherit. The
// caller holds the process's run mark, so no other Runner of the process
// sets the variable.
// Each call it answers is logged at Debug level to logger, when not nil.
func serveHooks(ctx context.Context, stateDir string, logger *slog.Logger) (*hookServer, error) {
	l, err := hooksrv.Listen(hooksock.Path(stateDir))
	if err != nil {
		return nil, err
	}
	s := &hookServer{}
	s.prev, s.hadPrev = os.LookupEnv(hooksock.EnvSocket)
	if err := os.Setenv(hooksock.EnvSocket, l.Addr().String()); err != nil {
		l.Close()
		return nil, err
	}
	p := &plans{loaded: map[string]*loadedPlan{}, guards: map[guardKey]guardrail.Guardrail{}}
	s.srv = hooksrv.Serve(context.WithoutCancel(ctx), l, func(ctx context.Context, r *hooksock.Request) *hooksock.Answer {
		a := p.judgeHook(ctx, r)
		if logger != nil {
			logger.Debug("harnish: answered a pre-tool-use hook", "task", r.TaskID, "agent", r.Agent, "exit", a.Code)
		}
		return a
	})
	return s, nil
}

// judgeHook answers one pre-tool-use call as "harnish hook pre-tool-use"
// would in a process of its own: the zero hook.Handler, but for the plans,
// which plans keeps loaded, and the guardrails built from them.
func (p *plans) judgeHook(ctx context.Context, r *hooksock.Request) *hooksock.Answer {
	h := hook.Handler{Plan: p.find, Guardrail: p.guard}
	a := h.PreToolUse(ctx, &hook.Request{Agent: hook.Agent(r.Agent), Input: bytes.NewReader(r.Input),
		PlanFile: r.PlanFile, TaskID: r.TaskID, WorkDir: r.WorkDir, HookLog: r.HookLog})
	return &hooksock.Answer{Code: a.Code, Message: a.Message}
}

// Close takes the socket out of the environment, putting back what it held
// before, and stops the server, which removes the socket.
func (s *hookServer) Close() error {
	var err error
	if s.hadPrev {
		err = os.Setenv(hooksock.EnvSocket, s.prev)
	} else {
		err = os.Unsetenv(hooksock.EnvSocket)
	}
	if cerr := s.srv.Close(); err == nil {
		err = cerr
	}
	return err
}

// plans keeps the plans hook calls are judged by, each loaded once while
// its file stays the same, so a call does not parse the plan again. It
// finds and loads them as hook.FindPlan does for a pre-tool-use call
// (task.Locate), and keeps no error: a plan that fails to load fails
// again, with the same message, at the next call.
type plans struct {
	mu     sync.Mutex
	loaded map[string]*loadedPlan // by file
	guards map[guardKey]guardrail.Guardrail
}

// guardKey is what hook.Builtin builds a guardrail from: the call's plan,
// working tree and agent. A plan loaded again is another key.
type guardKey struct {
	plan  *task.Plan
	root  string
	agent hook.Agent
}

// guard is hook.Builtin, built once per plan, tree and agent: it reads
// nothing else, and what it builds is safe for concurrent use and reads
// the tree only when it judges.
func (p *plans) guard(ctx context.Context, c *hook.Call) (guardrail.Guardrail, error) {
	if c.Plan == nil {
		return hook.Builtin(ctx, c)
	}
	key := guardKey{c.Plan, c.Root, c.Agent}
	p.mu.Lock()
	g := p.guards[key]
	p.mu.Unlock()
	if g != nil {
		return g, nil
	}
	g, err := hook.Builtin(ctx, c)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if len(p.guards) >= maxGuards {
		clear(p.guards)
	}
	p.guards[key] = g
	p.mu.Unlock()
	return g, nil
}

// maxGuards bounds the guardrails kept: a plan's, for each working copy
// and agent of the run.
const maxGuards = 64

// loadedPlan is a plan as loaded from a file in the state st describes.
type loadedPlan struct {
	st   os.FileInfo
	plan *task.Plan
}

func (p *plans) find(_ context.Context, c *hook.Call) (*task.Plan, error) {
	file := c.PlanFile
	var st os.FileInfo
	if file == "" {
		if file, st = task.LocateFile(c.Root); file == "" {
			return nil, nil
		}
	} else {
		var err error
		if st, err = os.Stat(file); err != nil {
			return task.Load(file) // the error the hook's own load gives
		}
	}
	p.mu.Lock()
	l := p.loaded[file]
	p.mu.Unlock()
	if l != nil && os.SameFile(l.st, st) && l.st.Size() == st.Size() && l.st.ModTime().Equal(st.ModTime()) {
		return l.plan, nil
	}
	plan, err := task.Load(file)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if len(p.loaded) >= maxPlans {
		clear(p.loaded)
	}
	p.loaded[file] = &loadedPlan{st: st, plan: plan}
	p.mu.Unlock()
	return plan, nil
}

// maxPlans bounds the plans kept; a run judges by one or two.
const maxPlans = 16
