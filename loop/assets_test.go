package loop_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
)

// TestLoopAssets: experience goes into the prompt of tasks with matching
// tags, and a finished task leaves what it taught: a failure that repeated
// and was resolved, and a generalizable first-try success.
func TestLoopAssets(t *testing.T) {
	ctx := context.Background()
	store, err := asset.OpenFile(filepath.Join(t.TempDir(), "assets.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Record(ctx, &asset.Asset{Type: asset.TypeGuardrail, Title: "never edit generated files", Tags: []string{"calc"},
		Body: "calc/zz_generated.go is written by go generate"}); err != nil {
		t.Fatal(err)
	}
	plan := onePhase(
		task.Task{ID: "T1", Title: "divide", Tags: []string{"calc"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
		task.Task{ID: "T2", Title: "docs", Tags: []string{"docs"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
	)
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T2": {{Generalizable: true}}}}
	_, _, err = looptest.Run(t, loop.Config{Plan: plan, Executor: ex, Assets: store,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
		Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := ex.Requests()
	if got := reqs[0].Parts.Assets; len(got) != 1 || got[0].Title != "never edit generated files" ||
		!strings.Contains(reqs[0].Prompt, "## Experience") {
		t.Errorf("T1's first prompt lacks the guardrail asset: %+v", got)
	}
	// T2 shares no tag with the guardrail, but its phase with what T1 learned.
	if got := reqs[len(reqs)-1]; got.Task.ID != "T2" || len(got.Parts.Assets) != 1 || got.Parts.Assets[0].Type != "failure" {
		t.Errorf("T2 (tag docs, phase p1) got assets: %+v", got.Parts.Assets)
	}

	type learned struct {
		Type     asset.Type
		Title    string
		Tags     []string
		Body     string
		Resolved bool
	}
	var got []learned
	for _, typ := range []asset.Type{asset.TypeFailure, asset.TypePattern} {
		as, err := store.Query(ctx, asset.Query{Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range as {
			got = append(got, learned{a.Type, a.Title, a.Tags, a.Body, a.Resolved != nil && *a.Resolved})
		}
	}
	want := []learned{
		{asset.TypeFailure, "divide: verify: scripted failure x", []string{"calc", "p1"}, "Root cause: scripted root cause\nFix: scripted fix", true},
		{asset.TypePattern, "docs", []string{"docs", "p1"}, "scripted", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assets learned (-want +got):\n%s", diff)
	}
}
