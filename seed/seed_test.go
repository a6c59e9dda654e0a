package seed_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/seed"
	"github.com/harnish/harnish/task"
)

const prd = `# PRD: cache

## 4. Implementation
A read-through cache for product lookups.

## 6. Tests
- go test ./internal/cache/... passes
`

// badDraft has an unknown field and a task whose criteria do not run.
const badDraft = `version: 1
name: cache
phases:
  - id: data
    title: Data
    tasks:
      - id: T1
        title: Entry type
        owner: me
        acceptance:
          - manual: looks right
`

const goodDraft = `version: 1
name: cache
phases:
  - id: data
    title: Data
    tasks:
      - id: T1
        title: Entry type
        files: [internal/cache/entry.go]
        acceptance:
          - run: [go, test, ./internal/cache/...]
`

// agent.sh is the scripted agent: a first draft with problems, then, when
// the prompt feeds them back, a valid one.
const agentScript = `prompt=$(cat)
case "$HARNISH_ATTEMPT" in
1) printf '%s' "$BAD" > harnish-plan.draft.yaml ;;
*) case "$prompt" in
   *'owner: unknown field'*'has no check that runs'*) printf '%s' "$GOOD" > harnish-plan.draft.yaml ;;
   *) echo "the problems were not fed back" >&2; exit 1 ;;
   esac ;;
esac
`

func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"docs/prd-cache.md": prd, "agent.sh": agentScript, "go.mod": "module x\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDraftWithAScriptedAgent: a PRD in, a valid plan out after one round
// of fed-back problems, with a real process as the agent.
func TestDraftWithAScriptedAgent(t *testing.T) {
	dir := repo(t)
	ex := &executor.Command{Argv: []string{"sh", "agent.sh"}, Env: map[string]string{"BAD": badDraft, "GOOD": goodDraft}}
	res, err := seed.Draft(context.Background(), seed.Config{Executor: ex, Dir: dir}, seed.Request{PRD: "docs/prd-cache.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 2 || len(res.Feedback) != 1 {
		t.Errorf("rounds %d, feedback %q; want 2 rounds, one refused", res.Rounds, res.Feedback)
	}
	want := []string{
		`harnish-plan.draft.yaml:9:9: phases[0].tasks[0].owner: unknown field (valid fields: acceptance, budget, depends_on, files, id, objective, risk, status, tags, title)`,
		`harnish-plan.draft.yaml: phases[0].tasks[0].acceptance: task "T1" has no check that runs (run, sh, gotest or cmake); take its criteria from the PRD's test section`,
	}
	if len(res.Feedback) == 1 {
		for _, w := range want {
			if !strings.Contains(strings.Join(res.Feedback[0], "\n"), w[strings.Index(w, ": ")+2:]) {
				t.Errorf("feedback lacks %q:\n%s", w, strings.Join(res.Feedback[0], "\n"))
			}
		}
	}
	if got := len(res.Plan.Tasks()); got != 1 || string(res.YAML) != goodDraft {
		t.Errorf("plan with %d tasks, YAML:\n%s", got, res.YAML)
	}
	if _, err := os.Stat(filepath.Join(dir, seed.DraftFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the draft file was left behind: %v", err)
	}
}

func TestDraftStops(t *testing.T) {
	dir := repo(t)
	var prompts []string
	bad := executor.Func(func(_ context.Context, req *executor.Request) (*executor.Result, error) {
		prompts = append(prompts, req.Prompt)
		return &executor.Result{Status: executor.StatusDone, Summary: "Here it is:\n```yaml\n" + badDraft + "```\n"}, nil
	})
	_, err := seed.Draft(context.Background(), seed.Config{Executor: bad, Dir: dir, Rounds: 2}, seed.Request{PRD: "docs/prd-cache.md"})
	var inv *seed.InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, seed.ErrInvalid) || inv.Rounds != 2 || len(inv.Problems) != 2 {
		t.Fatalf("got %v, want an InvalidError after 2 rounds with the 2 problems", err)
	}
	if len(prompts) != 2 || !strings.Contains(prompts[1], "Your previous draft was refused") || !strings.Contains(prompts[1], "owner: me") {
		t.Errorf("the second prompt does not carry the problems and the draft")
	}
	for _, p := range []string{"## The PRD (docs/prd-cache.md)", "read-through cache", "- docs/prd-cache.md", "data, then business logic, then UI, then integration tests"} {
		if !strings.Contains(prompts[0], p) {
			t.Errorf("the prompt lacks %q", p)
		}
	}

	for _, tt := range []struct{ prd, want string }{
		{"", "seed: no PRD: give the PRD's file"},
		{"docs/prd-none.md", "seed: no PRD: docs/prd-none.md does not exist; write the PRD first"},
	} {
		_, err := seed.Draft(context.Background(), seed.Config{Executor: bad, Dir: dir}, seed.Request{PRD: tt.prd})
		if !errors.Is(err, seed.ErrNoPRD) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("PRD %q: got %v, want %q", tt.prd, err, tt.want)
		}
	}
}

func TestCheck(t *testing.T) {
	plan, problems := seed.Check("p.yaml", []byte(goodDraft))
	if len(problems) > 0 || plan == nil {
		t.Fatalf("problems %q", problems)
	}
	_, problems = seed.Check("p.yaml", []byte(strings.Replace(goodDraft, "        acceptance:\n          - run: [go, test, ./internal/cache/...]\n", "", 1)))
	want := []string{
		`p.yaml:7:9: warning: phases[0].tasks[0].acceptance: task "T1" has no acceptance criteria; the loop will escalate it instead of starting it`,
		`p.yaml: phases[0].tasks[0].acceptance: task "T1" has no check that runs (run, sh, gotest or cmake); take its criteria from the PRD's test section`,
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	_ = task.StatusDone
}
