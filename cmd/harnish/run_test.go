package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
)

// agent.sh writes the file of its task, on its second attempt for T2.
const agentScript = `case "$HARNISH_TASK_ID/$HARNISH_ATTEMPT" in
T1/*) touch a.txt ;;
T2/1) ;;
T2/*) touch b.txt ;;
esac
echo '{"usage": {"input_tokens": 1000, "output_tokens": 234, "cost_usd": 0.5}}' > "$HARNISH_RESULT_FILE"
`

func TestRunResumeStatus(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agentScript,
		"harnish-assets.jsonl": `{"type":"guardrail","slug":"no-force","title":"never force-push","tags":["git"],"date":"2026-01-02"}` + "\n"})
	var out, errb bytes.Buffer

	// No terminal, no --yes: the run stops at the milestone.
	if code := run([]string{"run", "--dir", dir, "--json"}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			Type    string `json:"type"`
			Outcome string `json:"outcome"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		types = append(types, e.Type+e.Outcome)
	}
	want := []string{"run.started", "task.started", "attempt.started", "verify.passed", "attempt.finished", "task.done",
		"milestone.reached", "run.finishedawaiting-approval"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// The engine's history came in with the run.
	var q bytes.Buffer
	if code := run([]string{"assets", "query", "--dir", dir, "--tags", "git"}, &q, &errb); code != 0 || !strings.Contains(q.String(), "never force-push") {
		t.Errorf("the engine history was not imported: exit %d\n%s%s", code, q.String(), errb.String())
	}

	// A second run refuses to start over the recorded one.
	errb.Reset()
	if code := run([]string{"run", "--dir", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "harnish resume") ||
		!strings.Contains(errb.String(), "--new") {
		t.Errorf("second run: exit %d, %s", code, errb.String())
	}

	// Resume with approval goes past the gate; T2 fails once, then passes.
	out.Reset()
	if code := run([]string{"resume", "--dir", dir, "--approve"}, &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"milestone after phase p1 approved", "T2 attempt 1: checks fail", "T2 attempt 2: checks pass", "T2 done\ncompleted\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("resume output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if code := run([]string{"status", "--dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("status: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"of plan cli-test: completed", "spent: 3 attempts", "3702 tokens, $1.50",
		"p1         T1           done       1 attempts, 1234 tokens, $0.50",
		"p2         T2           done       2 attempts, 2468 tokens, $1.00"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, out.String())
		}
	}
}

// TestInterruptAndResume runs the real binary, interrupts it (Ctrl-C) while
// the agent works, and checks the run ends cancelled (exit 130) in a state
// that "harnish resume" carries to the end.
func TestInterruptAndResume(t *testing.T) {
	bin := harnishBinary(t)
	// The agent waits on its first attempt until it is stopped.
	agent := `if [ "$HARNISH_TASK_ID/$HARNISH_ATTEMPT" = T1/1 ]; then touch started; sleep 60; fi
touch a.txt b.txt
`
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agent})
	cmd := exec.Command(bin, "run", "--dir", dir, "--yes")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the agent never started:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	sent := time.Now()
	err := cmd.Wait()
	t.Logf("the run ended %s after the interrupt", time.Since(sent).Round(time.Millisecond))
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v, want exit status 130\n%s", err, out.String())
	}
	var status bytes.Buffer
	if code := run([]string{"status", "--dir", dir}, &status, &status); code != 0 || !strings.Contains(status.String(), ": cancelled") {
		t.Fatalf("status after the interrupt (exit %d):\n%s", code, status.String())
	}
	out.Reset()
	if code := run([]string{"resume", "--dir", dir, "--yes"}, &out, &out); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, out.String())
	}
	status.Reset()
	run([]string{"status", "--dir", dir}, &status, &status)
	if !strings.Contains(status.String(), "p1         T1           done       2 attempts") {
		t.Errorf("T1 should be done after 2 attempts, the cut one counted:\n%s", status.String())
	}
}

// TestResumeWithAChangedPlan: a person changes the task that escalated and
// resumes with the new plan; the task gets a fresh budget under it.
func TestResumeWithAChangedPlan(t *testing.T) {
	plan := func(check string) string {
		return `version: 1
name: fix-me
budget: {attempts: 1}
executor: {kind: command, argv: [sh, agent.sh]}
phases:
  - id: p1
    title: One
    tasks:
      - id: T1
        title: make a
        acceptance: [{sh: "` + check + `"}]
`
	}
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": plan("test -f never.txt"), "fixed.yaml": plan("test -f a.txt"),
		"agent.sh": "touch a.txt\n"})
	var out bytes.Buffer
	if code := run([]string{"run", "--dir", dir}, &out, &out); code != 2 {
		t.Fatalf("run: exit %d, want 2 (escalated)\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"resume", "--dir", dir, "--plan", filepath.Join(dir, "fixed.yaml")}, &out, &out); code != 0 {
		t.Fatalf("resume --plan: exit %d\n%s", code, out.String())
	}
	out.Reset()
	run([]string{"status", "--dir", dir}, &out, &out)
	if !strings.Contains(out.String(), "T1           done       2 attempts") {
		t.Errorf("status:\n%s", out.String())
	}
}

// TestRunInAGitTree: a run refuses a dirty tree, works on a branch of its
// own and commits each finished task.
func TestRunInAGitTree(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agentScript, ".gitignore": ".harnish/\n"})
	git := func(args ...string) string { return testkit.Git(t, dir, args...) }
	git("init", "-q")
	git("add", "agent.sh", ".gitignore")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "the working tree has uncommitted changes (notes.txt)") {
		t.Fatalf("dirty tree: exit %d\n%s", code, errb.String())
	}
	git("add", "notes.txt")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "notes")
	errb.Reset()
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if b := git("branch", "--show-current"); !strings.HasPrefix(b, "harnish/cli-test-") {
		t.Errorf("branch %q", b)
	}
	if got := git("log", "--format=%s", "-4"); !strings.HasPrefix(got, "chore(harnish): records of run ") ||
		!strings.HasSuffix(got, " (completed)\nfeat(p2): T2 — make b\nfeat(p1): T1 — make a\nnotes") {
		t.Errorf("log:\n%s", got)
	}

	// A run that is over makes room for the next: it is set aside, the
	// experience store stays.
	first, err := loop.ReadState(filepath.Join(dir, loop.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, loop.StateDir, "harnish-assets.jsonl"),
		[]byte(`{"type":"guardrail","slug":"no-force","title":"never force-push","tags":["git"],"date":"2026-01-02"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 0 ||
		!strings.Contains(errb.String(), "run "+first.Run+" (completed) set aside in ") {
		t.Fatalf("a run after a completed one: exit %d\n%s%s", code, errb.String(), out.String())
	}
	aside, err := loop.ReadState(filepath.Join(dir, loop.StateDir, loop.RunsDir, first.Run))
	if err != nil || aside.Run != first.Run || aside.Seq != first.Seq {
		t.Errorf("the run set aside reads as %+v, %v", aside, err)
	}
	second, err := loop.ReadState(filepath.Join(dir, loop.StateDir))
	if err != nil || second.Run == first.Run || second.Outcome != "completed" {
		t.Fatalf("the second run reads as %+v, %v", second, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, loop.StateDir, "harnish-assets.jsonl")); err != nil || !strings.Contains(string(data), "never force-push") {
		t.Errorf("the experience store did not stay: %v\n%s", err, data)
	}
	if got := git("log", "--format=%s", "-1"); got != "chore(harnish): records of run "+second.Run+" (completed)" {
		t.Errorf("the second run's records commit: %q", got)
	}
}

// TestRunNew: a run that could go on is set aside only when asked.
func TestRunNew(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agentScript})
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2 (awaiting approval)\n%s", code, errb.String())
	}
	first, err := loop.ReadState(filepath.Join(dir, loop.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--new") {
		t.Fatalf("a run over one awaiting approval: exit %d, want 1 and a word on --new\n%s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"run", "--dir", dir, "--yes", "--new"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "set aside in") {
		t.Fatalf("run --new: exit %d\n%s", code, errb.String())
	}
	if aside, err := loop.ReadState(filepath.Join(dir, loop.StateDir, loop.RunsDir, first.Run)); err != nil || aside.AwaitingGate != "p1" {
		t.Errorf("the run set aside reads as %+v, %v", aside, err)
	}
}

// TestAgentExecutors: kinds codex and claude run the agent CLIs, whose hooks
// call this binary back with the plan the run keeps.
func TestAgentExecutors(t *testing.T) {
	root := t.TempDir()
	kept := filepath.Join(root, loop.StateDir, "plan.yaml")
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(kept, []byte(testkit.TwoTaskPlan), 0o644)
	self, _ := os.Executable()
	for _, kind := range []string{task.KindCodex, task.KindClaude} {
		plan := &task.Plan{Version: "1", Name: "p", Executor: &task.Component{Kind: kind, Model: "m1", Env: map[string]string{"K": "v"}}}
		cfg, _, err := components(plan, root)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		var got [4]any
		switch ex := cfg.Executor.(type) {
		case *codex.Executor:
			got = [4]any{kind == task.KindCodex, ex.Harnish, ex.PlanFile, ex.Model}
		case *claude.Executor:
			got = [4]any{kind == task.KindClaude, ex.Harnish, ex.PlanFile, ex.Model}
		}
		if want := [4]any{true, self, kept, "m1"}; got != want {
			t.Errorf("%s: executor %+v, want %+v", kind, got, want)
		}
	}
}

// TestRunAfterRecordingExperience: the README's way to teach later runs
// (assets record) does not trip the guardrail that keeps the agent out of
// .harnish/: harnish's own writes there are not the agent's. Before, the
// run stopped with stopped-by-guardrail: edit.protected: .harnish/assets.jsonl.
func TestRunAfterRecordingExperience(t *testing.T) {
	plan := strings.ReplaceAll(testkit.TwoTaskPlan, "title: make a\n", "title: make a\n        tags: [db]\n")
	plan = strings.ReplaceAll(plan, "title: make b\n", "title: make b\n        tags: [db]\n")
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": plan, "agent.sh": agentScript})
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "commit", "-q", "-m", "init")
	var out, errb bytes.Buffer
	if code := run([]string{"assets", "record", "--dir", dir, "--type", "guardrail", "--tags", "db", "--title", "never run migrations by hand"}, &out, &errb); code != 0 {
		t.Fatalf("assets record: exit %d\n%s", code, errb.String())
	}
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
}

