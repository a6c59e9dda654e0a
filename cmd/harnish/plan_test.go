package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/executor/claude/claudetest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/task"
)

const planPRD = "# PRD: cache\n\ntags: [cache]\n\n## 6. Tests\n- go test ./internal/cache/... passes\n"

// planAgent drafts a plan whose only check is manual, then, told so, one
// whose check runs.
const planAgent = `prompt=$(cat)
case "$prompt" in *'never cache errors'*) ;; *) echo "no guardrail asset in the prompt" >&2; exit 1 ;; esac
case "$HARNISH_ATTEMPT" in
1) check='manual: looks right' ;;
*) case "$prompt" in *'has no check that runs'*) check='run: [go, test, ./internal/cache/...]' ;; *) exit 1 ;; esac ;;
esac
printf 'version: 1\nname: cache\nphases:\n  - id: data\n    title: Data\n    tasks:\n      - id: T1\n        title: Entry\n        acceptance:\n          - %s\n' "$check" > harnish-plan.draft.yaml
`

func TestPlanCommand(t *testing.T) {
	defer func(f func() bool) { askTerminal = f }(askTerminal)
	askTerminal = func() bool { return false }
	dir := testkit.WriteTree(t, map[string]string{"docs/prd-cache.md": planPRD, "agent.sh": planAgent})
	var out, errb bytes.Buffer
	if code := run([]string{"assets", "record", "--dir", dir, "--type", "guardrail", "--tags", "cache", "--title", "never cache errors"}, &out, &errb); code != 0 {
		t.Fatalf("assets record: %d %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	args := []string{"plan", "--dir", dir, "--prd", "docs/prd-cache.md", "--executor", "sh agent.sh"}

	// No --yes and no terminal: the plan waits for review.
	if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "awaiting approval: the plan is in "+filepath.Join(dir, "harnish.yaml.review")) {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if _, err := task.Load(filepath.Join(dir, "harnish.yaml.review")); err != nil {
		t.Errorf("the plan left for review does not load: %v", err)
	}

	out.Reset()
	errb.Reset()
	if code := run(append(args, "--yes"), &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	checkDrafted(t, dir, out.String(), errb.String())

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--dir", dir}, "harnish plan: no PRD: give --prd docs/prd-NAME.md"},
		{[]string{"plan", "--dir", dir, "--prd", "docs/prd-none.md", "--executor", "sh agent.sh"}, "harnish plan: seed: no PRD: docs/prd-none.md does not exist"},
		{append(args, "--rounds", "1"), "harnish plan: after 1 drafts the plan still has problems:\n  harnish-plan.draft.yaml: phases[0].tasks[0].acceptance: task \"T1\" has no check that runs"},
	} {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != 1 || !strings.HasPrefix(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to start with %q", tt.args, code, errb.String(), tt.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "harnish-plan.draft.yaml")); err == nil {
		t.Error("a draft was left behind")
	}
}

// TestPlanCommandWithClaude is harnish plan end to end with the real Claude
// Code CLI against the scripted Anthropic server: the built harnish drives
// Claude Code (whose hooks call that harnish), the first draft is refused,
// its problems and the PRD's guardrail reach the model, and the second
// draft, approved with --yes, is the plan written.
func TestPlanCommandWithClaude(t *testing.T) {
	if _, err := exec.LookPath("claude"); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("the claude CLI is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", err)
		}
		t.Skip("the claude CLI is not on PATH (npm install @anthropic-ai/claude-code); set HARNISH_REQUIRE_AGENTS=1 to fail instead")
	}
	bin := harnishBinary(t)
	dir := testkit.GitTree(t)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "prd-cache.md"), []byte(planPRD), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"assets", "record", "--dir", dir, "--type", "guardrail", "--tags", "cache", "--title", "never cache errors"}, &out, &errb); code != 0 {
		t.Fatalf("assets record: %d %s", code, errb.String())
	}
	const manual = "version: 1\nname: cache\nphases:\n  - id: data\n    title: Data\n    tasks:\n      - id: T1\n        title: Entry\n        acceptance:\n          - manual: looks right\n"
	runs := strings.Replace(manual, "manual: looks right", "run: [go, test, ./internal/cache/...]", 1)
	draft := filepath.Join(dir, "harnish-plan.draft.yaml")
	has := func(wants ...string) func(*claudetest.Request) error {
		return func(r *claudetest.Request) error {
			for _, w := range wants {
				if !strings.Contains(r.Prompt(), w) {
					return fmt.Errorf("the prompt lacks %q", w)
				}
			}
			return nil
		}
	}
	srv := claudetest.NewServer(t,
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write(draft, manual)}, Expect: has("never cache errors", "## The PRD (docs/prd-cache.md)")},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Wrote the plan.")}},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write(draft, runs)}, Expect: has("Your previous draft was refused", "has no check that runs")},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Fixed it.")}},
	)
	cmd := exec.Command(bin, "plan", "--dir", dir, "--prd", "docs/prd-cache.md", "--executor", "claude", "--model", "claude-test-model", "--yes")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	for k, v := range srv.Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out.Reset()
	errb.Reset()
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("harnish plan: %v\n%s%s\nserver calls: %v", err, out.String(), errb.String(), srv.Calls())
	}
	checkDrafted(t, dir, out.String(), errb.String())
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted turns were not asked for; calls: %v", n, srv.Calls())
	}
}

// checkDrafted checks what harnish plan --prd said and wrote in dir after
// a draft its agent made in two rounds: one phase, one task with a run check.
func checkDrafted(t *testing.T, dir, stdout, stderr string) {
	t.Helper()
	if want := "Seeding complete: 1 phase, 1 task (" + filepath.Join(dir, "harnish.yaml") + ")\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	if !strings.Contains(stderr, "drafted in 2 rounds") {
		t.Errorf("stderr: %s", stderr)
	}
	if p, err := task.Load(filepath.Join(dir, "harnish.yaml")); err != nil || p.Tasks()[0].Task.Acceptance[0].Kind() != "run" {
		t.Errorf("the written plan: %v", err)
	}
}
