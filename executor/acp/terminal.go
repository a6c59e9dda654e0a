package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/internal/proc"
)

// DefaultTerminalOutput is how much of a terminal's output harnish keeps
// when the agent sets no outputByteLimit: the last 1 MiB.
const DefaultTerminalOutput = 1 << 20

// terminals are the commands harnish runs for the agent (terminal/*), each
// by the process runner: in a process group of its own, confined to the
// working tree, bounded by the attempt's context and by timeout.
type terminals struct {
	ctx     context.Context // the attempt's: its end kills them all
	root    string
	env     []string
	timeout time.Duration
	grace   time.Duration

	mu      sync.Mutex
	next    int
	started int
	byID    map[string]*terminal
	wg      sync.WaitGroup
}

type terminal struct {
	cancel context.CancelCauseFunc
	done   chan struct{}

	mu        sync.Mutex
	out       []byte
	limit     int
	truncated bool
	exit      *acpsdk.TerminalExitStatus
}

var errReleased = errors.New("acp: terminal killed")

func newTerminals(ctx context.Context, root string, env []string, timeout, grace time.Duration) *terminals {
	return &terminals{ctx: ctx, root: root, env: env, timeout: timeout, grace: grace, byID: map[string]*terminal{}}
}

// start runs the command of p in dir and returns its terminal's ID.
func (ts *terminals) start(p acpsdk.CreateTerminalRequest, dir string) (string, error) {
	if _, err := proc.Confine(ts.root, dir); err != nil {
		return "", err
	}
	limit := DefaultTerminalOutput
	if p.OutputByteLimit != nil && *p.OutputByteLimit >= 0 {
		limit = *p.OutputByteLimit
	}
	// Standard error joins standard output, as in a terminal.
	argv := []string{"bash", "-c", "exec 2>&1\n" + p.Command}
	if len(p.Args) > 0 {
		argv = append([]string{"bash", "-c", `exec 2>&1; exec "$0" "$@"`, p.Command}, p.Args...)
	}
	env := append([]string(nil), ts.env...)
	for _, v := range p.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	ctx, cancel := context.WithCancelCause(ts.ctx)
	t := &terminal{cancel: cancel, done: make(chan struct{}), limit: limit}

	ts.mu.Lock()
	if ts.ctx.Err() != nil {
		ts.mu.Unlock()
		cancel(nil)
		return "", fmt.Errorf("acp: the attempt is over: %w", context.Cause(ts.ctx))
	}
	ts.next++
	ts.started++
	id := "harnish-term-" + strconv.Itoa(ts.next)
	ts.byID[id] = t
	ts.wg.Add(1)
	ts.mu.Unlock()

	go func() {
		defer ts.wg.Done()
		defer close(t.done)
		defer cancel(nil)
		res, err := proc.Run(ctx, proc.Spec{Stage: "terminal", Argv: argv, Root: ts.root, Dir: dir, Env: env,
			Stdout: t, Timeout: ts.timeout, Grace: ts.grace})
		t.mu.Lock()
		defer t.mu.Unlock()
		t.exit = exitStatus(res, err)
	}()
	return id, nil
}

// exitStatus is how the command ended: its exit code, or the signal that
// ended it.
func exitStatus(res *proc.Result, err error) *acpsdk.TerminalExitStatus {
	var pe *proc.Error
	if errors.As(err, &pe) && (pe.Kind == proc.KindTimeout || pe.Kind == proc.KindCanceled) {
		sig := syscall.SIGKILL.String()
		return &acpsdk.TerminalExitStatus{Signal: &sig}
	}
	code := -1
	if res != nil {
		code = res.ExitCode
	}
	return &acpsdk.TerminalExitStatus{ExitCode: &code}
}

// Write keeps the last limit bytes of the output, at a character
// boundary.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, p...)
	if over := len(t.out) - t.limit; over > 0 {
		for over < len(t.out) && t.out[over]&0xC0 == 0x80 {
			over++
		}
		t.out = append(t.out[:0], t.out[over:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (ts *terminals) get(id string) (*terminal, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byID[id]
	if t == nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": "acp: no terminal " + strconv.Quote(id)})
	}
	return t, nil
}

func (ts *terminals) output(id string) (acpsdk.TerminalOutputResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return acpsdk.TerminalOutputResponse{Output: string(t.out), Truncated: t.truncated, ExitStatus: t.exit}, nil
}

func (ts *terminals) wait(ctx context.Context, id string) (acpsdk.WaitForTerminalExitResponse, error) {
	t, err := ts.get(id)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, context.Cause(ctx)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return acpsdk.WaitForTerminalExitResponse{ExitCode: t.exit.ExitCode, Signal: t.exit.Signal}, nil
}

// kill ends the terminal's command (its whole process group); release
// forgets the terminal too.
func (ts *terminals) kill(id string, release bool) error {
	t, err := ts.get(id)
	if err != nil {
		return err
	}
	t.cancel(errReleased)
	if release {
		ts.mu.Lock()
		delete(ts.byID, id)
		ts.mu.Unlock()
	}
	return nil
}

// count is how many terminals were started.
func (ts *terminals) count() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.started
}

// close kills every terminal and waits until their commands are gone. The
// attempt's context must be done first, or be cancelled by the caller.
func (ts *terminals) close() {
	ts.mu.Lock()
	for _, t := range ts.byID {
		t.cancel(errReleased)
	}
	ts.mu.Unlock()
	ts.wg.Wait()
}
