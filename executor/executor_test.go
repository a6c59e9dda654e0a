package executor_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
)

func TestUsageAdd(t *testing.T) {
	tests := []struct {
		name string
		a, b executor.Usage
		want executor.Usage
	}{
		{"zero", executor.Usage{}, executor.Usage{}, executor.Usage{}},
		{"zero plus some", executor.Usage{}, executor.Usage{InputTokens: 3, OutputTokens: 4, CostUSD: 1.5}, executor.Usage{InputTokens: 3, OutputTokens: 4, CostUSD: 1.5}},
		{"both", executor.Usage{InputTokens: 10, OutputTokens: 20, CostUSD: 0.25}, executor.Usage{InputTokens: 1, OutputTokens: 2, CostUSD: 0.5}, executor.Usage{InputTokens: 11, OutputTokens: 22, CostUSD: 0.75}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.a.Add(tt.b)); diff != "" {
				t.Errorf("Add (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.b.Add(tt.a)); diff != "" {
				t.Errorf("Add is not commutative (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStatusValid(t *testing.T) {
	tests := []struct {
		s    executor.Status
		want bool
	}{
		{executor.StatusDone, true},
		{executor.StatusBlocked, true},
		{"", false},
		{"Done", false},
		{"failed", false},
	}
	for _, tt := range tests {
		if got := tt.s.Valid(); got != tt.want {
			t.Errorf("Status(%q).Valid() = %t, want %t", tt.s, got, tt.want)
		}
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain error counts as a crash", errors.New("boom"), true},
		{"deadline", context.DeadlineExceeded, true},
		{"canceled", fmt.Errorf("run: %w", context.Canceled), false},
		{"wrapped unavailable", fmt.Errorf("start: %w", &executor.Error{Kind: executor.KindUnavailable}), false},
		{"typed error decides over its cause", &executor.Error{Kind: executor.KindTimeout, Err: context.Canceled}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := executor.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %t, want %t", tt.err, got, tt.want)
			}
		})
	}
}
