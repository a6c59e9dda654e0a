package temporal

import (
	"context"
	"fmt"
	"testing"

	"go.temporal.io/api/serviceerror"
)

// TestBusy: Start asks again only for a server that did not answer in
// time or could not take the call, never for a refusal.
func TestBusy(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{serviceerror.NewDeadlineExceeded("context deadline exceeded"), true},
		{fmt.Errorf("start: %w", serviceerror.NewUnavailable("connection refused")), true},
		{serviceerror.NewResourceExhausted(0, "rate limit"), true},
		{fmt.Errorf("rpc: %w", context.DeadlineExceeded), true},
		{serviceerror.NewInvalidArgument("bad input"), false},
		{serviceerror.NewNotFound("no namespace"), false},
		{context.Canceled, false},
	} {
		if got := busy(tc.err); got != tc.want {
			t.Errorf("busy(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}
