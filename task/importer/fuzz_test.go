package importer_test

import (
	"encoding/json"
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

// checkResult holds every parser to its contract: an error of bounded size,
// or a plan that validates, never both and never neither; a plan that
// task.Parse reads back the same from JSON.
func checkResult(t *testing.T, p *task.Plan, err error) {
	t.Helper()
	switch {
	case err != nil && p != nil:
		t.Fatalf("got both a plan and an error: %v", err)
	case err == nil && p == nil:
		t.Fatal("got neither a plan nor an error")
	case err != nil:
		if n := len(err.Error()); n > 2048 {
			t.Fatalf("error of %d bytes: %.2000s", n, err)
		}
		return
	}
	if verr := p.Validate().Err(); verr != nil {
		t.Fatalf("returned plan does not validate: %v", verr)
	}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	back, err := task.Parse("plan.json", js)
	if err != nil {
		t.Fatalf("task.Parse does not read the plan back: %v\n%s", err, js)
	}
	if diff := cmp.Diff(p, back, ignorePlan, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("the plan changed on a trip through JSON (-imported +parsed):\n%s", diff)
	}
}

func seed(f *testing.F, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// corpusSeeds adds the corpus files whose names end in suffix.
func corpusSeeds(f *testing.F, suffix string) {
	err := filepath.WalkDir("testdata/corpus", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) && !strings.HasSuffix(p, ".golden.json") {
			f.Add(seed(f, p))
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
}

func FuzzProgressFile(f *testing.F) {
	f.Add(seed(f, "testdata/progress/harnish-current-work.json"))
	corpusSeeds(f, "harnish-current-work.json")
	for _, name := range []string{"template", "e2e-with-done", "task-schema", "done-and-todo"} {
		f.Add(seed(f, "testdata/corpus/progress/"+name+".json"))
	}
	f.Add([]byte(`{"metadata":{},"done":{"phases":[]},"doing":{"task":{"id":"1-1","title":"t"}},"todo":{"phases":[]}}`))
	f.Add([]byte(`{"metadata":{},"done":{"phases":[{"phase":"x","compressed":true}]},"doing":{"task":null},"todo":{"phases":[{"phase":1,"tasks":[{"id":"a","title":"b","depends_on":["a"]}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := importer.ProgressFile("w.json", data)
		checkResult(t, p, err)
	})
}

func FuzzPlansMD(f *testing.F) {
	f.Add(seed(f, "testdata/plansmd/Plans.md"))
	corpusSeeds(f, ".md")
	f.Add([]byte("## Phase 1\n- [ ] T1: a `cc:TODO` depends:T2\n## Phase 2\n- [ ] T2: b `cc:WIP`\n"))
	f.Add([]byte("| Task | Status |\n|---|---|\n| 1 | cc:done |\n| 1 | cc:TODO |\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := importer.PlansMD("Plans.md", data)
		checkResult(t, p, err)
	})
}

func FuzzStepTree(f *testing.F) {
	f.Add(seed(f, "testdata/steptree/phases/index.json"), "1-api",
		seed(f, "testdata/steptree/phases/1-api/index.json"), seed(f, "testdata/steptree/phases/1-api/step1.md"))
	f.Add([]byte(`{"phases":[{"dir":"a"}]}`), "a", []byte(`{"steps":[{"step":0,"name":"n","status":"pending"}]}`), []byte("## AC\n```\ngo test ./...\n```\n"))
	f.Fuzz(func(t *testing.T, top []byte, dir string, idx, step []byte) {
		fsys := fstest.MapFS{"phases/index.json": {Data: top}}
		if dir != "" {
			fsys["phases/"+dir+"/index.json"] = &fstest.MapFile{Data: idx}
			fsys["phases/"+dir+"/step0.md"] = &fstest.MapFile{Data: step}
			fsys["phases/"+dir+"/step1.md"] = &fstest.MapFile{Data: step}
		}
		p, err := importer.StepTree(fsys)
		checkResult(t, p, err)
	})
}
