package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// EnvGuard is set to "1" in the environment of every child, so a program
// that would start a verification itself can tell it runs inside one.
const EnvGuard = "HARNISH_VERIFY"

// DefaultGrace is how long a command has between SIGTERM and SIGKILL, and
// how long Run waits for a finished command's output to close.
const DefaultGrace = 5 * time.Second

// Spec says what to run. Argv is required; every other field has a useful
// zero value.
type Spec struct {
	// Stage names what the command is for ("configure", "test", "review"),
	// for diagnostics.
	Stage string
	// Argv is the program and its arguments. It runs without a shell; a
	// program without a path separator is looked up in PATH, a relative path
	// resolves from the working directory.
	Argv []string
	// Root is the repository root; empty means the current directory.
	Root string
	// Dir is the working directory, relative to Root (or absolute and inside
	// it); empty means Root. See [Confine].
	Dir string
	// Env adds KEY=VALUE pairs to the inherited environment; later pairs win.
	Env []string
	// Stdin is the command's input; nil means none.
	Stdin io.Reader
	// Stdout, when set, also receives the whole of stdout, as it comes.
	Stdout io.Writer
	// Timeout bounds this command; zero means only the context does. The
	// shorter of the two wins.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL, and the most Run waits
	// for output after the command has exited. Zero means [DefaultGrace].
	Grace time.Duration
}

// Result is what a run produced. Run returns one whenever the command was
// attempted, with or without an error.
type Result struct {
	// Dir is the absolute directory the command ran in.
	Dir string
	// Pid is the process ID. Zero when it did not start.
	Pid int
	// Pgid is, on Unix, the ID of the process group the tree ran in (see
	// [Group]); zero when it did not start, and on other systems.
	Pgid int
	// ExitCode is the exit status; -1 when the command did not exit on its
	// own (killed, never started).
	ExitCode int
	// Duration is the wall time from start to the end of its output.
	Duration time.Duration
	// Stdout, Stderr and Output are the last [TailChars] characters of
	// stdout, of stderr, and of both as they interleaved.
	Stdout, Stderr, Output string
}

var errTimeoutCause = fmt.Errorf("%w (per-command timeout)", ErrTimeout)

// Run runs s and waits for it and its process tree to end. A nil error means
// exit status 0. Otherwise the error is an [*Error]: the directory was
// refused ([ErrOutsideRoot]), the program did not start ([ErrStart]), it
// exited non-zero ([ErrExit]), its timeout ran out ([ErrTimeout]), or ctx was
// done first (the error wraps context.Cause(ctx)). On a timeout or a cancel
// the process tree gets SIGTERM, then SIGKILL after the grace period; after
// any run, what is left of the tree is killed.
func Run(ctx context.Context, s Spec) (*Result, error) {
	res := &Result{ExitCode: -1}
	fail := func(kind Kind, err error) (*Result, error) {
		return res, &Error{Kind: kind, Stage: s.Stage, Argv: MaskArgv(s.Argv), Dir: res.Dir,
			ExitCode: res.ExitCode, Stdout: res.Stdout, Stderr: res.Stderr, Err: err}
	}
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return fail(KindStart, fmt.Errorf("%w: empty argv", ErrStart))
	}
	dir, err := Confine(s.Root, s.Dir)
	if err != nil {
		res.Dir = s.Dir
		return fail(KindConfined, err)
	}
	res.Dir = dir
	if ctx.Err() != nil {
		return fail(KindCanceled, context.Cause(ctx))
	}
	runCtx := ctx
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeoutCause(ctx, s.Timeout, errTimeoutCause)
		defer cancel()
	}
	grace := s.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}

	cmd := exec.CommandContext(runCtx, s.Argv[0], s.Argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), s.Env...), EnvGuard+"=1")
	cmd.Stdin = s.Stdin
	g, err := NewGroup(cmd)
	if err != nil {
		return fail(KindStart, fmt.Errorf("%w: %w", ErrStart, err))
	}
	defer g.Close()
	cmd.Cancel = func() error { return g.Terminate(cmd.Process) }
	cmd.WaitDelay = grace // for the stdin copier, and SIGKILL after SIGTERM
	o, err := newOutput(s.Stdout)
	if err != nil {
		return fail(KindStart, fmt.Errorf("%w: %w", ErrStart, err))
	}
	defer o.close()
	cmd.Stdout, cmd.Stderr = o.stdout.w, o.stderr.w

	start := time.Now()
	err = cmd.Start()
	o.started() // the child has its own copies of the write ends now
	if err != nil {
		// A context done before the child could start: the run was cut
		// short, not unable to start (exec.Cmd.Start returns ctx.Err()).
		switch {
		case runCtx.Err() != nil && context.Cause(runCtx) == errTimeoutCause:
			return fail(KindTimeout, fmt.Errorf("%w after %s", ErrTimeout, s.Timeout))
		case ctx.Err() != nil:
			return fail(KindCanceled, context.Cause(ctx))
		}
		return fail(KindStart, fmt.Errorf("%w: %w", ErrStart, err))
	}
	res.Pid = cmd.Process.Pid
	groupErr := g.Started(cmd.Process)
	res.Pgid = g.id()
	if groupErr != nil {
		_ = g.Terminate(cmd.Process) // a tree we could not contain must not run
	}
	waitErr := cmd.Wait()
	// The command has exited; whatever it left running goes with it, so
	// that its output ends too.
	g.Kill(cmd.Process)
	o.wait(grace)
	res.Duration = time.Since(start)
	res.Stdout, res.Stderr, res.Output = o.tails()
	if cmd.ProcessState != nil {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case groupErr != nil:
		return fail(KindStart, fmt.Errorf("%w: process group: %w", ErrStart, groupErr))
	case res.ExitCode == 0:
		return res, nil
	case runCtx.Err() != nil && context.Cause(runCtx) == errTimeoutCause:
		return fail(KindTimeout, fmt.Errorf("%w after %s", ErrTimeout, s.Timeout))
	case ctx.Err() != nil:
		return fail(KindCanceled, context.Cause(ctx))
	}
	return fail(KindExit, fmt.Errorf("%w: %w", ErrExit, waitErr))
}
