package web

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// Store is a [loop.Store] that also hands every batch of transitions it
// commits to the pages ([New] with Config.Store) that follow it: a host
// that runs its loop in its own process gives the loop this Store, wrapped
// around its own, and mounts the page.
//
// Like any Store it is used by one loop at a time; the pages read from it
// concurrently.
type Store struct {
	inner loop.Store

	mu    sync.Mutex
	st    *policy.RunState // as committed; the pages' starting point
	pages []*Handler
}

var _ loop.Store = (*Store)(nil)

// NewStore wraps inner, reading what it holds.
func NewStore(ctx context.Context, inner loop.Store) (*Store, error) {
	st, err := inner.Load(ctx)
	if errors.Is(err, loop.ErrNoState) {
		st, err = &policy.RunState{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Store{inner: inner, st: st}, nil
}

// Load returns the inner store's state.
func (s *Store) Load(ctx context.Context) (*policy.RunState, error) { return s.inner.Load(ctx) }

// Commit commits ts to the inner store and, once they are durable, shows
// them to the pages.
func (s *Store) Commit(ctx context.Context, ts ...policy.Transition) error {
	if err := s.inner.Commit(ctx, ts...); err != nil {
		return err
	}
	if len(ts) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range ts {
		if err := s.st.Apply(t); err != nil {
			// The inner store took what this copy refuses: a store of
			// another kind of state; the pages start over from it.
			if st, lerr := s.inner.Load(ctx); lerr == nil {
				s.st = st
			}
			for _, p := range s.pages {
				p.hub.reset(p.cfg.Plan, s.st.Clone(), nil)
			}
			return nil
		}
	}
	for _, p := range s.pages {
		if !p.hub.apply(ts) {
			p.hub.reset(p.cfg.Plan, s.st.Clone(), nil)
		}
	}
	return nil
}

// Close closes the inner store.
func (s *Store) Close() error { return s.inner.Close() }

// subscribe adds a page, showing it the state the next commit follows.
func (s *Store) subscribe(h *Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages = append(s.pages, h)
	var st *policy.RunState
	if s.st.Run != "" {
		st = s.st.Clone()
	}
	h.hub.reset(h.cfg.Plan, st, nil)
}

func (s *Store) unsubscribe(h *Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages = slices.DeleteFunc(s.pages, func(p *Handler) bool { return p == h })
}
