//go:build unix

package proc_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/internal/proc"
)

// groupGone waits for every process of the group pgid to be gone (zombies
// take a moment to be reaped) and fails the test if some are left.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no process group to check (pid %d)", pgid)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has processes (kill -0: %v)", pgid, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRun(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	realRoot, _ := filepath.EvalSymlinks(root)
	type result struct {
		ExitCode               int
		Dir                    string
		Stdout, Stderr, Output string
		Kind                   proc.Kind
	}
	tests := []struct {
		name string
		spec proc.Spec
		want result
	}{
		{
			name: "success",
			spec: proc.Spec{Argv: []string{"sh", "-c", "echo out; sleep 0.1; echo err >&2"}},
			want: result{ExitCode: 0, Dir: realRoot, Stdout: "out\n", Stderr: "err\n", Output: "out\nerr\n"},
		},
		{
			name: "argv is not a shell",
			spec: proc.Spec{Argv: []string{"echo", "$HOME", "a;b", "`x`"}},
			want: result{ExitCode: 0, Dir: realRoot, Stdout: "$HOME a;b `x`\n", Output: "$HOME a;b `x`\n"},
		},
		{
			name: "dir and env",
			spec: proc.Spec{Argv: []string{"sh", "-c", "pwd; echo $A $" + proc.EnvGuard}, Dir: "sub", Env: []string{"A=1", "A=2", proc.EnvGuard + "=0"}},
			want: result{ExitCode: 0, Dir: filepath.Join(realRoot, "sub"), Stdout: filepath.Join(realRoot, "sub") + "\n2 1\n", Output: filepath.Join(realRoot, "sub") + "\n2 1\n"},
		},
		{
			name: "stdin",
			spec: proc.Spec{Argv: []string{"cat"}, Stdin: strings.NewReader("in put")},
			want: result{ExitCode: 0, Dir: realRoot, Stdout: "in put", Output: "in put"},
		},
		{
			name: "non-zero exit",
			spec: proc.Spec{Stage: "test", Argv: []string{"sh", "-c", "echo bad >&2; exit 3"}},
			want: result{ExitCode: 3, Dir: realRoot, Stderr: "bad\n", Output: "bad\n", Kind: proc.KindExit},
		},
		{
			name: "missing program",
			spec: proc.Spec{Argv: []string{"harnish-no-such-program"}},
			want: result{ExitCode: -1, Dir: realRoot, Kind: proc.KindStart},
		},
		{
			name: "empty argv",
			spec: proc.Spec{},
			want: result{ExitCode: -1, Kind: proc.KindStart},
		},
		{
			name: "dir outside the root: nothing runs",
			spec: proc.Spec{Argv: []string{"touch", "ran"}, Dir: ".."},
			want: result{ExitCode: -1, Dir: "..", Kind: proc.KindConfined},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Root = root
			res, err := proc.Run(t.Context(), tt.spec)
			got := result{ExitCode: res.ExitCode, Dir: res.Dir, Stdout: res.Stdout, Stderr: res.Stderr, Output: res.Output}
			if err != nil {
				var pe *proc.Error
				if !errors.As(err, &pe) {
					t.Fatalf("error %T %v is not a *proc.Error", err, err)
				}
				got.Kind = pe.Kind
				if pe.ExitCode != res.ExitCode || pe.Stderr != res.Stderr || pe.Stage != tt.spec.Stage {
					t.Errorf("error diagnostics %+v disagree with the result %+v", pe, res)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(root), "ran")); err == nil {
				t.Errorf("a command ran outside the root")
			}
			if res.Pgid > 0 {
				groupGone(t, res.Pgid)
			}
		})
	}
}

