package preflight_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/preflight"
	"github.com/harnish/harnish/task"
)

func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	return dir
}

func TestRun(t *testing.T) {
	dir := tree(t, map[string]string{"internal/cache/cache.go": "package cache\n", "go.mod": "module x\n"})
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "a", Title: "A", Tasks: []task.Task{
		{ID: "T1", Title: "Retry", Objective: "Modify internal/cache/client.go so lookups retry.",
			Files: []string{"internal/cache/client.go"}, Acceptance: []task.Check{{Run: []string{"go", "test", "./internal/cache/..."}}}},
		{ID: "T2", Title: "Docs", Acceptance: []task.Check{{Manual: "reads well"}}},
		{ID: "T3", Title: "Lint", Files: []string{"internal/cache/cache.go", "intrnal/cache/lint.go"},
			Acceptance: []task.Check{{Sh: "cd internal && FOO=1 harnish-no-such-tool --check && test -f x"}}},
		{ID: "T4", Title: "Old", Status: task.StatusDone, Acceptance: []task.Check{{Manual: "was fine"}}},
	}}}}
	plan.Context = []string{"internal/*/*.go", "AGENTS.md"}
	r, err := preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []preflight.Finding{
		{Kind: "input", Task: "T1", Blocking: true,
			Expected: `internal/cache/client.go exists (task T1: "Modify internal/cache/client.go")`, Found: "no such file"},
		{Kind: "checks", Task: "T2", Blocking: true, Message: "no check that runs: nothing would tell it is done"},
		{Kind: "input", Task: "T3", Blocking: true, Expected: "intrnal/ exists, beside the task's other files", Found: "no intrnal/ in the tree (scope: intrnal/cache/lint.go); internal/ is there"},
		{Kind: "input", Message: `context "AGENTS.md" names no file in the working tree: the prompts go without it`},
		{Kind: "tree", Message: "uncommitted changes (notes.txt): commit or stash them"},
		{Kind: "budget", Message: "no cap on the run's tokens, cost or time: set budget.tokens, budget.cost_usd or budget.run_timeout"},
		{Kind: "tool", Blocking: true, Message: "harnish-no-such-tool is not on PATH; the checks run it"},
	}
	if diff := cmp.Diff(want, r.Findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if !r.Blocking() {
		t.Error("not blocking")
	}
	names := map[string]preflight.Tool{}
	for _, tool := range r.Tools {
		names[tool.Name] = tool
	}
	if g := names["go"]; g.Path == "" || !strings.HasPrefix(g.Version, "go version go1.") {
		t.Errorf("go: %+v", g)
	}
	if diff := cmp.Diff([]string{"go", "sh", "harnish-no-such-tool"}, toolNames(r.Tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := r.Findings[0].String(); got != "Expected: internal/cache/client.go exists (task T1: \"Modify internal/cache/client.go\")\nFound: no such file\nHow should I proceed?" {
		t.Errorf("String() = %q", got)
	}

	// A clean tree, capped, every check runnable: nothing to say.
	os.Remove(filepath.Join(dir, "notes.txt"))
	plan.Budget.CostUSD = 5
	plan.Context = plan.Context[:1]
	plan.Phases[0].Tasks = plan.Phases[0].Tasks[3:]
	plan.Phases[0].Tasks = append(plan.Phases[0].Tasks, task.Task{ID: "T5", Title: "t", Objective: "Update internal/cache/cache.go",
		Acceptance: []task.Check{{GoTest: &task.GoTestCheck{}}}})
	r, err = preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir, DirtyBlocks: true, BudgetBlocks: true})
	if err != nil || len(r.Findings) != 0 || r.Blocking() {
		t.Errorf("findings %+v, %v", r.Findings, err)
	}
	_ = cmpopts.EquateEmpty()
}

