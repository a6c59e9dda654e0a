package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if want := "Seeding complete: 1 phase, 1 task (" + filepath.Join(dir, "harnish.yaml") + ")\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if !strings.Contains(errb.String(), "drafted in 2 rounds") {
		t.Errorf("stderr: %s", errb.String())
	}
	if p, err := task.Load(filepath.Join(dir, "harnish.yaml")); err != nil || p.Tasks()[0].Task.Acceptance[0].Kind() != "run" {
		t.Errorf("the written plan: %v", err)
	}

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
