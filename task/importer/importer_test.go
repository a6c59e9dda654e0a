package importer_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

var ignorePlan = cmpopts.IgnoreUnexported(task.Plan{})

func run(argv ...string) task.Check { return task.Check{Run: argv} }
func sh(s string) task.Check        { return task.Check{Sh: s} }
func manual(s string) task.Check    { return task.Check{Manual: s} }

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

func wantProgress() *task.Plan {
	return &task.Plan{
		Version: "1",
		Name:    "redis-cache",
		Phases: []task.Phase{
			{ID: "phase-1", Title: "Cache client", Tasks: []task.Task{{
				ID:        "phase-1-archived",
				Title:     "Cache client (archived)",
				Objective: "tasks:3 | files:internal/cache/client.go,internal/cache/client_test.go\nArchive: harnish-progress-archive.jsonl#phase=1",
				Status:    task.StatusDone,
			}}},
			{ID: "phase-2", Title: "Read-through caching", Tasks: []task.Task{
				{
					ID:         "2-1",
					Title:      "Cache product lookups",
					Objective:  "GetProduct reads through Redis with a 5m TTL",
					Files:      []string{"internal/product/repo.go", "internal/product/repo_test.go"},
					Acceptance: []task.Check{run("go", "test", "./internal/product/...")},
					Status:     task.StatusDone,
				},
				{
					ID:    "2-2",
					Title: "Invalidate on product update",
					Objective: "Delete the cache key in the same transaction hook as the update\nScope: internal/product/ only\nReference: PRD §4.2\n" +
						"Current: Writing the invalidation test\nLast action: Added DeleteProduct hook\nNext action: Run the repo tests with -race",
					Status: task.StatusDoing,
				},
				{ID: "2-3", Title: "Cache category listings", DependsOn: []string{"2-1"}, Status: task.StatusTodo},
			}},
			{ID: "phase-3", Title: "Observability", Tasks: []task.Task{
				{
					ID:    "3-1",
					Title: "Export hit/miss counters",
					Acceptance: []task.Check{
						run("go", "test", "-run", "TestMetrics", "./internal/cache/"),
						manual("Grafana panel shows hit ratio"),
					},
					Status: task.StatusTodo,
				},
				// "1-2" was archived with phase 1, so it is done and dropped.
				{ID: "3-2", Title: "Alert on cache error rate", DependsOn: []string{"3-1"}, Status: task.StatusTodo},
			}},
		},
	}
}

func wantStepTree(t *testing.T) *task.Plan {
	return &task.Plan{
		Version: "1",
		Name:    "Todo-Board",
		Phases: []task.Phase{
			{ID: "0-setup", Title: "0-setup", Tasks: []task.Task{
				{
					ID:        "0-setup-step0",
					Title:     "project-setup",
					Objective: readTestdata(t, "steptree/phases/0-setup/step0.md") + "\nSummary: Next.js app with TypeScript, ESLint and Vitest; npm scripts lint/build/test",
					Acceptance: []task.Check{
						run("npm", "run", "lint"),
						run("npm", "run", "build"),
						run("npm", "test", "--", "--run"),
					},
					Status: task.StatusDone,
				},
				{
					ID:        "0-setup-step1",
					Title:     "db-schema",
					Objective: "Summary: SQLite schema for boards and cards via Drizzle, migration 0001",
					Status:    task.StatusDone,
				},
			}},
			{ID: "1-api", Title: "1-api", Tasks: []task.Task{
				{ID: "1-api-step0", Title: "cards-crud", Objective: "Summary: REST routes /api/cards with zod validation", Status: task.StatusDone},
				{
					ID:        "1-api-step1",
					Title:     "board-sharing",
					Objective: readTestdata(t, "steptree/phases/1-api/step1.md") + "\nLast error: [3회 시도 후 실패] share token test times out",
					Acceptance: []task.Check{
						run("npm", "test", "--", "--run", "src/api/share.test.ts"),
						sh(`test -f src/api/share.ts && grep -q "readOnly" src/api/share.ts`),
						manual("A shared link opens the board without login"),
					},
					Status: task.StatusDoing,
				},
				{ID: "1-api-step2", Title: "rate-limit", Status: task.StatusTodo},
			}},
			{ID: "2-ui", Title: "2-ui", Tasks: []task.Task{
				{ID: "2-ui-step0", Title: "board-view", Status: task.StatusDoing}, // started, cut off
				{ID: "2-ui-step1", Title: "drag-and-drop", Objective: "Blocked: needs a licence key for the DnD kit", Status: task.StatusDoing},
			}},
		},
	}
}

