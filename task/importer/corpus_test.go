package importer_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

var update = flag.Bool("update", false, "rewrite the corpus goldens")

// golden is what a corpus entry must import to.
type golden struct {
	Format   importer.Format `json:"format"`
	Warnings []string        `json:"warnings"`
	Plan     *task.Plan      `json:"plan"`
}

// TestCorpus imports every source of testdata/corpus (see its README) and
// compares the plan and the warnings with the golden beside it.
func TestCorpus(t *testing.T) {
	entries := []struct {
		path string
		opts importer.Options
	}{
		{"progress/template.json", importer.Options{}},
		{"progress/e2e-with-done.json", importer.Options{}},
		{"progress/task-schema.json", importer.Options{}},
		{"progress/done-and-todo.json", importer.Options{}},
		{"progress/archive", importer.Options{}},
		{"steps/template", importer.Options{}},
		{"steps/planned/phases", importer.Options{}},
		{"steps/multiline/phases/index.json", importer.Options{}},
		{"steps/frontmatter", importer.Options{}},
		{"steps/statuses", importer.Options{Format: importer.FormatSteps}},
		{"steps/fork-fields/phases", importer.Options{Format: importer.FormatSteps}},
		{"plansmd/template.md", importer.Options{}},
		{"plansmd/real-note-markers.md", importer.Options{}},
		{"plansmd/real-stray-backtick.md", importer.Options{}},
		{"plansmd/real-headless-rows.md", importer.Options{}},
		{"plansmd/retired-deferred.md", importer.Options{}},
		{"plansmd/harness-v4.md", importer.Options{}},
		{"plansmd/pipe-in-code.md", importer.Options{}},
		{"plansmd/markers.md", importer.Options{}},
		{"plansmd/sections.md", importer.Options{}},
		{"plansmd/heading-tasks.md", importer.Options{}},
		{"plansmd/mentioned.md", importer.Options{}},
		{"plansmd/later-phase.md", importer.Options{}},
		{"plansmd/phase-cycle.md", importer.Options{}},
		{"plansmd/nested-phases.md", importer.Options{}},
		{"plansmd/heading-groups.md", importer.Options{}},
		{"plansmd/bad-row.md", importer.Options{}},
		{"plansmd/named", importer.Options{}},
		{"plansmd/named", importer.Options{Plan: "default"}},
	}
	for _, e := range entries {
		name := e.path
		if e.opts.Plan != "" {
			name += "@" + e.opts.Plan
		}
		t.Run(name, func(t *testing.T) {
			res, err := importer.Import(filepath.Join("testdata", "corpus", filepath.FromSlash(e.path)), e.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, res.Plan, nil)
			got := golden{Format: res.Format, Plan: res.Plan, Warnings: []string{}}
			for _, w := range res.Warnings {
				got.Warnings = append(got.Warnings, filepath.ToSlash(w.String()))
			}
			file := filepath.Join("testdata", "corpus", strings.NewReplacer("/", "_", "@", "_").Replace(name)+".golden.json")
			if *update {
				data, err := json.MarshalIndent(got, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, append(data, '\n'), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			var want golden
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, ignorePlan); diff != "" {
				t.Errorf("import of %s changed (-golden +now):\n%s", e.path, diff)
			}
		})
	}
}
