package loop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
)

const decodedCopy = "plan.decoded.json"

// keep keeps the plan text as file name in a new tree and returns the
// state directory.
func keep(t *testing.T, name, text string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	stateDir := filepath.Join(dir, loop.StateDir)
	if err := loop.KeepPlan(stateDir, file); err != nil {
		t.Fatal(err)
	}
	return stateDir
}

// wantKept loads the kept plan and wants what parsing the kept file gives.
func wantKept(t *testing.T, stateDir string) *task.Plan {
	t.Helper()
	want, err := task.Load(loop.KeptPlanFile(stateDir))
	if err != nil {
		t.Fatal(err)
	}
	got, err := loop.LoadKeptPlan(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	// Nil and empty differ: an empty list left out of the JSON must not come back nil.
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(task.Plan{})); diff != "" {
		t.Errorf("kept plan (-parsed +loaded):\n%s", diff)
	}
	return got
}

// TestKeptPlanCopy: the kept plan loads from its decoded copy as the very
// plan a parse of the file gives, for every plan of task's testdata.
func TestKeptPlanCopy(t *testing.T) {
	for _, name := range []string{"valid.yaml", "valid.json", "many.yaml", "noacceptance.yaml"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "task", "testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := task.Parse(name, data); err != nil {
				t.Skipf("not a valid plan: %v", err)
			}
			stateDir := keep(t, name, string(data))
			if _, err := os.Stat(filepath.Join(stateDir, decodedCopy)); err != nil {
				t.Errorf("no decoded copy: %v", err)
			}
			wantKept(t, stateDir)
		})
	}
}

// A copy that no longer matches the kept file (edited by a person), or is
// damaged, is not used; the next load makes it again.
func TestKeptPlanCopyStale(t *testing.T) {
	const plan = "version: 1\nname: p\nphases:\n  - id: p1\n    tasks:\n      - {id: T1, title: old, acceptance: [{run: [\"true\"]}]}\n"
	stateDir := keep(t, "harnish.yaml", plan)
	kept := loop.KeptPlanFile(stateDir)
	if err := os.WriteFile(kept, []byte(strings.Replace(plan, "old", "new", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := wantKept(t, stateDir); got.Phases[0].Tasks[0].Title != "new" {
		t.Errorf("title %q after the edit", got.Phases[0].Tasks[0].Title)
	}
	copyPath := filepath.Join(stateDir, decodedCopy)
	data, err := os.ReadFile(copyPath)
	if err != nil || !strings.Contains(string(data), `"new"`) {
		t.Errorf("the copy was not made again: %v, %s", err, data)
	}
	// Damaged in the plan's bytes, with the source digest intact.
	if err := os.WriteFile(copyPath, []byte(strings.Replace(string(data), `"new"`, `"bad"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	wantKept(t, stateDir)
	if err := os.WriteFile(copyPath, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantKept(t, stateDir)
}

// A plan whose JSON would not give it back (an empty list, which the JSON
// leaves out and so reads back nil) keeps no copy and is parsed each time.
func TestKeptPlanNoCopy(t *testing.T) {
	const plan = "version: 1\nname: p\nguardrails: {protected: []}\nphases:\n  - id: p1\n    tasks:\n      - {id: T1, title: t, acceptance: [{run: [\"true\"]}]}\n"
	stateDir := keep(t, "harnish.yaml", plan)
	if _, err := os.Stat(filepath.Join(stateDir, decodedCopy)); err == nil {
		t.Error("a decoded copy of a plan it does not give back")
	}
	if got := wantKept(t, stateDir); got.Guardrails.Protected == nil {
		t.Error("protected: [] loaded as nil")
	}
}

// Keeping a plan of the other form replaces the one kept before.
func TestKeepPlanOtherForm(t *testing.T) {
	stateDir := keep(t, "harnish.yaml", "version: 1\nname: yaml\nphases:\n  - id: p1\n    tasks:\n      - {id: T1, title: t, acceptance: [{run: [\"true\"]}]}\n")
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, []byte(`{"version": 1, "name": "json", "phases": [{"id": "p1", "tasks": [{"id": "T1", "title": "t", "acceptance": [{"run": ["true"]}]}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := loop.KeepPlan(stateDir, file); err != nil {
		t.Fatal(err)
	}
	if got := wantKept(t, stateDir); got.Name != "json" {
		t.Errorf("kept plan %q, want the JSON one", got.Name)
	}
}

// FuzzKeptPlanCopy: whatever the decoded copy holds, the kept plan loads
// as a parse of the kept file gives it.
func FuzzKeptPlanCopy(f *testing.F) {
	const plan = "version: 1\nname: p\nphases:\n  - id: p1\n    tasks:\n      - {id: T1, title: t, acceptance: [{run: [\"true\"]}]}\n"
	dir := f.TempDir()
	file := filepath.Join(dir, "harnish.yaml")
	if err := os.WriteFile(file, []byte(plan), 0o644); err != nil {
		f.Fatal(err)
	}
	stateDir := filepath.Join(dir, loop.StateDir)
	if err := loop.KeepPlan(stateDir, file); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(stateDir, decodedCopy))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"source":"sha256:00","plan":{}}`))
	want, err := task.Load(loop.KeptPlanFile(stateDir))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(stateDir, decodedCopy), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := loop.LoadKeptPlan(stateDir)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(task.Plan{})); diff != "" {
			t.Fatalf("kept plan (-parsed +loaded):\n%s", diff)
		}
	})
}