// TestRunSideBySide: a phase with parallel runs its tasks side by side in
// forks of their own; one that fails for good leaves its siblings done and
// committed, and status names its working copy, kept for a person.
func TestRunSideBySide(t *testing.T) {
	plan := `version: 1
name: side
budget: {attempts: 2, run_timeout: 10m}
executor: {kind: command, argv: [sh, agent.sh]}
phases:
  - id: p
    parallel: 3
    tasks:
      - {id: T1, title: make a, acceptance: [{run: [test, -f, a.txt]}]}
      - {id: T2, title: make b, acceptance: [{run: [test, -f, b.txt]}]}
      - {id: T3, title: never made, acceptance: [{run: [test, -f, c.txt]}]}
`
	agent := "case $HARNISH_TASK_ID in T1) touch a.txt ;; T2) touch b.txt ;; T3) echo \"attempt $HARNISH_ATTEMPT\" > c-notes.txt ;; esac\n"
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": plan, "agent.sh": agent, ".gitignore": ".harnish/\n"})
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2 (escalated)\n%s%s", code, out.String(), errb.String())
	}
	log := testkit.Git(t, dir, "log", "--format=%s")
	for _, want := range []string{"feat(p): T1 — make a", "feat(p): T2 — make b"} {
		if strings.Count(log, want) != 1 {
			t.Errorf("git log has %q %d times, want once:\n%s", want, strings.Count(log, want), log)
		}
	}
	out.Reset()
	if code := run([]string{"status", "--dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("status: exit %d\n%s", code, errb.String())
	}
	if !strings.Contains(out.String(), "working copy of task T3: ") || strings.Contains(out.String(), "working copy of task T1") {
		t.Errorf("status does not name T3's working copy alone:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "c-notes.txt")); err == nil {
		t.Error("the failed task's change reached the tree")
	}
}

// TestProgressLive: on a terminal, tasks side by side keep one line each
// under the log, rewritten in place; off a terminal the log is plain lines.
func TestProgressLive(t *testing.T) {
	events := []loop.Event{
		{Type: loop.AttemptStarted, Task: "T1", Attempt: 1},
		{Type: loop.AttemptStarted, Task: "T2", Attempt: 1},
		{Type: loop.VerifyPassed, Task: "T1", Attempt: 1},
		{Type: loop.TaskDone, Task: "T1"},
	}
	for _, live := range []bool{false, true} {
		var b bytes.Buffer
		p := &progress{w: &b, live: live}
		for _, e := range events {
			p.Observe(e)
		}
		out := b.String()
		if strings.Count(out, "T1 attempt 1") == 0 || strings.Count(out, "T1 done") != 1 {
			t.Errorf("live %v: the log lacks its lines:\n%q", live, out)
		}
		block := strings.Contains(out, "▸ T1           attempt 1: checks pass, joining the branch\n  ▸ T2           attempt 1: the agent works\n  2 running · spent so far: 0 tokens, $0.00\n")
		erased := strings.Count(out, "\x1b[3A\x1b[J")
		if live != block || live != (erased == 2) || !live && strings.Contains(out, "\x1b[") {
			t.Errorf("live %v: block %v, erased %d times:\n%q", live, block, erased, out)
		}
		if live && strings.HasSuffix(out, "\n  ▸ T2           attempt 1: the agent works\n") {
			t.Errorf("one task left running is drawn as a block:\n%q", out)
		}
	}
}

// TestStop: harnish stop, from another shell, stops the run going on: it
// ends cancelled saying who stopped it, leaves no process behind, and
// resume finishes it.
func TestStop(t *testing.T) {
	bin := harnishBinary(t)
	ctl := t.TempDir()
	agent := `if rm "$CTL/hang" 2>/dev/null; then touch "$CTL/hanging"; sleep 30; fi
case "$HARNISH_TASK_ID" in T1) touch a.txt ;; T2) touch b.txt ;; esac
`
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agent})
	if err := os.WriteFile(filepath.Join(ctl, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"stop", "--dir", dir}, &out, &out); code != 1 || !strings.Contains(out.String(), "no run is going on") {
		t.Fatalf("stop with no run: exit %d, %s", code, out.String())
	}
	cmd := exec.Command(bin, "run", "--dir", dir, "--yes")
	cmd.Env = append(os.Environ(), "CTL="+ctl)
	var runOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &runOut, &runOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(ctl, "hanging")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the agent never hung:\n%s", runOut.String())
		}
	}
	out.Reset()
	if code := run([]string{"stop", "--dir", dir, "--wait", "20s"}, &out, &out); code != 0 {
		t.Fatalf("stop: exit %d\n%s", code, out.String())
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("the stopped run: %v, want exit 130\n%s", err, runOut.String())
	}
	st, err := loop.ReadState(filepath.Join(dir, loop.StateDir))
	if err != nil || st.Outcome != "cancelled" || !strings.Contains(st.Reason, "stopped by harnish stop") {
		t.Fatalf("state after stop: %v, %+v", err, st)
	}
	out.Reset()
	if code := run([]string{"resume", "--dir", dir, "--yes"}, &out, &out); code != 0 {
		t.Fatalf("resume after stop: exit %d\n%s", code, out.String())
	}
}