func TestRunErrorDiagnostics(t *testing.T) {
	_, err := proc.Run(t.Context(), proc.Spec{Stage: "build", Root: t.TempDir(),
		Argv: []string{"sh", "-c", "echo compiling; echo 'boom' >&2; exit 2", "--token=abc"}})
	var pe *proc.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v, want a *proc.Error", err)
	}
	if !errors.Is(err, proc.ErrExit) {
		t.Errorf("error %v does not match ErrExit", err)
	}
	diag := pe.Diagnostics()
	for _, want := range []string{"proc: build: sh -c ", "--token=***", "exit status 2", "--- stderr (tail) ---\nboom", "--- stdout (tail) ---\ncompiling"} {
		if !strings.Contains(diag, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diag)
		}
	}
	if strings.Contains(diag, "abc") {
		t.Errorf("diagnostics leak the secret:\n%s", diag)
	}
}

func TestRunStdoutWriter(t *testing.T) {
	var full bytes.Buffer
	res, err := proc.Run(t.Context(), proc.Spec{Root: t.TempDir(), Stdout: &full,
		Argv: []string{"sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line$i; i=$((i+1)); done"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(full.String(), "\n"); n != 3000 {
		t.Errorf("the caller's writer got %d lines, want 3000", n)
	}
	if !strings.HasSuffix(full.String(), res.Stdout) || len(res.Stdout) > proc.TailChars || !strings.HasSuffix(res.Stdout, "line2999\n") {
		t.Errorf("tail of %d bytes is not the end of stdout", len(res.Stdout))
	}
}

// Each way a run is cut short ends the whole process tree, promptly.
func TestRunEndsTheTree(t *testing.T) {
	const grace = 300 * time.Millisecond
	cause := errors.New("budget spent")
	tests := []struct {
		name     string
		script   string
		timeout  time.Duration
		ctx      func(t *testing.T, dir string) context.Context
		kind     proc.Kind // "" for success
		matches  error
		maxTime  time.Duration
		exitCode int
	}{
		{
			name: "timeout, child exits on SIGTERM", script: "sleep 60",
			timeout: 200 * time.Millisecond, kind: proc.KindTimeout, matches: proc.ErrTimeout, maxTime: 3 * time.Second, exitCode: -1,
		},
		{
			name: "timeout, child ignores SIGTERM", script: `trap "" TERM; sleep 60; sleep 60`,
			timeout: 200 * time.Millisecond, kind: proc.KindTimeout, matches: proc.ErrTimeout, maxTime: 3 * time.Second, exitCode: -1,
		},
		{
			name: "timeout, grandchild ignores SIGTERM and holds the pipe", script: `(trap "" TERM; sleep 60) & wait`,
			timeout: 200 * time.Millisecond, kind: proc.KindTimeout, matches: proc.ErrTimeout, maxTime: 3 * time.Second, exitCode: -1,
		},
		{
			name: "exit 0, grandchild keeps the output pipe open", script: `sleep 60 & echo started`,
			kind: "", maxTime: 3 * time.Second, exitCode: 0,
		},
		{
			name: "exit 1, grandchild ignoring SIGTERM keeps the pipe open", script: `(trap "" TERM; sleep 60) & exit 1`,
			kind: proc.KindExit, matches: proc.ErrExit, maxTime: 3 * time.Second, exitCode: 1,
		},
		{
			// Cancelled once the child is up (it makes the file), so a
			// loaded machine's slow start cannot cancel it before.
			name: "cancel with a cause", script: `trap "" TERM; touch up; sleep 60`,
			ctx: func(t *testing.T, dir string) context.Context {
				ctx, cancel := context.WithCancelCause(t.Context())
				go func() {
					for {
						if _, err := os.Stat(filepath.Join(dir, "up")); err == nil {
							cancel(cause)
							return
						}
						select {
						case <-ctx.Done():
							return
						case <-time.After(10 * time.Millisecond):
						}
					}
				}()
				return ctx
			},
			kind: proc.KindCanceled, matches: cause, maxTime: 3 * time.Second, exitCode: -1,
		},
		{
			name: "caller's deadline shorter than the timeout", script: "sleep 60", timeout: time.Minute,
			ctx: func(t *testing.T, _ string) context.Context {
				ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			},
			kind: proc.KindCanceled, matches: context.DeadlineExceeded, maxTime: 3 * time.Second, exitCode: -1,
		},
		{
			name: "timeout shorter than the caller's deadline", script: "sleep 60", timeout: 200 * time.Millisecond,
			ctx: func(t *testing.T, _ string) context.Context {
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				t.Cleanup(cancel)
				return ctx
			},
			kind: proc.KindTimeout, matches: proc.ErrTimeout, maxTime: 3 * time.Second, exitCode: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, dir := t.Context(), t.TempDir()
			if tt.ctx != nil {
				ctx = tt.ctx(t, dir)
			}
			start := time.Now()
			res, err := proc.Run(ctx, proc.Spec{Root: dir, Argv: []string{"sh", "-c", tt.script},
				Timeout: tt.timeout, Grace: grace})
			elapsed := time.Since(start)
			var kind proc.Kind
			if pe, ok := errors.AsType[*proc.Error](err); ok {
				kind = pe.Kind
			} else if err != nil {
				t.Fatalf("error %T %v is not a *proc.Error", err, err)
			}
			if kind != tt.kind {
				t.Errorf("kind = %q (%v), want %q", kind, err, tt.kind)
			}
			if tt.matches != nil && !errors.Is(err, tt.matches) {
				t.Errorf("error %v does not match %v", err, tt.matches)
			}
			if res.ExitCode != tt.exitCode {
				t.Errorf("exit code = %d, want %d", res.ExitCode, tt.exitCode)
			}
			if elapsed > tt.maxTime {
				t.Errorf("took %s, want at most %s", elapsed, tt.maxTime)
			}
			if res.Pid == 0 && tt.kind != "" && tt.kind != proc.KindExit {
				// A timer of 200 ms ran out before a loaded machine
				// started the child: the kind and error are checked
				// above; there is no tree.
				t.Logf("cut short before the child started: %v", err)
				return
			}
			groupGone(t, res.Pgid)
		})
	}
}

// A timeout that runs out while the child is being started is a timeout,
// not a program that could not start: the caller retries the one and
// fixes the other.
func TestRunTimeoutBeforeStart(t *testing.T) {
	dir := t.TempDir()
	res, err := proc.Run(t.Context(), proc.Spec{Root: dir, Argv: []string{"touch", "ran"}, Timeout: time.Nanosecond})
	pe, ok := errors.AsType[*proc.Error](err)
	if !ok || pe.Kind != proc.KindTimeout || !errors.Is(err, proc.ErrTimeout) || errors.Is(err, proc.ErrStart) {
		t.Errorf("error = %v, want a timeout", err)
	}
	if res.Pid != 0 || res.ExitCode != -1 {
		t.Errorf("result = %+v, want no process", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the program ran")
	}
}

// An already-cancelled context starts nothing.
func TestRunCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("stop")
	cancel(cause)
	dir := t.TempDir()
	res, err := proc.Run(ctx, proc.Spec{Root: dir, Argv: []string{"touch", "ran"}})
	if !errors.Is(err, cause) {
		t.Errorf("error = %v, want the cause", err)
	}
	if diff := cmp.Diff(&proc.Result{Dir: res.Dir, ExitCode: -1}, res, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// A grandchild that left the process group (setsid) and holds the output
// pipe cannot hold up Run past the grace period.
func TestRunEscapedGrandchild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	start := time.Now()
	res, err := proc.Run(t.Context(), proc.Spec{Root: dir, Grace: 300 * time.Millisecond,
		Argv: []string{"sh", "-c", "setsid sleep 30 & echo $! > pid; echo done"}})
	elapsed := time.Since(start)
	if b, rerr := os.ReadFile(filepath.Join(dir, "pid")); rerr == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err != nil || res.Stdout != "done\n" {
		t.Errorf("Run = %q, %v; want done, nil", res.Stdout, err)
	}
	if elapsed > 3*time.Second {
		t.Errorf("took %s, want about the grace period", elapsed)
	}
	groupGone(t, res.Pgid)
}
