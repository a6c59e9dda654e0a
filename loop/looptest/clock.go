package looptest

import (
	"sync"
	"time"
)

// Clock is a fake clock for [loop.Config.Now]: each reading advances it by
// Step (one second when zero), so events and durations are reproducible.
type Clock struct {
	mu sync.Mutex
	t  time.Time
	// Step is how far each reading moves the clock.
	Step time.Duration
}

// Epoch is where a zero Clock starts.
var Epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Now advances the clock by Step and returns it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.t.IsZero() {
		c.t = Epoch
	}
	step := c.Step
	if step == 0 {
		step = time.Second
	}
	c.t = c.t.Add(step)
	return c.t
}
