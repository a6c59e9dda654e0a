package storetest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/loop/storetest"
)

// broken runs the suite against a store that breaks one rule of the
// contract, each a bug a real store could have.
var broken = map[string]func(t *testing.T){
	"empty-state": func(t *testing.T) {
		storetest.Run(t, func(*testing.T) loop.Store { return &emptyState{looptest.NewStore()} })
	},
	"caches-load": func(t *testing.T) {
		storetest.Run(t, func(*testing.T) loop.Store { return &cachesLoad{Store: looptest.NewStore()} })
	},
	"drops-late-commits": func(t *testing.T) {
		storetest.Run(t, func(*testing.T) loop.Store { return &dropsLateCommits{Store: looptest.NewStore()} })
	},
	"reopens-empty": func(t *testing.T) {
		storetest.RunDurable(t, func(*testing.T, string) loop.Store { return looptest.NewStore() })
	},
}

// emptyState loads an empty state instead of ErrNoState.
type emptyState struct{ *looptest.Store }

func (s *emptyState) Load(ctx context.Context) (*policy.RunState, error) {
	if st, err := s.Store.Load(ctx); err == nil {
		return st, nil
	}
	return &policy.RunState{}, nil
}

// cachesLoad returns the same state to every Load until the next Commit.
type cachesLoad struct {
	*looptest.Store
	cached *policy.RunState
}

func (s *cachesLoad) Load(ctx context.Context) (*policy.RunState, error) {
	if s.cached == nil {
		st, err := s.Store.Load(ctx)
		if err != nil {
			return nil, err
		}
		s.cached = st
	}
	return s.cached, nil
}

func (s *cachesLoad) Commit(ctx context.Context, ts ...policy.Transition) error {
	s.cached = nil
	return s.Store.Commit(ctx, ts...)
}

// dropsLateCommits acknowledges, but does not record, commits once it
// holds 5,000 transitions.
type dropsLateCommits struct {
	*looptest.Store
	n int
}

func (s *dropsLateCommits) Commit(ctx context.Context, ts ...policy.Transition) error {
	if s.n >= 5000 {
		return nil
	}
	s.n += len(ts)
	return s.Store.Commit(ctx, ts...)
}

// TestBroken runs the suite against the broken store named by
// HARNISH_STORETEST_BROKEN; TestSuiteCatchesBrokenStores runs it in a child
// process and wants it to fail.
func TestBroken(t *testing.T) {
	name := os.Getenv("HARNISH_STORETEST_BROKEN")
	if name == "" {
		t.Skip("run by TestSuiteCatchesBrokenStores")
	}
	broken[name](t)
}

func TestSuiteCatchesBrokenStores(t *testing.T) {
	tests := []struct {
		broken, subtest, complaint string
	}{
		{"empty-state", "LoadEmpty", "want an error wrapping loop.ErrNoState"},
		{"caches-load", "LoadReturnsCopy", "after changing what Load returned"},
		{"drops-late-commits", "ManyTransitions", "during many commits"},
		{"reopens-empty", "Reopen", "reopened after Commit returned"},
	}
	for _, tt := range tests {
		t.Run(tt.broken, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBroken$/^"+tt.subtest+"$", "-test.v")
			cmd.Env = append(os.Environ(), "HARNISH_STORETEST_BROKEN="+tt.broken)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store that %s:\n%s", tt.broken, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBroken/"+tt.subtest) || !strings.Contains(string(out), tt.complaint) {
				t.Errorf("the suite failed, but not in %s with %q:\n%s", tt.broken, tt.complaint, out)
			}
		})
	}
}
