package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// manyTransitions is how long a history ManyTransitions commits: long
// enough for an on-disk store to fold its journal into snapshots several
// times over.
const manyTransitions = 10_000

// Run runs the conformance suite as subtests of t against the stores open
// returns. open returns a new, empty store each time it is called, once per
// subtest or more; it fails t if it cannot. The suite closes every store it
// gets, once, before the subtest ends, so open need not register a Close.
//
// Run does not test durability: use [RunDurable] for a store that keeps its
// state across Close.
func Run(t *testing.T, open func(t *testing.T) loop.Store) {
	t.Helper()
	s := &suite{open: func(t *testing.T, _ string) loop.Store { return open(t) }}
	s.run(t)
}

// RunDurable runs what [Run] does, and also reopens stores to check that
// they keep what they acknowledged. open returns the store kept in dir, an
// empty directory the suite made for a new store; the suite calls it again
// with the same dir, after closing the store, to reopen it. A store that
// keeps its state elsewhere (a database) uses dir as a unique name for it.
// The suite closes every store it gets, once, before the subtest ends.
func RunDurable(t *testing.T, open func(t *testing.T, dir string) loop.Store) {
	t.Helper()
	s := &suite{open: open, durable: true}
	s.run(t)
}

type suite struct {
	open    func(t *testing.T, dir string) loop.Store
	durable bool
}

func (s *suite) run(t *testing.T) {
	t.Helper()
	for _, tc := range []struct {
		name        string
		fn          func(*testing.T, *suite)
		durableOnly bool
	}{
		{"LoadEmpty", testLoadEmpty, false},
		{"CommitNothing", testCommitNothing, false},
		{"CommitInOrder", testCommitInOrder, false},
		{"LoadReturnsCopy", testLoadReturnsCopy, false},
		{"CallerKeepsTransitions", testCallerKeepsTransitions, false},
		{"RejectedBatch", testRejectedBatch, false},
		{"CancelledCommit", testCancelledCommit, false},
		{"ManyTransitions", testManyTransitions, false},
		{"CommitAfterClose", testCommitAfterClose, false},
		{"Reopen", testReopen, true},
	} {
		if tc.durableOnly && !s.durable {
			continue
		}
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, s) })
	}
}

// store is a store the suite opened, with where it lives.
type store struct {
	loop.Store
	dir    string
	closed bool
}

// new opens a new, empty store and closes it when t ends.
func (s *suite) new(t *testing.T) *store {
	t.Helper()
	return s.openAt(t, t.TempDir())
}

func (s *suite) openAt(t *testing.T, dir string) *store {
	t.Helper()
	ls := s.open(t, dir)
	if ls == nil {
		t.Fatal("open returned a nil store")
	}
	st := &store{Store: ls, dir: dir}
	t.Cleanup(func() {
		if !st.closed {
			st.close(t)
		}
	})
	return st
}

