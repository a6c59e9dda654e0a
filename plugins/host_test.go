//go:build linux

package plugins_test

import (
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

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

func TestHostComponents(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)

	wantInfo := []plugins.Info{{
		Name: "tp", PluginName: "testplugin", Version: "1.2.3", APIVersion: "1.0.0",
		Capabilities: []plugins.Capability{plugins.CapVerifier, plugins.CapReviewer, plugins.CapGuardrail, plugins.CapExecutor},
	}}
	if diff := cmp.Diff(wantInfo, h.Plugins()); diff != "" {
		t.Errorf("Plugins (-want +got):\n%s", diff)
	}

	v, err := h.Verifier("tp")
	if err != nil {
		t.Fatal(err)
	}
	r, err := h.Reviewer("tp")
	if err != nil {
		t.Fatal(err)
	}
	g, err := h.Guardrail("tp")
	if err != nil {
		t.Fatal(err)
	}
	e, err := h.Executor("tp")
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	tests := []struct {
		name string
		call func() (any, error)
		want any
	}{
		{"verify passes", func() (any, error) { return v.Verify(ctx, verifyReq("ok", "hello")) },
			&verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "echo", Passed: true, OutputTail: "hello"}}}},
		{"verify fails", func() (any, error) { return v.Verify(ctx, verifyReq("fail", "")) },
			&verify.Report{
				Checks:      []verify.CheckResult{{Name: "go test", Argv: []string{"go", "test"}, ExitCode: 1, Duration: time.Second, TestsRun: 3, TestsFailed: 1}},
				Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: "abc", Summary: "TestX failed"},
			}},
		{"review", func() (any, error) {
			return r.Review(ctx, &verify.ReviewRequest{Task: &task.Task{ID: "T"}, Files: []string{"a.go", "b.go"}})
		}, &verify.Review{Findings: []verify.Finding{
			{Severity: verify.SeverityHigh, File: "a.go", Line: 1, Message: "look at a.go", Rule: "r0"},
			{Severity: verify.SeverityHigh, File: "b.go", Line: 2, Message: "look at b.go", Rule: "r1"},
		}}},
		{"guardrail hard", func() (any, error) {
			return g.Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "rm -rf /"})
		}, guardrail.Decision{Level: guardrail.Hard, Rule: "test.rm", Reason: "no", Match: "rm -rf /"}},
		{"guardrail allow", func() (any, error) {
			return g.Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "ls"})
		}, guardrail.Decision{}},
		{"execute", func() (any, error) {
			return e.Execute(ctx, &executor.Request{Task: &task.Task{ID: "T", Files: []string{"x.go"}}, Attempt: 1, Prompt: "do it"})
		}, &executor.Result{Status: executor.StatusDone, Summary: "do it", FilesChanged: []string{"x.go"}, Usage: executor.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.25}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Errors of the plugin's implementation cross as data and come back as the
// component's own errors, with the plugin still running.
func TestImplementationErrors(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	pid := readPid(t, s.Settings["pidfile"])
	v, _ := h.Verifier("tp")
	r, _ := h.Reviewer("tp")
	g, _ := h.Guardrail("tp")
	e, _ := h.Executor("tp")
	ctx := t.Context()

	tests := []struct {
		name  string
		call  func() error
		is    []error
		check func(t *testing.T, err error)
	}{
		{name: "no checks", call: func() error { _, err := v.Verify(ctx, verifyReq("nochecks", "")); return err },
			is: []error{verify.ErrNoChecks}},
		{name: "verify.Error", call: func() error { _, err := v.Verify(ctx, verifyReq("verror", "")); return err },
			is: []error{verify.ErrTimeout},
			check: func(t *testing.T, err error) {
				ve, _ := errors.AsType[*verify.Error](err)
				if ve == nil || ve.Check != "slow" || ve.Tail != "tail" || !strings.Contains(ve.Error(), "inner") {
					t.Errorf("got %#v", ve)
				}
				if !verify.IsRetryable(err) {
					t.Error("timeout not retryable")
				}
			}},
		{name: "handler panic", call: func() error { _, err := v.Verify(ctx, verifyReq("panic", "")); return err },
			is: []error{verify.ErrCrashed},
			check: func(t *testing.T, err error) {
				if !strings.Contains(err.Error(), "handler panic") {
					t.Errorf("error %q does not name the panic", err)
				}
			}},
		{name: "failing report without fingerprint", call: func() error { _, err := v.Verify(ctx, verifyReq("nofingerprint", "")); return err },
			is: []error{verify.ErrProtocol, plugins.ErrPluginProtocol},
			check: func(t *testing.T, err error) {
				if !strings.Contains(err.Error(), "field fingerprint") {
					t.Errorf("error %q does not name the field", err)
				}
			}},
		{name: "bad severity", call: func() error {
			_, err := r.Review(ctx, &verify.ReviewRequest{Task: &task.Task{}, Diff: "bad"})
			return err
		}, is: []error{verify.ErrProtocol, plugins.ErrPluginProtocol, verify.ErrInvalidSeverity},
			check: func(t *testing.T, err error) {
				if !strings.Contains(err.Error(), "findings[0].severity") {
					t.Errorf("error %q does not name the field", err)
				}
			}},
		{name: "guardrail error", call: func() error {
			_, err := g.Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "error"})
			return err
		}, check: func(t *testing.T, err error) {
			if !strings.Contains(err.Error(), "cannot decide") {
				t.Errorf("got %v", err)
			}
			d := guardrail.Evaluate(ctx, g, guardrail.Action{Kind: guardrail.KindCommand, Command: "error"})
			if d.Level != guardrail.Hard {
				t.Errorf("Evaluate: %v, want hard", d)
			}
		}},
		{name: "bad level", call: func() error {
			_, err := g.Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "badlevel"})
			return err
		}, is: []error{plugins.ErrPluginProtocol, guardrail.ErrInvalidLevel}},
		{name: "executor unavailable", call: func() error {
			_, err := e.Execute(ctx, &executor.Request{Task: &task.Task{}, Attempt: 1, Prompt: "unavailable"})
			return err
		}, is: []error{executor.ErrUnavailable},
			check: func(t *testing.T, err error) {
				if executor.IsRetryable(err) {
					t.Error("unavailable is retryable")
				}
				ee, _ := errors.AsType[*executor.Error](err)
				if ee == nil || ee.Tail != "no agent" || ee.Usage.InputTokens != 1 {
					t.Errorf("got %#v", ee)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("no error")
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("error %q is not %v", err, target)
				}
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
	if _, err := v.Verify(ctx, verifyReq("ok", "")); err != nil {
		t.Fatalf("plugin unusable after the errors: %v", err)
	}
	if got := readPid(t, s.Settings["pidfile"]); got != pid {
		t.Errorf("plugin restarted (pid %d, was %d); implementation errors must not end it", got, pid)
	}
}

// Faults of the plugin process: the host survives with a typed error, no
// process is left behind, and the next call gets a fresh plugin.
func TestProcessFaults(t *testing.T) {
	tests := []struct {
		id      string
		timeout time.Duration
		is      []error
		restart bool
		child   bool // the call starts a grandchild that must die too
	}{
		{id: "crash", is: []error{plugins.ErrPluginCrashed, verify.ErrCrashed}, restart: true},
		{id: "exit", is: []error{plugins.ErrPluginCrashed, verify.ErrCrashed}, restart: true},
		// A timed-out call ends the plugin and what it started, so no
		// abandoned work goes on; the next call starts a fresh one.
		{id: "hang", timeout: 300 * time.Millisecond, is: []error{plugins.ErrPluginTimeout, verify.ErrTimeout}, restart: true},
		{id: "spawn", timeout: 300 * time.Millisecond, is: []error{plugins.ErrPluginTimeout, verify.ErrTimeout}, restart: true, child: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			s := spec(t, "testplugin")
			h, _ := open(t, s)
			pid := readPid(t, s.Settings["pidfile"])
			v, _ := h.Verifier("tp")
			ctx := t.Context()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			_, err := v.Verify(ctx, verifyReq(tt.id, ""))
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("error %v is not %v", err, target)
				}
			}
			if !verify.IsRetryable(err) {
				t.Errorf("error %v not retryable", err)
			}
			if pe, ok := errors.AsType[*plugins.Error](err); !ok || pe.Plugin != "tp" {
				t.Errorf("error %v: no *plugins.Error naming the plugin", err)
			}
			if tt.child {
				gone(t, readPid(t, s.Settings["pidfile"]+".child"), 2*time.Second)
			}
			if tt.restart {
				gone(t, pid, 2*time.Second)
				os.Remove(s.Settings["pidfile"])
				if _, err := v.Verify(t.Context(), verifyReq("ok", "")); err != nil {
					t.Fatalf("call after the crash: %v", err)
				}
				pid = readPid(t, s.Settings["pidfile"])
			}
			h.Close()
			gone(t, pid, 2*time.Second)
		})
	}
}

