package acp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/task"
)

// Defaults of the [Executor]'s durations.
const (
	// DefaultCancelWait is how long the agent has to end its turn after
	// session/cancel before it is stopped.
	DefaultCancelWait = 3 * time.Second
	// DefaultGrace is the time between SIGTERM and SIGKILL.
	DefaultGrace = 3 * time.Second
	// DefaultTerminalTimeout bounds one terminal command.
	DefaultTerminalTimeout = 10 * time.Minute
)

// EnvMark is the variable that marks every process of an attempt: what the
// agent leaves running outside its process group (Codex's orphans) is
// found by it and killed when the attempt ends.
const EnvMark = "HARNISH_ACP_ATTEMPT"

// Executor runs an ACP agent for one attempt: it starts the agent in the
// request's working tree with a fresh HOME, initializes, opens a session,
// sends the prompt, and mediates every permission request, file access and
// terminal of the turn (see the package documentation). The turn's updates
// make the result: the agent's final message, the commands it ran, the
// files it changed, tokens and cost where it reports them, and the
// guardrail's decisions.
//
// The agent claims done by ending its turn; it claims blocked by ending its
// final message with a line "HARNISH-BLOCKED: <reason>", which the prompt
// tells it.
//
// The zero value is not usable: set Agent or Command. An Executor is safe
// for concurrent use; each call starts its own agent.
type Executor struct {
	// Agent names a profile ([Lookup]): "gemini", "claude" or "codex".
	// Empty means an agent of no profile, started by Command alone.
	Agent string
	// Command is the agent's program and arguments. With a profile it
	// replaces the profile's program (a path to it, say) and its arguments
	// come before the profile's; without one it is the whole command line.
	Command []string
	// Model selects the agent's model; empty means its default.
	Model string
	// Args are more arguments for the agent, after all the others.
	Args []string
	// Env adds variables to the agent's environment (API keys, base URLs).
	// HOME is always a fresh, empty directory of the attempt's.
	Env map[string]string
	// Plan gives the guardrail settings tool calls are judged by: protected
	// paths, allowed packages, secrets and TDD rules. Nil means the
	// defaults: only .harnish/ is protected and no package may be installed.
	Plan *task.Plan
	// Guardrail, when set, builds the guardrail of an attempt in the working
	// tree root, in place of [Builtin]. An error makes the attempt
	// unavailable.
	Guardrail func(ctx context.Context, root string, plan *task.Plan) (guardrail.Guardrail, error)
	// TranscriptDir, when set, keeps each attempt's stream of messages from
	// the agent there, as acp-<task>-<attempt>-*.jsonl.
	TranscriptDir string
	// CancelWait is how long the agent has to end a cancelled turn before it
	// is stopped. Zero means [DefaultCancelWait].
	CancelWait time.Duration
	// Grace is the time between SIGTERM and SIGKILL, for the agent and for
	// its terminals. Zero means [DefaultGrace].
	Grace time.Duration
	// TerminalTimeout bounds each terminal command. Zero means
	// [DefaultTerminalTimeout].
	TerminalTimeout time.Duration
	// Logger receives a line per attempt at debug level, and the ACP SDK's
	// own diagnostics (a connection closed, a message it could not handle).
	// Nil means silence.
	Logger *slog.Logger
}

// Builtin is the guardrail an attempt is judged by unless
// [Executor.Guardrail] is set: harnish's command rules with the plan's
// protected paths and allowed packages, and its edit rules with the plan's
// settings in the tree root, as the hooks judge a tool call. The scope and
// size rules are left out: one call's change is not the attempt's, which
// the loop audits whole.
func Builtin(root string, plan *task.Plan, refuseInteractive bool) (guardrail.Guardrail, error) {
	cmdCfg := guardrail.PlanCommandConfig(plan, root)
	cmdCfg.RefuseInteractive = refuseInteractive
	cmds, err := guardrail.NewCommandGuard(cmdCfg)
	if err != nil {
		return nil, err
	}
	editCfg := guardrail.PlanEditConfig(plan, os.DirFS(root))
	editCfg.Scope, editCfg.MaxChangedLines = nil, -1
	edits, err := guardrail.NewEditGuard(editCfg)
	if err != nil {
		return nil, err
	}
	return guardrail.All(cmds, edits), nil
}

func unavailable(err error) error {
	return &executor.Error{Kind: executor.KindUnavailable, Err: err}
}

