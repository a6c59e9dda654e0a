//go:build linux

package codex_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// noNamespaces returns a codex program that runs the real codex where no
// user namespace can be made (a user namespace of its own whose
// max_user_namespaces is 0), as in a container or under Ubuntu's AppArmor
// rule: Codex's sandbox, bubblewrap, cannot start there. It needs
// unshare(1) and user namespaces, so the test skips without them, or
// fails with HARNISH_REQUIRE_AGENTS=1.
func noNamespaces(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("codex")
	if err != nil {
		t.Fatal(err)
	}
	const limit = `echo 0 > /proc/sys/user/max_user_namespaces`
	if out, err := exec.Command("unshare", "--user", "--map-root-user", "sh", "-c", limit).CombinedOutput(); err != nil {
		msg := "unshare cannot make a user namespace with no room for more here: " + err.Error() + ": " + strings.TrimSpace(string(out))
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	bin := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nexec unshare --user --map-root-user sh -c '" + limit + ` && exec "$0" "$@"' '` + real + "' \"$@\"\n"
	if err := fsx.WriteExecutable(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// thinkTime is how long the model of [thinking] takes: far longer than a
// run whose sandbox cannot start should go on.
const thinkTime = time.Minute

// thinking is a turn that answers text after [thinkTime].
func thinking(text string) codextest.Turn {
	return codextest.Turn{Items: []codextest.Item{codextest.Message(text)}, Delay: thinkTime}
}

// TestSandboxCannotStart: where Codex's sandbox cannot start, what a
// command of the agent was told, or a patch that failed (Codex gives no
// reason), makes the executor start the sandbox itself to find out: the
// attempt is unavailable, with a *codex.SandboxError that says what
// bubblewrap said, and nothing was written. After a command, the run is
// stopped while the model still thinks about its next turn.
func TestSandboxCannotStart(t *testing.T) {
	needCodex(t)
	t.Parallel()
	const want = "bwrap: Creating new namespace failed"
	tests := []struct {
		name    string
		script  []codextest.Turn
		command string // in the error
	}{
		{name: "command", script: []codextest.Turn{turn(codextest.Shell(`printf 'hello\n' > a.txt`)), thinking("done")},
			command: `printf 'hello\n' > a.txt`},
		{name: "patch", script: []codextest.Turn{turn(codextest.ApplyPatch(addA)), turn(codextest.Message("done"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := codextest.NewServer(t, tt.script...)
			ex := newExecutor(t, srv)
			ex.Codex = noNamespaces(t)
			work := testkit.GitTree(t)
			start := time.Now()
			res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: work, Prompt: "Write a.txt."})
			if ee, ok := errors.AsType[*executor.Error](err); !ok || ee.Kind != executor.KindUnavailable {
				t.Fatalf("Execute = %+v, %v; want an *executor.Error of kind unavailable", res, err)
			}
			se, ok := errors.AsType[*codex.SandboxError](err)
			if !ok || se.Mode != codex.SandboxWorkspaceWrite || se.Command != tt.command || !strings.HasPrefix(se.Message, want) {
				t.Fatalf("%v: want a *codex.SandboxError for %q saying %q, got %+v", err, tt.command, want, se)
			}
			if _, err := os.Stat(filepath.Join(work, "a.txt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a.txt was written: %v", err)
			}
			if d := time.Since(start); d > thinkTime/2 {
				t.Errorf("Execute took %v: the run was not stopped", d)
			}
		})
	}
}

// TestPatchFailsSandboxStarts: a patch that fails on its own (a file where
// it needs a directory) looks like one the sandbox could not start (Codex
// says no more), so the executor starts the sandbox to see; it starts, and
// the attempt is the agent's to answer for, not an unavailable executor.
func TestPatchFailsSandboxStarts(t *testing.T) {
	needCodex(t)
	t.Parallel()
	const patch = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Add File: a.txt/b.txt\n+b\n*** End Patch\n"
	srv := codextest.NewServer(t, turn(codextest.ApplyPatch(patch)), turn(codextest.Message("done")))
	ex := newExecutor(t, srv)
	ex.TranscriptDir = t.TempDir()
	res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: testkit.GitTree(t), Prompt: "p"})
	if err != nil || res.Status != executor.StatusDone {
		t.Fatalf("Execute = %+v, %v; want done", res, err)
	}
	if b, _ := os.ReadFile(res.Transcript); !strings.Contains(string(b), `"type":"file_change"`) || !strings.Contains(string(b), `"status":"failed"`) {
		t.Errorf("the patch did not fail:\n%s", b)
	}
}

// TestLoopSandboxCannotStart: a run whose executor's sandbox cannot start
// ends at once with outcome error and the cause, rather than retrying the
// task until it halts for a root cause nobody can find.
func TestLoopSandboxCannotStart(t *testing.T) {
	needCodex(t)
	t.Parallel()
	plan := `version: 1
name: e2e
phases:
  - id: p1
    title: P
    tasks:
      - id: T1
        title: hello
        objective: a.txt holds hello
        files: [a.txt]
        acceptance:
          - sh: 'test "$(cat a.txt)" = hello'
`
	bin := noNamespaces(t)
	e := runLoopWith(t, func(ex *codex.Executor) { ex.Codex = bin }, plan, nil,
		turn(codextest.Shell(`printf 'hello\n' > a.txt`)), thinking("done"))
	if e.res.Outcome != policy.Errored || !strings.Contains(e.res.Reason, "sandbox cannot start: bwrap: ") {
		t.Fatalf("outcome %s (%s): %v\n%s", e.res.Outcome, e.res.Reason, e.err, strings.Join(e.lines, "\n"))
	}
	e.has(t, "attempt.finished T1#1", "run.finished error")
}

// TestBubblewrap: Codex runs its sandbox with a system bwrap when one is on
// PATH, else with the copy it bundles, and they start the sandbox
// differently. CI runs this package both ways and says which it arranged in
// HARNISH_CODEX_BWRAP (system or bundled); this test fails when the machine
// does not match, so a run cannot pass as the other.
func TestBubblewrap(t *testing.T) {
	got := "bundled"
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if fi, err := os.Stat(filepath.Join(d, "bwrap")); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			got = "system: " + filepath.Join(d, "bwrap")
			break
		}
	}
	want := os.Getenv("HARNISH_CODEX_BWRAP")
	switch want {
	case "":
		t.Skipf("Codex will use the %s bubblewrap; set HARNISH_CODEX_BWRAP=system or bundled to require one", got)
	case "system", "bundled":
	default:
		t.Fatalf("HARNISH_CODEX_BWRAP=%q: want system or bundled", want)
	}
	if kind, _, _ := strings.Cut(got, ":"); kind != want {
		t.Fatalf("HARNISH_CODEX_BWRAP=%s, but Codex will use the %s bubblewrap", want, got)
	}
}