func toolNames(ts []preflight.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// TestContradictions holds the contradiction rules both ways: a task that
// names a path the tree lacks, where the evidence says it should be there,
// stops; a plan that creates files, in any of the languages its authors
// write, does not.
func TestContradictions(t *testing.T) {
	dir := tree(t, map[string]string{
		"go.mod":                    "module x\n",
		"pkg/cache/client.go":       "package cache\n",
		"pkg/cache/store.go":        "package cache\n",
		"internal/api/server.go":    "package api\n",
		"internal/handlers/user.go": "package handlers\n",
		"cmd/harnish/main.go":       "package main\n",
		"api/v1/routes.go":          "package v1\n",
		"web/src/app.tsx":           "export {}\n",
		"docs/README.md":            "# docs\n",
	})
	moved := "no such file; client.go is at pkg/cache/client.go"
	for _, tt := range []struct {
		name      string
		title     string
		objective string
		files     []string
		found     string // the Found of the one finding; "" for none
	}{
		// Stops.
		{name: "moved, scope only", title: "Retry lookups", files: []string{"internal/cache/client.go"}, found: moved},
		{name: "moved, English", title: "Retry", objective: "Modify internal/cache/client.go so lookups retry.", found: moved},
		{name: "moved, Japanese", title: "リトライ", objective: "`internal/cache/client.go` のリトライ処理を修正する。", found: moved},
		{name: "moved, Korean", title: "재시도", objective: "internal/cache/client.go 파일의 재시도 로직을 수정합니다.", found: moved},
		{name: "moved, Chinese", title: "重试", objective: "修改 internal/cache/client.go 中的重试逻辑。", found: moved},
		{name: "modify, nowhere", title: "Race", objective: "Fix the race in internal/worker/pool.go.", found: "no such file"},
		{name: "modify, Japanese, nowhere", title: "認証", objective: "`src/lib/auth.ts` を修正してトークンを更新する", found: "no such file"},
		{name: "modify by base name, nowhere", title: "Pool", objective: "Fix the race in `pool.go`.", found: "no such file"},
		{name: "typo in a directory", title: "Users", files: []string{"internal/api/server.go", "internal/handler/user.go"},
			found: "no internal/handler/ in the tree (scope: internal/handler/user.go); internal/handlers/ is there"},

		// Passes.
		{name: "create, English", title: "Metrics", objective: "Create internal/metrics/metrics.go with a registry.", files: []string{"internal/metrics/metrics.go"}},
		{name: "new package beside old ones", title: "Collector", files: []string{"internal/api/server.go", "internal/metrics/collector.go"}},
		{name: "create, Japanese", title: "メトリクス", objective: "`internal/metrics/metrics.go` を新規作成する", files: []string{"internal/metrics/metrics.go"}},
		{name: "create, Korean", title: "메트릭", objective: "internal/metrics/metrics.go 파일을 새로 생성합니다", files: []string{"internal/metrics/metrics.go"}},
		{name: "add a test file, Japanese", title: "テスト", objective: "`pkg/cache/client_test.go` にテストを追加", files: []string{"pkg/cache/client_test.go"}},
		{name: "modify one, add another, Korean", title: "TTL", objective: "pkg/cache/store.go 수정 및 pkg/cache/ttl.go 추가", files: []string{"pkg/cache/store.go", "pkg/cache/ttl.go"}},
		{name: "a new command's main.go", title: "A CLI", objective: "A command that prints the version.", files: []string{"cmd/newtool/main.go"}},
		{name: "a new API version", title: "v2 routes", objective: "Add the v2 routes.", files: []string{"api/v1/routes.go", "api/v2/routes.go"}},
		{name: "a method, not a file", title: "Errors", objective: "Fix config.Load so it returns errors."},
		{name: "a URL", title: "Docs", objective: "Update the guide per https://example.com/docs/guide.md and docs/README.md."},
		{name: "an existing file", title: "Retry", objective: "Update pkg/cache/client.go so lookups retry."},
		{name: "a move's destination", title: "Move", objective: "Move pkg/cache/client.go to internal/cache/client.go."},
		{name: "a move's destination, Japanese", title: "移動", objective: "`pkg/cache/store.go` を `internal/cache/store.go` に移動する"},
		{name: "a prohibition", title: "Tune", objective: "Do not modify internal/cache/client.go; tune pkg/cache/store.go."},
		{name: "a prohibition, Korean", title: "학습", objective: "runs/ 산출물 기록. 변경 금지 — `internal/cache/client.go`, `git_rev.txt`"},
		{name: "a prohibition, Japanese", title: "調整", objective: "`internal/cache/client.go` は変更しない"},
		{name: "a status list, not a path", title: "Index", objective: "step status 를 업데이트한다 (completed/error/blocked)"},
		{name: "modify by base name, elsewhere", title: "Retry", objective: "client.go 의 재시도 로직을 수정한다"},
		{name: "scope from a sub-project's root", title: "Docs", objective: "Update README.md with the new flags.", files: []string{"README.md", "src/app.tsx"}},
		{name: "product names", title: "Upgrade", objective: "Upgrade next.js and update transformers.js v4 runtime; 更新 three.js"},
		{name: "a label over the files, Japanese", title: "棚卸し", objective: "変更予定: `internal/inventory/panel.tsx`, `pkg/cache/store.go`"},
		{name: "a label over the files, English", title: "Inventory", objective: "Changes: `internal/inventory/panel.tsx`"},
		{name: "a verb far from the path", title: "告知", objective: "README.md (default 変更アナウンス + setup 所要時間・DL 期待値)、ガイド一式の見直しと docs/environment/variables.md (default 値記述の実態同期)"},
		{name: "an HTTP method", title: "API", objective: "`reservation/ReservationController.java` — DELETE /reservations/{id}, PATCH /seats"},
		{name: "write a doc", title: "Guide", objective: "Write docs/guide/setup.md for new users."},
		{name: "a frontend file, new", title: "Page", files: []string{"web/src/app.tsx", "web/src/pages/settings.tsx"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := &task.Plan{Version: "1", Name: "p", Budget: task.Budget{CostUSD: 1}, Phases: []task.Phase{{ID: "a", Title: "A", Tasks: []task.Task{
				{ID: "T1", Title: tt.title, Objective: tt.objective, Files: tt.files, Acceptance: []task.Check{{Sh: "true"}}},
			}}}}
			r, err := preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, f := range r.Findings {
				if f.Kind == "input" {
					found = append(found, f.Found)
					if !f.Blocking || !strings.HasSuffix(f.String(), "\nHow should I proceed?") {
						t.Errorf("finding %+v does not stop the run with a question", f)
					}
				}
			}
			var want []string
			if tt.found != "" {
				want = []string{tt.found}
			}
			if diff := cmp.Diff(want, found); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall: %+v", diff, r.Findings)
			}
		})
	}
}

