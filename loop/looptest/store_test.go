package looptest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
)

func TestStoreRestore(t *testing.T) {
	store := looptest.NewStore()
	if _, err := store.Load(context.Background()); !errors.Is(err, loop.ErrNoState) {
		t.Fatalf("empty Load: %v", err)
	}
	plan := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Title: "P", Tasks: []task.Task{
		{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}}}}}}
	if _, _, err := looptest.Run(t, loop.Config{Plan: plan, Store: store}); err != nil {
		t.Fatal(err)
	}
	ts := store.Transitions()
	for n := 1; n <= len(ts); n++ {
		r, err := store.Restore(n)
		if err != nil {
			t.Fatal(err)
		}
		st, err := r.Load(context.Background())
		if err != nil || st.Seq != uint64(n) {
			t.Fatalf("Restore(%d): seq %v, %v", n, st, err)
		}
	}
	full, _ := store.Load(context.Background())
	last, _ := store.Restore(len(ts))
	got, _ := last.Load(context.Background())
	if diff := cmp.Diff(full, got); diff != "" {
		t.Errorf("Restore(all) (-want +got):\n%s", diff)
	}
}