// Execute runs the agent for one attempt.
func (e *Executor) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	if req.Task == nil {
		return nil, unavailable(errors.New("acp: the request has no task"))
	}
	var prof Profile
	if e.Agent != "" {
		p, ok := Lookup(e.Agent)
		if !ok {
			return nil, unavailable(fmt.Errorf("acp: no agent %q (known: %s)", e.Agent, strings.Join(Agents(), ", ")))
		}
		prof = p
	} else if len(e.Command) == 0 {
		return nil, unavailable(errors.New("acp: neither an agent nor a command"))
	}
	argv := append([]string(nil), e.Command...)
	if e.Agent != "" {
		if len(argv) == 0 {
			argv = []string{prof.Program}
		}
		argv = append(argv, prof.Args...)
		if e.Model != "" && prof.ModelArgs != nil {
			argv = append(argv, prof.ModelArgs(e.Model)...)
		}
	}
	argv = append(argv, e.Args...)
	prog, err := agent.LookPath(argv[0], "")
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	argv[0] = prog
	root, _, err := agent.Paths(req, "")
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	g, err := e.guardrail(ctx, root, prof)
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: guardrail: %w", err))
	}
	tree, err := os.OpenRoot(root)
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	defer tree.Close()

	tmp, err := fsx.MkdirTempOwned("", "harnish-acp-")
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	mark := newMark()
	env := agent.SortedEnv(e.Env)
	if prof.Setup != nil {
		extra, err := prof.Setup(home, tmp, e.Model)
		if err != nil {
			return nil, unavailable(fmt.Errorf("acp: %s: %w", e.Agent, err))
		}
		env = append(env, agent.SortedEnv(extra)...)
	}
	if e.Model != "" && prof.ModelArgs == nil && prof.ModelEnv != "" {
		env = append(env, prof.ModelEnv+"="+e.Model)
	}
	inTree := *req
	inTree.WorkDir = root
	env = append(env, "HOME="+home, EnvMark+"="+mark)
	env = append(env, agent.Env(&inTree, "")...)

	name := cmp.Or(e.Agent, "acp")
	a := &attempt{e: e, req: req, name: name, root: root, argv: argv, env: env, mark: mark}
	a.stream = proc.NewTail(agent.TailChars)
	out, transcript, closeTranscript, err := agent.Transcript(e.TranscriptDir, "acp-"+name, req, a.stream)
	if err != nil {
		return nil, unavailable(err)
	}
	a.transcript = out
	a.tree, a.guard, a.prof = tree, g, prof
	if e.Logger != nil {
		e.Logger.Debug("acp: starting", "agent", name, "task", req.Task.ID, "attempt", req.Attempt, "dir", root)
	}
	res, err := a.run(ctx)
	closeTranscript(agent.EndOf(nil, err)) // the agent's process is the session's: no exit code to tell
	if res != nil {
		res.Transcript = transcript
	}
	return res, err
}

func (e *Executor) grace() time.Duration { return cmp.Or(e.Grace, DefaultGrace) }

func (e *Executor) guardrail(ctx context.Context, root string, prof Profile) (guardrail.Guardrail, error) {
	if e.Guardrail != nil {
		g, err := e.Guardrail(ctx, root, e.Plan)
		if err == nil && g == nil {
			err = errors.New("no guardrail")
		}
		return g, err
	}
	return Builtin(root, e.Plan, prof.RefuseInteractive)
}

func newMark() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// discard is the SDK's logger when the Executor has none: the SDK logs to
// slog's default otherwise.
var discard = slog.New(slog.DiscardHandler)

// acpError is the error of a JSON-RPC call the agent answered with an
// error.
func acpError(method string, err error) error {
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		return &RPCError{Method: method, Code: re.Code, Message: re.Message, Data: fmt.Sprint(re.Data)}
	}
	return fmt.Errorf("acp: %s: %w", method, err)
}

// RPCError is a JSON-RPC error the agent answered a call of harnish's with.
type RPCError struct {
	Method  string
	Code    int
	Message string
	// Data is the error's data, printed.
	Data string
}

func (e *RPCError) Error() string {
	msg := fmt.Sprintf("acp: %s: JSON-RPC error %d: %s", e.Method, e.Code, e.Message)
	if e.Data != "" && e.Data != "<nil>" {
		msg += " (" + e.Data + ")"
	}
	return msg
}