// close closes st, which must not be used after.
func (st *store) close(t *testing.T) {
	t.Helper()
	st.closed = true
	if err := st.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// reopen closes st and opens the store kept in the same place. Only
// durable suites reopen.
func (s *suite) reopen(t *testing.T, st *store) *store {
	t.Helper()
	if !s.durable {
		panic("storetest: reopen in a suite of stores that are not durable")
	}
	st.close(t)
	return s.openAt(t, st.dir)
}

func commit(t *testing.T, st *store, ts ...policy.Transition) {
	t.Helper()
	if err := st.Commit(t.Context(), ts...); err != nil {
		t.Fatalf("Commit of %d transitions: %v", len(ts), err)
	}
}

func load(t *testing.T, st *store) *policy.RunState {
	t.Helper()
	got, err := st.Load(t.Context())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got == nil {
		t.Fatal("Load returned a nil state and no error")
	}
	return got
}

// wantState fails t unless st holds want, or holds nothing when want is nil.
// when says at what point, for the message.
func wantState(t *testing.T, st *store, want *policy.RunState, when string) {
	t.Helper()
	got, err := st.Load(t.Context())
	if want == nil {
		switch {
		case err == nil && got != nil:
			t.Errorf("%s: Load returned a state at transition %d, want an error wrapping loop.ErrNoState", when, got.Seq)
		case !errors.Is(err, loop.ErrNoState):
			t.Errorf("%s: Load = %v, want an error wrapping loop.ErrNoState", when, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: Load: %v", when, err)
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: Load (-want +got):\n%s", when, diff)
	}
}

func testLoadEmpty(t *testing.T, s *suite) {
	st := s.new(t)
	wantState(t, st, nil, "a new store")
}

func testCommitNothing(t *testing.T, s *suite) {
	st := s.new(t)
	for _, ts := range [][]policy.Transition{nil, {}} {
		if err := st.Commit(t.Context(), ts...); err != nil {
			t.Errorf("Commit of no transitions to an empty store: %v", err)
		}
	}
	wantState(t, st, nil, "after committing nothing to an empty store")
	commit(t, st, history(3)...)
	if err := st.Commit(t.Context()); err != nil {
		t.Errorf("Commit of no transitions: %v", err)
	}
	wantState(t, st, applied(t, history(3)), "after committing nothing")
}

func testCommitInOrder(t *testing.T, s *suite) {
	const n = 2*stepsPerPhase + 7 // two whole phases and part of a third
	ts := history(n)
	for _, tt := range []struct {
		name  string
		batch int
	}{
		{"one at a time", 1},
		{"in batches of 5", 5},
		{"all at once", n},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := s.new(t)
			for i := 0; i < n; i += tt.batch {
				end := min(i+tt.batch, n)
				commit(t, st, ts[i:end]...)
				wantState(t, st, applied(t, ts[:end]), "after Commit returned")
			}
		})
	}
}

func testLoadReturnsCopy(t *testing.T, s *suite) {
	st := s.new(t)
	ts := history(stepsPerPhase + 3)
	commit(t, st, ts...)
	scribble(load(t, st))
	wantState(t, st, applied(t, ts), "after changing what Load returned")
	commit(t, st, transitionAt(len(ts)))
	wantState(t, st, applied(t, history(len(ts)+1)), "after changing what Load returned, then committing")
}

func testCallerKeepsTransitions(t *testing.T, s *suite) {
	st := s.new(t)
	ts := history(stepsPerPhase + 3)
	commit(t, st, ts...)
	scribbleTransitions(ts)
	want := applied(t, history(stepsPerPhase+3))
	wantState(t, st, want, "after the caller changed the transitions it committed")
	if s.durable {
		wantState(t, s.reopen(t, st), want, "reopened after the caller changed the transitions it committed")
	}
}

func testRejectedBatch(t *testing.T, s *suite) {
	const prefix = 10
	next := func(i int) policy.Transition { return transitionAt(prefix + i) }
	bad := invalid()
	tests := []struct {
		name   string
		prefix int // transitions committed before
		batch  []policy.Transition
	}{
		{"alone", prefix, []policy.Transition{bad["attempt out of sequence"]}},
		{"first of a batch", prefix, []policy.Transition{bad["attempt out of sequence"], next(0), next(1)}},
		{"in the middle of a batch", prefix, []policy.Transition{next(0), bad["attempt out of sequence"], next(1)}},
		{"last of a batch", prefix, []policy.Transition{next(0), next(1), bad["second run start"]}},
		{"first batch of an empty store", 0, []policy.Transition{transitionAt(0), transitionAt(1), bad["attempt out of sequence"]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := s.new(t)
			var before *policy.RunState
			if tt.prefix > 0 {
				commit(t, st, history(tt.prefix)...)
				before = applied(t, history(tt.prefix))
			}
			if err := st.Commit(t.Context(), tt.batch...); err == nil {
				t.Fatal("Commit of a batch with an invalid transition succeeded")
			}
			wantState(t, st, before, "after a rejected batch")
			after := history(tt.prefix + 3)
			if err := st.Commit(t.Context(), after[tt.prefix:]...); err != nil {
				// A rejected transition is not an error that leaves the
				// store's state unknown.
				t.Errorf("Commit of valid transitions after a rejected batch: %v", err)
				if !s.durable {
					return
				}
				st = s.reopen(t, st)
				wantState(t, st, before, "reopened after a rejected batch")
				commit(t, st, after[tt.prefix:]...)
			}
			wantState(t, st, applied(t, after), "after a rejected batch, then a valid one")
			if s.durable {
				wantState(t, s.reopen(t, st), applied(t, after), "reopened after a rejected batch, then a valid one")
			}
		})
	}
}

func testCancelledCommit(t *testing.T, s *suite) {
	st := s.new(t)
	commit(t, st, history(5)...)
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("storetest: cancelled on purpose"))
	// The contract does not say whether a cancelled Commit records its
	// batch, only that it records all of it or nothing.
	want := applied(t, history(8))
	err := st.Commit(ctx, history(8)[5:]...)
	if err != nil {
		want = applied(t, history(5))
	}
	wantState(t, st, want, "after a Commit under a cancelled context")
	if s.durable {
		wantState(t, s.reopen(t, st), want, "reopened after a Commit under a cancelled context")
	}
}

