package acp

import (
	"context"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
)

// MaxUpdateWait bounds how long a permission request waits for the session
// updates the agent sent before it: an update the SDK drops (its params do
// not decode) never reaches the session, and must not hold the agent.
const MaxUpdateWait = 2 * time.Second

// barrier keeps the agent's order between its session updates and its
// permission requests. The SDK hands a request to its handler at once, on
// a goroutine of its own, while notifications wait in a queue for theirs,
// so a permission request can overtake the updates the agent sent ahead of
// it: an edit call whose file and diff came in a tool_call update would be
// judged on less than the agent showed, or refused as unjudgeable. The
// checker counts the updates it passes to the SDK and notes, for each
// permission request, how many came before it; the request waits until the
// session has taken in that many.
type barrier struct {
	mu      sync.Mutex
	sent    uint64                       // session updates passed to the SDK
	handled uint64                       // session updates the session took in
	wake    chan struct{}                // closed and replaced when handled grows
	asks    map[acpsdk.ToolCallId]uint64 // tool call → updates sent before its request
}

func newBarrier() *barrier {
	return &barrier{wake: make(chan struct{}), asks: map[acpsdk.ToolCallId]uint64{}}
}

// maxAsks bounds the requests noted and not yet waited for: an agent that
// asks about calls and never hears back cannot grow the map.
const maxAsks = 1024

// update notes a session update on its way to the SDK.
func (b *barrier) update() {
	b.mu.Lock()
	b.sent++
	b.mu.Unlock()
}

// ask notes a permission request for call on its way to the SDK.
func (b *barrier) ask(call acpsdk.ToolCallId) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.asks) >= maxAsks {
		clear(b.asks) // the waits that lose their mark fall back on the bound
	}
	b.asks[call] = b.sent
}

// took notes that the session took in an update.
func (b *barrier) took() {
	b.mu.Lock()
	b.handled++
	close(b.wake)
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// wait returns once the session has taken in every update sent before the
// permission request for call, or after MaxUpdateWait, or when ctx is done.
func (b *barrier) wait(ctx context.Context, call acpsdk.ToolCallId) {
	b.mu.Lock()
	target, ok := b.asks[call]
	delete(b.asks, call)
	b.mu.Unlock()
	if !ok {
		return
	}
	timeout := time.NewTimer(MaxUpdateWait)
	defer timeout.Stop()
	for {
		b.mu.Lock()
		done, wake := b.handled >= target, b.wake
		b.mu.Unlock()
		if done {
			return
		}
		select {
		case <-wake:
		case <-timeout.C:
			return
		case <-ctx.Done():
			return
		}
	}
}
