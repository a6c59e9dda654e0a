package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTemporalArgs(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "harnish.yaml")
	if err := os.WriteFile(plan, []byte("version: \"1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string // nil: not for Temporal
		err  string
	}{
		{args: []string{"run", "--dir", dir}},
		{args: []string{"status", "--json"}},
		{args: []string{"status", "--dir"}},
		{args: []string{"validate", "plan.yaml", "--strict"}},
		{args: []string{"run", "--temporal", "h:1", "--dir", dir, "--yes", "--cycles", "5", "--worker"},
			want: []string{"run", "--address", "h:1", "--dir", dir, "--yes", "--cycles", "5", "--worker", "--commit", plan}},
		{args: []string{"run", "--temporal=h:1", "--plan", "p.yaml", "--id", "w1", "--rollback", "--allow-dirty", "--task-queue=q"},
			want: []string{"run", "--address", "h:1", "--rollback", "--allow-dirty", "--task-queue", "q", "--commit", "--id", "w1", "p.yaml"}},
		{args: []string{"resume", "--temporal", "h:1", "--plan", "p.yaml", "--id", "w1", "--approve"},
			want: []string{"resume", "--address", "h:1", "--approve", "w1", "p.yaml"}},
		{args: []string{"approve", "w1", "--temporal", "h:1", "--reject", "--note", "not yet"},
			want: []string{"approve", "--address", "h:1", "--reject", "--note", "not yet", "w1"}},
		{args: []string{"status", "--temporal", "h:1", "--json", "w1"}, want: []string{"status", "--address", "h:1", "--json", "w1"}},
		{args: []string{"status", "-temporal", "h:1", "--id", "w1"}, want: []string{"status", "--address", "h:1", "w1"}},
		{args: []string{"worker", "--temporal", "h:1", "--task-queue", "q", "--hook", "/bin/hook"},
			want: []string{"worker", "--address", "h:1", "--task-queue", "q", "--hook", "/bin/hook"}},
		{args: []string{"run", "--temporal", "h:1", "--dir", dir, "--push"}, err: "--push has no counterpart"},
		{args: []string{"run", "--temporal", "h:1", "--dir", t.TempDir()}, err: "no plan"},
		{args: []string{"resume", "--temporal", "h:1", "--plan", "p.yaml"}, err: "needs --id"},
		{args: []string{"status", "--temporal", "h:1"}, err: "want the run's workflow ID"},
		{args: []string{"status", "--temporal"}, err: "needs a value"},
		{args: []string{"validate", "--temporal", "h:1", "x"}, err: "not with validate"},
	} {
		got, ok, err := temporalArgs(tc.args)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !ok {
				t.Errorf("%q: ok %v, error %v, want one saying %q", tc.args, ok, err, tc.err)
			}
		case err != nil || ok != (tc.want != nil) || !slices.Equal(got, tc.want):
			t.Errorf("%q:\n got %q (ok %v, %v)\nwant %q", tc.args, got, ok, err, tc.want)
		}
	}
}

// TestTemporalMissing: without harnish-temporal, a command with --temporal
// says what is missing and how to install it; approve and worker without
// --temporal say they need it.
func TestTemporalMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var stdout, stderr bytes.Buffer
	code := run([]string{"status", "--temporal", "127.0.0.1:1", "w1"}, &stdout, &stderr)
	if code != exitError || !strings.Contains(stderr.String(), "harnish-temporal is neither next to harnish nor on PATH") ||
		!strings.Contains(stderr.String(), "(cd contrib/temporal && go install ./cmd/harnish-temporal)") {
		t.Errorf("exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"approve", "w1"}, &stdout, &stderr); code != exitError || !strings.Contains(stderr.String(), "only with --temporal") {
		t.Errorf("approve without --temporal: exit %d\n%s", code, stderr.String())
	}
}

