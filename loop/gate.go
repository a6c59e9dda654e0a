package loop

import (
	"context"

	"github.com/harnish/harnish/loop/policy"
)

// Gate decides at a milestone (the boundary after a phase) whether the run
// goes on. Implementations: approve everything, ask on a terminal, wait on a
// channel for an embedding host, a file or HTTP hook, a Temporal signal.
//
// Decide is called once per gate, never concurrently for one run. An error
// ends the run with outcome error; it is not a rejection.
type Gate interface {
	Decide(ctx context.Context, req *GateRequest) (*policy.GateDecision, error)
}

// GateRequest describes the milestone reached.
type GateRequest struct {
	Run   string // run ID
	Plan  string // plan name
	Phase string // the phase just finished
	Title string // its title
	Next  string // the phase that starts on approval
	// Manual is the phase's checklist for a person to go through.
	Manual []string
	// Summary tells what the phase did: tasks done, files changed.
	Summary string
}
