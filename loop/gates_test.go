package loop_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

func TestPromptGate(t *testing.T) {
	req := &loop.GateRequest{Phase: "api", Title: "Division API", Next: "cli", Manual: []string{"README renders"}}
	for _, tc := range []struct {
		in   string
		want policy.Verdict
	}{
		{"y\n", policy.Approve}, {"YES\n", policy.Approve}, {"n\n", policy.Reject}, {"\n", policy.Defer}, {"", policy.Defer}, {"maybe\n", policy.Defer},
	} {
		var out bytes.Buffer
		d, err := (&loop.TerminalGate{In: strings.NewReader(tc.in), Out: &out}).Decide(context.Background(), req)
		if err != nil || d.Verdict != tc.want {
			t.Errorf("answer %q: %+v, %v; want %s", tc.in, d, err, tc.want)
		}
		want := "\nMilestone: phase api (Division API) is done.\nCheck by hand before approving:\n  [ ] README renders\n" +
			"Approve and go on to phase cli? [y = approve, n = reject, enter = decide later] "
		if diff := cmp.Diff(want, out.String()); diff != "" {
			t.Errorf("prompt (-want +got):\n%s", diff)
		}
	}
}

func TestChannelGate(t *testing.T) {
	asks := make(chan loop.GateAsk)
	g := loop.ChannelGate{Requests: asks}
	go func() {
		ask := <-asks
		ask.Reply <- policy.GateDecision{Verdict: policy.Approve, By: "host:" + ask.Request.Phase}
	}()
	d, err := g.Decide(context.Background(), &loop.GateRequest{Phase: "p1"})
	if err != nil || d.Verdict != policy.Approve || d.By != "host:p1" {
		t.Fatalf("Approve: %+v, %v", d, err)
	}
	cause := errors.New("host shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(cause) })
	if _, err := g.Decide(ctx, &loop.GateRequest{Phase: "p2"}); !errors.Is(err, cause) {
		t.Fatalf("Approve with nobody listening: %v, want the cause", err)
	}
}

func TestAutoApprove(t *testing.T) {
	d, err := loop.AutoApprove{}.Decide(context.Background(), &loop.GateRequest{})
	if err != nil || d.Verdict != policy.Approve {
		t.Fatalf("%+v, %v", d, err)
	}
}
