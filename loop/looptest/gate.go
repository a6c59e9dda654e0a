package looptest

import (
	"context"
	"sync"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// Gate is a scripted [loop.Gate]: the verdicts, one per gate reached, in
// order; past the script it approves. It records the requests.
type Gate struct {
	Verdicts []policy.Verdict
	// Panic panics inside Decide.
	Panic bool

	mu       sync.Mutex
	requests []*loop.GateRequest
}

// Decide answers with the next scripted verdict.
func (g *Gate) Decide(ctx context.Context, req *loop.GateRequest) (*policy.GateDecision, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, req)
	if g.Panic {
		panic("looptest: scripted gate panic")
	}
	v := policy.Approve
	if n := len(g.requests); n <= len(g.Verdicts) {
		v = g.Verdicts[n-1]
	}
	return &policy.GateDecision{Verdict: v, By: "looptest"}, nil
}

// Requests returns the requests Decide received, in order.
func (g *Gate) Requests() []*loop.GateRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*loop.GateRequest(nil), g.requests...)
}
