package verify_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestError(t *testing.T) {
	cause := errors.New("plugin exited")
	sentinels := []error{verify.ErrCrashed, verify.ErrTimeout, verify.ErrProtocol, verify.ErrUnavailable}
	type result struct {
		Message   string
		Matches   []bool
		Retryable bool
	}
	tests := []struct {
		name string
		err  *verify.Error
		want result
	}{
		{"zero kind is crashed", &verify.Error{Err: cause}, result{"verify: crashed: plugin exited", []bool{true, false, false, false}, true}},
		{"timeout with check", &verify.Error{Kind: verify.KindTimeout, Check: "go test ./...", Err: context.DeadlineExceeded}, result{`verify: timeout: check "go test ./...": context deadline exceeded`, []bool{false, true, false, false}, true}},
		{"protocol", &verify.Error{Kind: verify.KindProtocol}, result{"verify: protocol", []bool{false, false, true, false}, false}},
		{"unavailable", &verify.Error{Kind: verify.KindUnavailable, Err: cause}, result{"verify: unavailable: plugin exited", []bool{false, false, false, true}, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("task T1: %w", tt.err)
			got := result{Message: tt.err.Error(), Retryable: verify.IsRetryable(wrapped)}
			for _, s := range sentinels {
				got.Matches = append(got.Matches, errors.Is(wrapped, s))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.err.Err != nil && !errors.Is(wrapped, tt.err.Err) {
				t.Errorf("cause not reachable through %v", wrapped)
			}
		})
	}
}

func TestIsRetryablePlain(t *testing.T) {
	for _, err := range []error{nil, errors.New("x"), fmt.Errorf("w: %w", verify.ErrNoChecks)} {
		if verify.IsRetryable(err) {
			t.Errorf("IsRetryable(%v) = true, want false", err)
		}
	}
}

func TestFingerprint(t *testing.T) {
	a := verify.Fingerprint{Class: verify.ClassTest, Hash: "ab12", Summary: "TestDivide failed"}
	tests := []struct {
		name   string
		f, g   verify.Fingerprint
		same   bool
		str    string
		isZero bool
	}{
		{"equal, other summary", a, verify.Fingerprint{Class: verify.ClassTest, Hash: "ab12", Summary: "reworded"}, true, "test:ab12", false},
		{"other hash", a, verify.Fingerprint{Class: verify.ClassTest, Hash: "cd34"}, false, "test:ab12", false},
		{"other class", a, verify.Fingerprint{Class: verify.ClassCompile, Hash: "ab12"}, false, "test:ab12", false},
		{"zero is never the same", verify.Fingerprint{}, verify.Fingerprint{}, false, "none", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.Same(tt.g); got != tt.same {
				t.Errorf("Same = %t, want %t", got, tt.same)
			}
			if got := tt.f.String(); got != tt.str {
				t.Errorf("String = %q, want %q", got, tt.str)
			}
			if got := tt.f.IsZero(); got != tt.isZero {
				t.Errorf("IsZero = %t, want %t", got, tt.isZero)
			}
		})
	}
}
