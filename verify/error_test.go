package verify_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/harnish/harnish/verify"
)

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