// TestContradictionsAcrossTasks: a file an earlier task still to do
// creates may be changed by a later one; changed before it is created, it
// is a contradiction.
func TestContradictionsAcrossTasks(t *testing.T) {
	dir := tree(t, map[string]string{"go.mod": "module x\n"})
	create := task.Task{ID: "T1", Title: "Stats", Files: []string{"lib/stats.ts"}, Acceptance: []task.Check{{Sh: "true"}}}
	update := task.Task{ID: "T2", Title: "Shape", Objective: "`lib/stats.ts` の Stats 型を修正する", Acceptance: []task.Check{{Sh: "true"}}}
	for _, tt := range []struct {
		name  string
		tasks []task.Task
		stops bool
	}{
		{"created first", []task.Task{create, update}, false},
		{"changed first", []task.Task{update, create}, true},
	} {
		plan := &task.Plan{Version: "1", Name: "p", Budget: task.Budget{CostUSD: 1}, Phases: []task.Phase{{ID: "a", Title: "A", Tasks: tt.tasks}}}
		r, err := preflight.Run(context.Background(), preflight.Config{Plan: plan, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Blocking(); got != tt.stops {
			t.Errorf("%s: stops %v, want %v: %+v", tt.name, got, tt.stops, r.Findings)
		}
	}
}