func wantPlansMD() *task.Plan {
	return &task.Plan{
		Version: "1",
		Name:    "invoice-export",
		Phases: []task.Phase{
			{ID: "phase-1", Title: "Phase 1: CSV export [P1]", Tasks: []task.Task{
				{
					ID:         "1.1",
					Title:      "Add `ExportCSV` to the invoice service",
					Acceptance: []task.Check{run("go", "test", "./internal/invoice/..."), manual("header row matches the spec")},
					Status:     task.StatusDone,
				},
				{
					ID:         "1.2",
					Title:      "HTTP handler `GET /invoices.csv` with `Content-Disposition`",
					DependsOn:  []string{"1.1"},
					Acceptance: []task.Check{run("go", "test", "./internal/http/...")},
					Status:     task.StatusDone,
				},
			}},
			{ID: "phase-2", Title: "Phase 2: Scheduled exports [P2]", Tasks: []task.Task{
				{
					ID:         "2.1",
					Title:      "Nightly export job writes to the S3 bucket configured in `EXPORT_BUCKET`",
					DependsOn:  []string{"1.2"}, // 0.9 is archived
					Acceptance: []task.Check{manual("job_test covers retries"), run("make", "e2e-export")},
					Status:     task.StatusDoing,
				},
				{
					ID:         "2.2",
					Title:      "Email a signed link when the export is ready",
					DependsOn:  []string{"2.1"},
					Acceptance: []task.Check{manual("link expires after 24h")},
					Status:     task.StatusTodo,
				},
			}},
			{ID: "phase-3", Title: "Phase 3: Polish", Tasks: []task.Task{
				{
					ID:         "T301",
					Title:      "Localise column headers",
					Objective:  "ja and en first",
					DependsOn:  []string{"1.1"},
					Acceptance: []task.Check{run("go", "test", "./internal/i18n/...")},
					Status:     task.StatusTodo,
				},
				{ID: "T302", Title: "Excel (xlsx) export — waiting for licence review", Status: task.StatusTodo},
				{ID: "phase-3-3", Title: "Write the user guide", Status: task.StatusDone},
			}},
		},
	}
}

func TestSamples(t *testing.T) {
	tests := []struct {
		name  string
		parse func() (*task.Plan, error)
		want  func(t *testing.T) *task.Plan
	}{
		{"ProgressFile", func() (*task.Plan, error) {
			const name = "testdata/progress/harnish-current-work.json"
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			return importer.ProgressFile(name, data)
		}, func(*testing.T) *task.Plan { return wantProgress() }},
		{"StepTree", func() (*task.Plan, error) {
			return importer.StepTree(os.DirFS("testdata/steptree"))
		}, wantStepTree},
		{"PlansMD", func() (*task.Plan, error) {
			const name = "testdata/plansmd/Plans.md"
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			return importer.PlansMD(name, data)
		}, func(*testing.T) *task.Plan { return wantPlansMD() }},
		{"Dir/progress", func() (*task.Plan, error) { return importer.Dir("testdata/progress") },
			func(*testing.T) *task.Plan { return wantProgress() }},
		{"Dir/steptree", func() (*task.Plan, error) { return importer.Dir("testdata/steptree") }, wantStepTree},
		{"Dir/plansmd", func() (*task.Plan, error) { return importer.Dir("testdata/plansmd") },
			func(*testing.T) *task.Plan { return wantPlansMD() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want(t), got, ignorePlan); diff != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", diff)
			}
			if err := got.Validate().Err(); err != nil {
				t.Errorf("plan does not validate: %v", err)
			}
		})
	}
}

const okProgress = `{"metadata":{"prd":"docs/prd-x.md"},"done":{"phases":[]},"doing":{"task":null},"todo":{"phases":[%s]}}`

func progress(todo string) string { return strings.Replace(okProgress, "%s", todo, 1) }

func TestProgressFileErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty", ``, `importer: w.json: empty file`},
		{"syntax", "{\n  \"metadata\": {},\n  \"done\" {}\n}", `importer: w.json:3:10: done: invalid character '{' after object key`},
		{"truncated", `{"metadata": {`, `importer: w.json:1:15: metadata: unexpected end of JSON input`},
		{"trailing", `{} {}`, `importer: w.json:1:4: unexpected data after the JSON value`},
		{"not an object", `[1]`, `importer: w.json:1:1: expected an object, got a list`},
		{"not a progress file", `{"metadata":{}}`, `importer: w.json:1:1: neither done, doing and todo nor phases: not a progress file`},
		{"duplicate key", `{"metadata":{},"metadata":{}}`, `importer: w.json:1:16: metadata: duplicate key`},
		{"no tasks", progress(``), `importer: w.json: no tasks to import`},
		{"nothing readable", progress(`7`), `importer: w.json: no tasks to import; first problem: w.json:1:98: todo.phases[0]: expected a phase object, got number 7; not imported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := importer.ProgressFile("w.json", []byte(tt.data))
			checkError(t, p, err, tt.want)
		})
	}
}

func checkError(t *testing.T, p *task.Plan, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got plan %+v, want error %q", p, want)
	}
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
	if !errors.Is(err, importer.ErrFormat) {
		t.Errorf("error %v is not ErrFormat", err)
	}
	var e *importer.Error
	if !errors.As(err, &e) {
		t.Errorf("error %v is not an *importer.Error", err)
	}
}

func TestPlansMDErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"no title", "- [ ] `cc:TODO`\n", `importer: Plans.md: no tasks to import; first problem: Plans.md:1:1: task: a task without a title; not imported`},
		{"no tasks", "# Plans\n\n- just a note\n", `importer: Plans.md: no tasks to import`},
		{"not utf-8", "\xff", `importer: Plans.md: not UTF-8 text`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := importer.PlansMD("Plans.md", []byte(tt.data))
			checkError(t, p, err, tt.want)
		})
	}
}

func TestPlansMDForms(t *testing.T) {
	// The older list form: a phase per heading, groups below it, markers first.
	data := "# Plans\n\n## Project: my-app\n\n### Phase 1: 設計 `cc:done`\n\n#### アーキテクチャ\n\n- `cc:done` 技術スタック選定\n- `cc:完了` DB スキーマ設計\n\n" +
		"### Phase 2: 実装 `cc:WIP`\n\n#### API\n\n- `cc:done` ユーザー認証 API\n- `cc:WIP` 商品一覧 API\n- `cc:TODO` 注文 API\n- `cc:blocked` 決済 API — 理由: 契約待ち\n"
	got, err := importer.PlansMD("Plans.md", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &task.Plan{Version: "1", Name: "my-app", Phases: []task.Phase{
		{ID: "phase-1", Title: "Phase 1: 設計", Tasks: []task.Task{
			{ID: "phase-1-1", Title: "技術スタック選定", Status: task.StatusDone},
			{ID: "phase-1-2", Title: "DB スキーマ設計", Status: task.StatusDone},
		}},
		{ID: "phase-2", Title: "Phase 2: 実装", Tasks: []task.Task{
			{ID: "phase-2-1", Title: "ユーザー認証 API", Status: task.StatusDone},
			{ID: "phase-2-2", Title: "商品一覧 API", Status: task.StatusDoing},
			{ID: "phase-2-3", Title: "注文 API", Status: task.StatusTodo},
			{ID: "phase-2-4", Title: "決済 API — 理由: 契約待ち", Status: task.StatusTodo},
		}},
	}}
	if diff := cmp.Diff(want, got, ignorePlan); diff != "" {
		t.Errorf("plan mismatch (-want +got):\n%s", diff)
	}
}

func TestStepTreeErrors(t *testing.T) {
	top := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	steps := top(`{"project":"p","steps":[{"step":0,"name":"a","status":"pending"}]}`)
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no phases", fstest.MapFS{"phases/index.json": top(`{}`)},
			`importer: phases/index.json:1:1: phases: required: the list of phases`},
		{"no steps", fstest.MapFS{"phases/index.json": top(`{"phases":[{"dir":"a"}]}`), "phases/a/index.json": top(`{}`)},
			phaseSkipped(`importer: phases/a/index.json:1:1: steps: required: the list of steps`)},
		{"only a planned phase", fstest.MapFS{"phases/index.json": top(`{"phases":[{"dir":"0-mvp"}]}`)},
			`importer: phases/index.json: no tasks to import; first problem: phases/index.json:1:19: phases[0].dir: phases/0-mvp/index.json does not exist yet; phase "0-mvp" (pending) not imported`},
		{"malformed step index", fstest.MapFS{"phases/index.json": top(`{"phases":[{"dir":"a"}]}`),
			"phases/a/index.json": top("{\n\"steps\": [,]}")},
			phaseSkipped(`importer: phases/a/index.json:2:11: steps[0]: invalid character ',' looking for beginning of value`)},
		{"step file not UTF-8", fstest.MapFS{"phases/index.json": top(`{"phases":[{"dir":"a"}]}`), "phases/a/index.json": steps,
			"phases/a/step0.md": top("\x80")},
			phaseSkipped(`importer: phases/a/step0.md: not UTF-8 text`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := importer.StepTree(tt.fsys)
			checkError(t, p, err, tt.want)
		})
	}
	if _, err := importer.StepTree(fstest.MapFS{}); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, importer.ErrFormat) {
		t.Errorf("StepTree of an empty fs: got %v, want fs.ErrNotExist", err)
	}
}

func TestDir(t *testing.T) {
	empty := t.TempDir()
	_, err := importer.Dir(empty)
	want := "importer: " + empty + ": no plan to import: looked for .harnish/harnish-current-work.json, harnish-current-work.json, phases/index.json, Plans.md: file does not exist"
	if err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Dir(empty) = %v, want %q", err, want)
	}

	both := t.TempDir()
	for _, name := range []string{"Plans.md", "harnish-current-work.json"} {
		if err := os.WriteFile(filepath.Join(both, name), []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	_, err = importer.Dir(both)
	want = "importer: " + both + ": more than one plan to import (harnish-current-work.json, Plans.md): say which with a format (progress, steps, plansmd)"
	if err == nil || err.Error() != want {
		t.Errorf("Dir(both) = %v, want %q", err, want)
	}

	// A progress file in .harnish/ is the live one; errors name its path.
	hidden := t.TempDir()
	if err := os.MkdirAll(filepath.Join(hidden, ".harnish"), 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(hidden, ".harnish", "harnish-current-work.json")
	if err := os.WriteFile(path, []byte("{"), 0o666); err != nil {
		t.Fatal(err)
	}
	_, err = importer.Dir(hidden)
	want = "importer: " + path + ":1:2: unexpected end of JSON input"
	if err == nil || err.Error() != want || !errors.Is(err, importer.ErrFormat) {
		t.Errorf("Dir(hidden) = %v, want %q", err, want)
	}
}

// TestStepTreeSkipsABrokenPhase: the executor reads a phase's files only
// when it runs it, so one broken phase leaves the others imported.
func TestStepTreeSkipsABrokenPhase(t *testing.T) {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	res, err := importer.ParseStepTree(fstest.MapFS{
		"phases/index.json":   f(`{"phases":[{"dir":"a"},{"dir":"b"}]}`),
		"phases/a/index.json": f(`{"steps":[{"step":0,"name":"one","status":"completed"}]}`),
		"phases/b/index.json": f(`{"steps": [,]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Plan.Tasks()); n != 1 {
		t.Errorf("%d tasks, want 1", n)
	}
	want := []string{`phases/index.json:1:31: phases[1].dir: phase "b" not imported: phases/b/index.json:1:12: steps[0]: invalid character ',' looking for beginning of value`}
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestPlansMDLegend: the list that explains the markers holds no tasks.
func TestPlansMDLegend(t *testing.T) {
	data := "# Plans\n\n## マーカー凡例\n\n- `cc:TODO`: 未着手\n- `cc:WIP`: 作業中\n\n## Phase 1: Work\n\n- [ ] 1.1: Build `cc:TODO`\n"
	p, err := importer.PlansMD("Plans.md", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Tasks()); n != 1 || p.Tasks()[0].Task.ID != "1.1" {
		t.Errorf("tasks %+v, want only 1.1", p.Tasks())
	}
}