func testManyTransitions(t *testing.T, s *suite) {
	if testing.Short() {
		t.Skip("commits 10,000 transitions")
	}
	st := s.new(t)
	ts := history(manyTransitions)
	want := &policy.RunState{}
	// Batches of 1 to 8 transitions, checked now and then and reopened
	// halfway, so an on-disk store folds and reloads its journal mid-run.
	reopened := false
	for i, n := 0, 0; i < len(ts); n++ {
		end := min(i+1+n%8, len(ts))
		commit(t, st, ts[i:end]...)
		for _, tr := range ts[i:end] {
			if err := want.Apply(tr); err != nil {
				t.Fatalf("storetest: history does not apply: %v", err)
			}
		}
		i = end
		if n%250 == 0 {
			wantState(t, st, want, "during many commits")
		}
		if s.durable && !reopened && i >= len(ts)/2 {
			st, reopened = s.reopen(t, st), true
			wantState(t, st, want, "reopened halfway through many commits")
		}
	}
	if t.Failed() {
		return
	}
	wantState(t, st, want, "after many commits")
	if s.durable {
		wantState(t, s.reopen(t, st), want, "reopened after many commits")
	}
}

func testCommitAfterClose(t *testing.T, s *suite) {
	st := s.new(t)
	commit(t, st, history(3)...)
	st.close(t)
	if err := st.Commit(t.Context(), transitionAt(3)); !errors.Is(err, loop.ErrStoreClosed) {
		t.Errorf("Commit after Close = %v, want an error wrapping loop.ErrStoreClosed", err)
	}
	if !s.durable {
		return
	}
	st = s.openAt(t, st.dir)
	wantState(t, st, applied(t, history(3)), "reopened after a Commit after Close")
	commit(t, st, transitionAt(3))
	wantState(t, st, applied(t, history(4)), "reopened and committed")
}

func testReopen(t *testing.T, s *suite) {
	st := s.reopen(t, s.new(t))
	wantState(t, st, nil, "an empty store reopened")
	ts := history(stepsPerPhase + 5)
	for i, n := 0, 1; i < len(ts); n *= 2 {
		end := min(i+n, len(ts))
		commit(t, st, ts[i:end]...)
		st = s.reopen(t, st)
		wantState(t, st, applied(t, ts[:end]), "reopened after Commit returned")
		i = end
	}
	st = s.reopen(t, s.reopen(t, st))
	wantState(t, st, applied(t, ts), "reopened twice with no commit")
	commit(t, st, transitionAt(len(ts)))
	wantState(t, s.reopen(t, st), applied(t, history(len(ts)+1)), "committed to a reopened store, reopened again")
}
