package temporal

import (
	"cmp"
	"context"
	"strings"
	"time"
)

// What a worker keeps of a run (its components, its record in the tree,
// the plan it fetched) it drops when the run ends: the workflow's last
// activity, End, says so to the worker that takes it. A worker that did
// not take it drops them once they go unused for IdleAfter (a run whose
// activities went to other workers, or whose End was lost).

// defaultIdleAfter is Activities.IdleAfter's zero value.
const defaultIdleAfter = 30 * time.Minute

// End drops what this worker keeps of the run ref names: it closes its
// components and its record, and forgets its plan unless the host added
// it or another run uses it. The workflow calls it when the run ends.
func (a *Activities) End(ctx context.Context, ref Ref) error {
	key := runKey(ref)
	a.evict(func(k string, _ time.Time) bool { return k == key })
	return nil
}

// touch records that the run's components are in use now, and, at most
// once a minute, drops the runs idle for longer than IdleAfter.
func (a *Activities) touch(key string) {
	now := a.clock()
	a.mu.Lock()
	if a.used == nil {
		a.used = map[string]time.Time{}
	}
	a.used[key] = now
	sweep := now.Sub(a.swept) >= time.Minute
	if sweep {
		a.swept = now
	}
	a.mu.Unlock()
	if sweep {
		idle := cmp.Or(a.IdleAfter, defaultIdleAfter)
		a.evict(func(_ string, used time.Time) bool { return now.Sub(used) > idle })
	}
}

// evict closes and forgets the runs drop picks (by key and last use), and
// the plans fetched for them alone.
func (a *Activities) evict(drop func(key string, used time.Time) bool) {
	var closers []func() error
	a.mu.Lock()
	for k, c := range a.built {
		if drop(k, a.used[k]) {
			if c.Closer != nil {
				closers = append(closers, c.Closer.Close)
			}
			delete(a.built, k)
			delete(a.used, k)
		}
	}
	for k, f := range a.followers {
		if drop(k, a.used[k]) {
			closers = append(closers, f.close)
			delete(a.followers, k)
			delete(a.used, k)
		}
	}
	for d := range a.fetched {
		inUse := false
		for k := range a.built {
			inUse = inUse || strings.Contains(k, "\x00"+d+"\x00")
		}
		if !inUse {
			delete(a.plans, d)
			delete(a.fetched, d)
		}
	}
	a.mu.Unlock()
	for _, c := range closers {
		if err := c(); err != nil {
			a.log().Warn("temporal: close what a run used", "err", err)
		}
	}
}

func (a *Activities) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// Cached reports how many runs' components and records, and how many
// plans, the worker keeps now.
func (a *Activities) Cached() (runs, plans int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]bool{}
	for k := range a.built {
		seen[k] = true
	}
	for k := range a.followers {
		seen[k] = true
	}
	return len(seen), len(a.plans)
}
