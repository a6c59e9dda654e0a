package schema_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/schema"
)

func TestError(t *testing.T) {
	cause := errors.New("exit status 1")
	sentinels := []error{schema.ErrCrashed, schema.ErrTimeout, schema.ErrProtocol, schema.ErrUnavailable}
	type result struct {
		Message   string
		Matches   []bool // errors.Is against each sentinel, in order
		Retryable bool
		Cause     bool
	}
	tests := []struct {
		name string
		err  *schema.Error
		want result
	}{
		{"zero kind is crashed", &schema.Error{Err: cause}, result{"crashed: exit status 1", []bool{true, false, false, false}, true, true}},
		{"crashed, named", &schema.Error{Component: `plugin "msvc"`, Kind: schema.KindCrashed}, result{`plugin "msvc": crashed`, []bool{true, false, false, false}, true, false}},
		{"timeout with check", &schema.Error{Kind: schema.KindTimeout, Check: "go test ./...", Err: context.DeadlineExceeded},
			result{`timeout: check "go test ./...": context deadline exceeded`, []bool{false, true, false, false}, true, false}},
		{"protocol", &schema.Error{Kind: schema.KindProtocol, Err: cause}, result{"protocol: exit status 1", []bool{false, false, true, false}, true, true}},
		{"protocol, said not retryable", &schema.Error{Kind: schema.KindProtocol, NonRetryable: true}, result{"protocol", []bool{false, false, true, false}, false, false}},
		{"unavailable is never retryable", &schema.Error{Kind: schema.KindUnavailable, Err: cause}, result{"unavailable: exit status 1", []bool{false, false, false, true}, false, true}},
		{"unknown kind", &schema.Error{Kind: "weird"}, result{"weird", []bool{false, false, false, false}, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("attempt 2: %w", tt.err)
			got := result{Message: tt.err.Error(), Retryable: schema.Retryable(wrapped, false), Cause: errors.Is(wrapped, cause)}
			for _, s := range sentinels {
				got.Matches = append(got.Matches, errors.Is(wrapped, s))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryablePlain(t *testing.T) {
	plain := errors.New("x")
	for _, tc := range []struct {
		err       error
		otherwise bool
		want      bool
	}{
		{nil, true, false},
		{plain, true, true},
		{plain, false, false},
		{fmt.Errorf("w: %w", &schema.Error{Kind: schema.KindTimeout, Err: context.Canceled}), false, true}, // the typed error decides over its cause
	} {
		if got := schema.Retryable(tc.err, tc.otherwise); got != tc.want {
			t.Errorf("Retryable(%v, %t) = %t, want %t", tc.err, tc.otherwise, got, tc.want)
		}
	}
}
