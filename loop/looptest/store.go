package looptest

import (
	"context"
	"fmt"
	"sync"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// Store is an in-memory [loop.Store] with the same rules as the on-disk one:
// transitions apply in order or not at all. It is safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	st      *policy.RunState
	commits []policy.Transition
	batches []int // len(commits) after each Commit
	failed  error
	closed  bool
	// FailAt makes the commit that would record transition number FailAt
	// (1-based, over the store's life) fail, as a full disk would; zero never.
	FailAt int
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{st: &policy.RunState{}} }

// Load returns a copy of the state, or an error wrapping loop.ErrNoState.
func (s *Store) Load(ctx context.Context) (*policy.RunState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Run == "" {
		return nil, fmt.Errorf("%w in the test store", loop.ErrNoState)
	}
	return s.st.Clone(), nil
}

// Commit applies ts to a copy of the state and keeps the copy when all apply.
func (s *Store) Commit(ctx context.Context, ts ...policy.Transition) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return loop.ErrStoreClosed
	}
	if s.failed != nil {
		return fmt.Errorf("%w: %w", loop.ErrStoreFailed, s.failed)
	}
	if s.FailAt > 0 && len(s.commits) < s.FailAt && len(s.commits)+len(ts) >= s.FailAt {
		s.failed = fmt.Errorf("looptest: commit of transition %d failed as scripted", s.FailAt)
		return s.failed
	}
	next := s.st.Clone()
	for _, t := range ts {
		if err := next.Apply(t); err != nil {
			return err
		}
	}
	s.st = next
	s.commits = append(s.commits, ts...)
	if len(ts) > 0 {
		s.batches = append(s.batches, len(s.commits))
	}
	return nil
}

// Cuts returns the points a crash could leave the store at: the number of
// transitions recorded after each Commit, in order. Restore(n) for each is
// the store after a crash right there.
func (s *Store) Cuts() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.batches...)
}

// Close closes the store: later commits fail with loop.ErrStoreClosed, as
// the on-disk store's do. Load and the test accessors still work.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Transitions returns every transition committed, in order.
func (s *Store) Transitions() []policy.Transition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]policy.Transition(nil), s.commits...)
}

// Restore returns a new Store holding the state after the first n committed
// transitions: the store a crash right after them would leave.
func (s *Store) Restore(n int) (*Store, error) {
	r := NewStore()
	if err := r.Commit(context.Background(), s.Transitions()[:n]...); err != nil {
		return nil, err
	}
	return r, nil
}
