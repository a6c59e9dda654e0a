package guardrail

import (
	"sync"
	"sync/atomic"
)

// maxCachedPaths bounds the paths a pathCache remembers.
const maxCachedPaths = 1 << 14

// pathCache remembers what a pure function of a path returned, for up to
// maxCachedPaths paths; beyond them it computes every time. It is safe for
// concurrent use.
type pathCache[T any] struct {
	m sync.Map
	n atomic.Int64
}

// get returns f(path), computed once per path while there is room.
func (c *pathCache[T]) get(path string, f func(string) T) T {
	if v, ok := c.m.Load(path); ok {
		return v.(T)
	}
	v := f(path)
	if c.n.Add(1) <= maxCachedPaths {
		c.m.Store(path, v)
	}
	return v
}