func TestCrashReportsStderr(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	v, _ := h.Verifier("tp")
	_, err := v.Verify(t.Context(), verifyReq("crash", ""))
	if !strings.Contains(err.Error(), "goroutine panic") {
		t.Errorf("error %q does not carry the panic from stderr", err)
	}
}

// The trap of go-plugin v1.8.0: a JSON stderr line whose @message is not a
// string panics its log goroutine. Ours parses it, mid-call.
func TestHostileStderr(t *testing.T) {
	s := spec(t, "testplugin")
	h, sink := open(t, s)
	pid := readPid(t, s.Settings["pidfile"])
	v, _ := h.Verifier("tp")
	if _, err := v.Verify(t.Context(), verifyReq("stderr", "")); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(t.Context(), verifyReq("ok", "")); err != nil {
		t.Fatalf("host unusable after hostile stderr: %v", err)
	}
	want := []string{
		`level=INFO msg=42 plugin=tp stream=stderr`,
		`level=ERROR msg=43 plugin=tp stream=stderr`,
		`msg=map[a:[1]] plugin=tp stream=stderr`,
		`garbage {not json" plugin=tp stream=stderr`,
		`level=WARN msg="[WARN] plain warning" plugin=tp`,
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, w := range want {
		for !strings.Contains(sink.text(), w) {
			if time.Now().After(deadline) {
				t.Fatalf("log lacks %q; got:\n%s", w, sink.text())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	h.Close()
	gone(t, pid, 2*time.Second)
	// A last line without its newline is logged when the plugin stops.
	if w := `msg="last words without a newline" plugin=tp stream=stderr`; !strings.Contains(sink.text(), w) {
		t.Errorf("log lacks %q; got:\n%s", w, sink.text())
	}
}

// The trap is real: the same plugin line, given to go-plugin's own stderr
// handling, takes its host down. (If this starts failing, go-plugin fixed
// it; the host's own parsing stays, for the lines it logs.)
func TestGoPluginStderrTrap(t *testing.T) {
	// The crashed host cannot stop its plugin, which has no lifeline: the
	// plugin writes its pid at start, and the test ends it.
	pidfile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HARNISH_PLUGINS_TEST_TRAP="+bin(t, "testplugin-bare"), "HARNISH_TESTPLUGIN_PIDFILE="+pidfile)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "interface conversion") || strings.Contains(string(out), "survived") {
		t.Errorf("go-plugin's default stderr handling survived a non-string @message (err %v):\n%s", err, out)
	}
	pid := readPid(t, pidfile)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("killing the orphaned plugin %d: %v", pid, err)
	}
	gone(t, pid, 2*time.Second)
}

func TestCallTimeoutFromSpec(t *testing.T) {
	s := spec(t, "testplugin")
	s.Timeout = 200 * time.Millisecond
	h, _ := open(t, s)
	v, _ := h.Verifier("tp")
	start := time.Now()
	_, err := v.Verify(t.Context(), verifyReq("hang", ""))
	if !errors.Is(err, plugins.ErrPluginTimeout) || !strings.Contains(err.Error(), "timeout of 200ms") {
		t.Errorf("got %v, want a timeout naming 200ms", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestDoneContextBeforeTheCall(t *testing.T) {
	h, _ := open(t, spec(t, "testplugin"))
	v, _ := h.Verifier("tp")
	expired, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := v.Verify(expired, verifyReq("ok", "")); !errors.Is(err, plugins.ErrPluginTimeout) || !verify.IsRetryable(err) {
		t.Errorf("expired context: %v, want a retryable timeout", err)
	}
	cancelled, cancel2 := context.WithCancel(t.Context())
	cancel2()
	if _, err := v.Verify(cancelled, verifyReq("ok", "")); !errors.Is(err, context.Canceled) || verify.IsRetryable(err) {
		t.Errorf("cancelled context: %v, want context.Canceled, not retryable", err)
	}
}

func TestCancelWrapsCause(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	v, _ := h.Verifier("tp")
	cause := errors.New("budget exhausted")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	_, err := v.Verify(ctx, verifyReq("hang", ""))
	if !errors.Is(err, cause) {
		t.Errorf("got %v, want it to wrap the cause", err)
	}
}

func TestStartFaults(t *testing.T) {
	tests := []struct {
		name   string
		bin    string
		edit   func(*plugins.Spec)
		is     error
		errHas []string
	}{
		{name: "cookie", bin: "testplugin-cookie", is: plugins.ErrPluginHandshake,
			errHas: []string{"magic cookie HARNISH_PLUGIN="}},
		{name: "protocol version", bin: "testplugin-proto2", is: plugins.ErrPluginHandshake,
			errHas: []string{"host speaks plugin protocol 1", "Plugin version: 2"}},
		{name: "checksum", bin: "testplugin", edit: func(s *plugins.Spec) { s.SHA256 = strings.Repeat("0", 64) },
			is: plugins.ErrPluginChecksum, errHas: []string{"the manifest says 0000"}},
		{name: "version", bin: "testplugin", edit: func(s *plugins.Spec) { s.Version = ">= 2.0.0" },
			is: plugins.ErrPluginVersion, errHas: []string{"1.2.3", `">= 2.0.0"`}},
		{name: "configure", bin: "testplugin", edit: func(s *plugins.Spec) { s.Settings["fail"] = "no license" },
			is: plugins.ErrPluginUnavailable, errHas: []string{"no license"}},
		{name: "missing binary", bin: "testplugin", edit: func(s *plugins.Spec) { s.Path += "-missing" },
			is: plugins.ErrPluginUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "startpid")
			t.Setenv("HARNISH_TESTPLUGIN_PIDFILE", pidfile)
			s := spec(t, tt.bin)
			if tt.edit != nil {
				tt.edit(&s)
			}
			h, err := plugins.Open(t.Context(), plugins.Config{Manifest: &plugins.Manifest{Plugins: []plugins.Spec{s}}})
			if err == nil {
				h.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, tt.is) || !errors.Is(err, plugins.ErrPluginUnavailable) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if b, rerr := os.ReadFile(pidfile); rerr == nil {
				pid := readPid(t, pidfile)
				gone(t, pid, 2*time.Second)
				_ = b
			}
		})
	}
}

// go-plugin's start does not watch a context; Open does.
func TestOpenCancelledWhileStarting(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "startpid")
	t.Setenv("HARNISH_TESTPLUGIN_PIDFILE", pidfile)
	s := spec(t, "testplugin-slow")
	m := &plugins.Manifest{Plugins: []plugins.Spec{s}}
	ctx, cancel := context.WithCancelCause(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := plugins.Open(ctx, plugins.Config{Manifest: m})
		errc <- err
	}()
	pid := readPid(t, pidfile)
	stopped := errors.New("user gave up")
	cancel(stopped)
	select {
	case err := <-errc:
		if !errors.Is(err, stopped) {
			t.Errorf("got %v, want the cancellation's cause", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open did not return after the cancellation")
	}
	gone(t, pid, 2*time.Second)

	if _, err := plugins.Open(ctx, plugins.Config{Manifest: m}); !errors.Is(err, stopped) {
		t.Errorf("Open with a done context: %v", err)
	}
}

// A relative path in a hand-made Spec is the file in the current directory,
// for the checksum and for exec alike.
func TestRelativePath(t *testing.T) {
	s := spec(t, "testplugin")
	t.Chdir(filepath.Dir(s.Path))
	s.Path = "testplugin"
	h, _ := open(t, s)
	if got := h.Plugins()[0].Version; got != "1.2.3" {
		t.Errorf("version %q", got)
	}
}

func TestCloseKillsTree(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	pid := readPid(t, s.Settings["pidfile"])
	v, _ := h.Verifier("tp")
	go v.Verify(context.WithoutCancel(t.Context()), verifyReq("spawn", ""))
	child := readPid(t, s.Settings["pidfile"]+".child")
	waitFile(t, s.Settings["pidfile"]+".busy")
	h.Close()
	gone(t, pid, 2*time.Second)
	gone(t, child, 2*time.Second)
	if _, err := v.Verify(t.Context(), verifyReq("ok", "")); !errors.Is(err, plugins.ErrPluginUnavailable) {
		t.Errorf("call after Close: %v, want unavailable", err)
	}
}

// A call that Close cuts short is not a crash: the host closed.
func TestCallRacingClose(t *testing.T) {
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	v, _ := h.Verifier("tp")
	errc := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.WithoutCancel(t.Context()), verifyReq("hang", ""))
		errc <- err
	}()
	waitFile(t, s.Settings["pidfile"]+".busy")
	h.Close()
	err := <-errc
	if !errors.Is(err, plugins.ErrPluginUnavailable) || errors.Is(err, plugins.ErrPluginCrashed) || !strings.Contains(err.Error(), "host closed") {
		t.Errorf("call cut short by Close: %v, want unavailable: host closed", err)
	}
}

// A grandchild that left the plugin's process group cannot be killed with
// it, but must not make Close wait for it either.
func TestCloseEscapedGrandchild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	s := spec(t, "testplugin")
	h, _ := open(t, s)
	pid := readPid(t, s.Settings["pidfile"])
	v, _ := h.Verifier("tp")
	go v.Verify(context.WithoutCancel(t.Context()), verifyReq("escape", ""))
	child := readPid(t, s.Settings["pidfile"]+".child")
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	waitFile(t, s.Settings["pidfile"]+".busy")
	// The grandchild must hold the plugin's stdout, or this proves nothing.
	if l, _ := os.Readlink("/proc/" + strconv.Itoa(child) + "/fd/1"); !strings.HasPrefix(l, "pipe:") {
		t.Fatalf("grandchild's stdout is %q, not the plugin's pipe", l)
	}
	start := time.Now()
	h.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	gone(t, pid, 2*time.Second)
}

// A host SIGKILLed mid-call cannot stop its plugin; the lifeline must.
func TestHostKilledPluginDies(t *testing.T) {
	s := spec(t, "testplugin")
	dir := t.TempDir()
	manifest := filepath.Join(dir, "plugins.yaml")
	y := "plugins:\n  - name: tp\n    path: " + s.Path + "\n    sha256: " + s.SHA256 +
		"\n    settings: {pidfile: " + s.Settings["pidfile"] + "}\n"
	if err := os.WriteFile(manifest, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HARNISH_PLUGINS_TEST_HOST="+manifest)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	got := lines(out)
	select {
	case l := <-got:
		if l != "calling" {
			t.Fatalf("host helper said %q", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("host helper did not start")
	}
	pid := readPid(t, s.Settings["pidfile"])
	waitFile(t, s.Settings["pidfile"]+".busy")
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	gone(t, pid, 2*time.Second)
}

// A plugin cannot make the host read a reply beyond MaxReplySize; the call
// fails as a protocol fault naming the limit, and the plugin stays usable.
func TestReplyLimit(t *testing.T) {
	h, _ := open(t, spec(t, "testplugin"))
	v, _ := h.Verifier("tp")
	_, err := v.Verify(t.Context(), verifyReq("huge", ""))
	if !errors.Is(err, plugins.ErrPluginProtocol) || !errors.Is(err, verify.ErrProtocol) || !strings.Contains(err.Error(), "limit of 16 MiB") {
		t.Errorf("got %v, want a protocol fault naming the 16 MiB limit", err)
	}
	if _, err := v.Verify(t.Context(), verifyReq("ok", "")); err != nil {
		t.Errorf("call after the oversized reply: %v", err)
	}
}