// TestTemporalServer runs a plan with "harnish run --temporal" against a
// real Temporal server, through the harnish-temporal this test builds next
// to harnish, and checks that the tasks are committed as harnish run
// commits them and that "harnish status --temporal" answers. It needs a
// server: HARNISH_TEMPORAL_ADDRESS, or HARNISH_TEMPORAL_DEVSERVER, a build
// of contrib/temporal/devserver to start; HARNISH_REQUIRE_TEMPORAL makes it
// fail without one.
func TestTemporalServer(t *testing.T) {
	addr, devServer := os.Getenv("HARNISH_TEMPORAL_ADDRESS"), os.Getenv("HARNISH_TEMPORAL_DEVSERVER")
	if addr == "" && devServer == "" {
		if os.Getenv("HARNISH_REQUIRE_TEMPORAL") != "" {
			t.Fatal("HARNISH_REQUIRE_TEMPORAL is set and neither HARNISH_TEMPORAL_ADDRESS nor HARNISH_TEMPORAL_DEVSERVER names a server")
		}
		t.Skip("no Temporal server: set HARNISH_TEMPORAL_ADDRESS or HARNISH_TEMPORAL_DEVSERVER")
	}
	harnish := harnishBinary(t)
	temporalBin := filepath.Join(filepath.Dir(harnish), temporalProgram)
	build := exec.Command("go", "build", "-o", temporalBin, "./cmd/harnish-temporal")
	build.Dir = filepath.Join("..", "..", "contrib", "temporal")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build harnish-temporal: %v\n%s", err, out)
	}
	if addr == "" {
		addr = startDevServer(t, devServer)
	}
	tree := t.TempDir()
	plan := `version: "1"
name: fleet
executor: {kind: command, argv: [sh, -c, 'echo "$HARNISH_TASK_ID" > "$HARNISH_TASK_ID.txt"; printf "{\"summary\":\"did %s\"}" "$HARNISH_TASK_ID" > "$HARNISH_RESULT_FILE"']}
phases:
  - id: p1
    title: P1
    tasks:
      - {id: T1, title: one, acceptance: [{run: [test, -f, T1.txt]}]}
      - {id: T2, title: two, acceptance: [{run: [test, -f, T2.txt]}]}
`
	if err := os.WriteFile(filepath.Join(tree, "harnish.yaml"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "harnish.yaml"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "plan"}} {
		if out, err := exec.Command("git", append([]string{"-C", tree}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	queue := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	harnishRun := func(args ...string) (int, string, string) {
		cmd := exec.Command(harnish, args...)
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin") // harnish-temporal is found next to harnish
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := harnishRun("run", "--temporal", addr, "--dir", tree, "--id", queue, "--task-queue", queue, "--worker", "--yes")
	if code != 0 || strings.TrimSpace(out) != queue {
		t.Fatalf("harnish run --temporal: exit %d\n%s%s", code, out, errOut)
	}
	log, err := exec.Command("git", "-C", tree, "log", "--format=%s", "main..HEAD").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, log)
	}
	want := "chore(harnish): records of run " + queue + " (completed)\nfeat(p1): T2 — two\nfeat(p1): T1 — one\n"
	if string(log) != want {
		t.Errorf("the run's branch holds\n%s\nwant\n%s", log, want)
	}
	// A query needs a worker: harnish worker --temporal, until killed.
	worker := exec.Command(harnish, "worker", "--temporal", addr, "--task-queue", queue)
	worker.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	worker.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-worker.Process.Pid, syscall.SIGKILL); worker.Wait() }()
	code, out, errOut = harnishRun("status", "--temporal", addr, "--json", queue)
	if code != 0 || !strings.Contains(out, `"outcome": "completed"`) {
		t.Errorf("harnish status --temporal: exit %d\n%s%s", code, out, errOut)
	}
	// The program's own exit status comes through: no such run.
	if code, _, errOut = harnishRun("status", "--temporal", addr, "no-such-run"); code == 0 || !strings.Contains(errOut, "harnish-temporal status") {
		t.Errorf("status of no run: exit %d\n%s", code, errOut)
	}
}

// startDevServer starts the dev server on a free loopback port for the
// test, and returns its address once it listens.
func startDevServer(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "-dir", dir, "-addr", addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dev server did not listen on %s in a minute", addr)
		}
	}
}
