package loop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/harnish/harnish/loop/policy"
)

// AutoApprove is a [Gate] that approves every milestone, for unattended
// runs that a person has already signed off (the CLI's --yes).
type AutoApprove struct{}

// Decide approves.
func (AutoApprove) Decide(context.Context, *GateRequest) (*policy.GateDecision, error) {
	return &policy.GateDecision{Verdict: policy.Approve, By: "auto"}, nil
}

// TerminalGate is a [Gate] that asks a person on a terminal: it writes the
// milestone and its checklist to Out and reads y (approve), n (reject) or an
// empty line or end of input (defer) from In.
// A read still waiting when ctx ends is abandoned.
type TerminalGate struct {
	In  io.Reader
	Out io.Writer

	r *bufio.Reader
}

// Decide asks and waits for the answer, or for ctx.
func (p *TerminalGate) Decide(ctx context.Context, req *GateRequest) (*policy.GateDecision, error) {
	fmt.Fprintf(p.Out, "\nMilestone: phase %s (%s) is done.\n", req.Phase, req.Title)
	if req.Summary != "" {
		fmt.Fprintln(p.Out, req.Summary)
	}
	if len(req.Manual) > 0 {
		fmt.Fprintln(p.Out, "Check by hand before approving:")
		for _, item := range req.Manual {
			fmt.Fprintf(p.Out, "  [ ] %s\n", item)
		}
	}
	next := "finish"
	if req.Next != "" {
		next = "go on to phase " + req.Next
	}
	fmt.Fprintf(p.Out, "Approve and %s? [y = approve, n = reject, enter = decide later] ", next)
	if p.r == nil {
		p.r = bufio.NewReader(p.In)
	}
	answer := make(chan string, 1)
	go func() {
		line, _ := p.r.ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case a := <-answer:
		switch a {
		case "y", "yes":
			return &policy.GateDecision{Verdict: policy.Approve, By: "terminal"}, nil
		case "n", "no":
			return &policy.GateDecision{Verdict: policy.Reject, By: "terminal"}, nil
		}
		return &policy.GateDecision{Verdict: policy.Defer, By: "terminal"}, nil
	}
}

// ChannelGate is a [Gate] for embedding hosts: each milestone is sent on
// Requests with a reply channel, and the host answers on it when a person
// (or a rule of its own) decides.
type ChannelGate struct {
	Requests chan<- GateAsk
}

// GateAsk is a milestone a [ChannelGate] hands to its host. Reply takes
// exactly one decision.
type GateAsk struct {
	Request *GateRequest
	Reply   chan<- policy.GateDecision
}

// Decide sends the milestone to the host and waits for its decision, or for ctx.
func (c ChannelGate) Decide(ctx context.Context, req *GateRequest) (*policy.GateDecision, error) {
	reply := make(chan policy.GateDecision, 1)
	select {
	case c.Requests <- GateAsk{Request: req, Reply: reply}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	select {
	case d := <-reply:
		return &d, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}
