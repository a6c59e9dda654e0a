package looptest

import (
	"fmt"
	"sync"

	"github.com/harnish/harnish/loop"
)

// Recorder is a [loop.Observer] that keeps every event. It is safe for
// concurrent use.
type Recorder struct {
	mu     sync.Mutex
	events []loop.Event
}

// Observe records e.
func (r *Recorder) Observe(e loop.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns the events recorded, in order.
func (r *Recorder) Events() []loop.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]loop.Event(nil), r.events...)
}

// Lines returns the events as short lines that compare well in a table test:
// the type, then the task and attempt ("T1#2"), the fingerprint and the
// outcome where they are set.
func (r *Recorder) Lines() []string {
	var out []string
	for _, e := range r.Events() {
		s := string(e.Type)
		if e.Task != "" {
			s += " " + e.Task
			if e.Attempt > 0 {
				s += fmt.Sprintf("#%d", e.Attempt)
			}
		} else if e.Phase != "" {
			s += " " + e.Phase
		}
		if e.Fingerprint != "" {
			s += " " + e.Fingerprint
		}
		if e.Outcome != "" {
			s += " " + string(e.Outcome)
		}
		out = append(out, s)
	}
	return out
}
