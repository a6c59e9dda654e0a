package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/testkit"
)

const contradictedPlan = `version: 1
name: pf
budget: {cost_usd: 5}
executor: {kind: command, argv: [sh, agent.sh]}
phases:
  - id: p1
    title: One
    tasks:
      - id: T1
        title: retry lookups
        objective: Modify internal/cache/client.go so lookups retry.
        files: [internal/cache/client.go]
        acceptance: [{sh: "test -f a.txt"}]
`

func TestPreflightCommand(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": contradictedPlan, "agent.sh": "touch ran.txt\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"preflight", "--dir", dir}, &out, &errb); code != 2 {
		t.Fatalf("preflight: exit %d\n%s%s", code, out.String(), errb.String())
	}
	want := "Expected: internal/cache/client.go exists (task T1: \"Modify internal/cache/client.go\")\nFound: no such file\nHow should I proceed?\n"
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "tool sh: ") {
		t.Errorf("preflight output:\n%s", out.String())
	}

	// run asks the same before the agent improvises.
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "harnish run: preflight: Expected: internal/cache/client.go exists") ||
		!strings.Contains(errb.String(), "not started") {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Error("the agent ran")
	}

	// Once the tree bears the plan out, preflight is ready.
	os.MkdirAll(filepath.Join(dir, "internal", "cache"), 0o755)
	os.WriteFile(filepath.Join(dir, "internal", "cache", "client.go"), []byte("package cache\n"), 0o644)
	out.Reset()
	if code := run([]string{"preflight", "--dir", dir}, &out, &errb); code != 0 || !strings.Contains(out.String(), "ready: 1 phase, 1 task\n") {
		t.Errorf("preflight: exit %d\n%s", code, out.String())
	}
}

// resume asks preflight too, about the tasks the run has not done: here a
// changed plan's next task runs a program the machine does not have.
func TestResumePreflight(t *testing.T) {
	plan := `version: 1
name: rp
budget: {cost_usd: 5}
executor: {kind: command, argv: [sh, agent.sh]}
phases:
  - id: p1
    title: One
    tasks:
      - {id: T1, title: one, acceptance: [{sh: "test -f one.txt"}]}
  - id: p2
    title: Two
    tasks:
      - {id: T2, title: two, acceptance: [{sh: "test -f two.txt"}]}
`
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": plan,
		"agent.sh": "case \"$HARNISH_TASK_ID\" in T1) touch one.txt ;; T2) touch two.txt ;; esac\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2 (the milestone)\n%s%s", code, out.String(), errb.String())
	}
	changed := filepath.Join(t.TempDir(), "changed.yaml")
	os.WriteFile(changed, []byte(strings.Replace(plan, `sh: "test -f two.txt"`, `run: [harnish-no-such-tool, two.txt]`, 1)), 0o644)
	errb.Reset()
	if code := run([]string{"resume", "--dir", dir, "--approve", "--plan", changed}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "harnish resume: preflight: tool: harnish-no-such-tool is not on PATH") ||
		!strings.Contains(errb.String(), "not resumed") {
		t.Fatalf("resume with a check whose program is missing: exit %d\n%s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "two.txt")); err == nil {
		t.Error("the agent ran")
	}
	errb.Reset()
	if code := run([]string{"resume", "--dir", dir, "--approve"}, &out, &errb); code != 0 {
		t.Fatalf("resume with the plan as it was: exit %d\n%s", code, errb.String())
	}
}
