package guardrail

import "sync"

// maxCachedPaths bounds the paths a pathCache remembers.
const maxCachedPaths = 1 << 14

// pathCache remembers what a pure function of a path returned, for up to
// maxCachedPaths paths; beyond them it computes every time. It is safe for
// concurrent use. A map under a read-write lock rather than a sync.Map: a
// lookup in a full sync.Map chases several pointers, each a likely cache
// miss, and a guard is rarely used by many goroutines at once.
type pathCache[T any] struct {
	mu sync.RWMutex
	m  map[string]T
}

// get returns f(path), computed once per path while there is room.
func (c *pathCache[T]) get(path string, f func(string) T) T {
	c.mu.RLock()
	v, ok := c.m[path]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = f(path)
	c.mu.Lock()
	if len(c.m) < maxCachedPaths {
		if c.m == nil {
			c.m = make(map[string]T)
		}
		c.m[path] = v
	}
	c.mu.Unlock()
	return v
}
