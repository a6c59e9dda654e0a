package verify_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in      string
		want    verify.Severity
		wantErr bool
	}{
		{"critical", verify.SeverityCritical, false},
		{"high", verify.SeverityHigh, false},
		{"medium", verify.SeverityMedium, false},
		{"low", verify.SeverityLow, false},
		{"  Critical\n", verify.SeverityCritical, false},
		{"LOW", verify.SeverityLow, false},
		{"", 0, true},
		{"severe", 0, true},
		{"crit", 0, true},
		{"1", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := verify.ParseSeverity(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("ParseSeverity(%q) = %v, %v; want %v, error %t", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil && !errors.Is(err, verify.ErrInvalidSeverity) {
				t.Errorf("error %v does not wrap ErrInvalidSeverity", err)
			}
		})
	}
}

func TestSeverityText(t *testing.T) {
	tests := []struct {
		sev     verify.Severity
		str     string
		valid   bool
		wantErr bool
	}{
		{verify.SeverityLow, "low", true, false},
		{verify.SeverityMedium, "medium", true, false},
		{verify.SeverityHigh, "high", true, false},
		{verify.SeverityCritical, "critical", true, false},
		{0, "severity(0)", false, true},
		{5, "severity(5)", false, true},
		{-1, "severity(-1)", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.str, func(t *testing.T) {
			if got := tt.sev.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := tt.sev.Valid(); got != tt.valid {
				t.Errorf("Valid() = %t, want %t", got, tt.valid)
			}
			b, err := tt.sev.MarshalText()
			if (err != nil) != tt.wantErr {
				t.Fatalf("MarshalText() error = %v, want error %t", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, verify.ErrInvalidSeverity) {
					t.Errorf("error %v does not wrap ErrInvalidSeverity", err)
				}
				return
			}
			var back verify.Severity
			if err := back.UnmarshalText(b); err != nil || back != tt.sev {
				t.Errorf("round trip of %q = %v, %v", b, back, err)
			}
		})
	}
}

func TestSeverityOrder(t *testing.T) {
	order := []verify.Severity{verify.SeverityLow, verify.SeverityMedium, verify.SeverityHigh, verify.SeverityCritical}
	for i := 1; i < len(order); i++ {
		if !(order[i-1] < order[i]) {
			t.Errorf("%v < %v is false", order[i-1], order[i])
		}
	}
}

func TestFindingJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    verify.Review
		wantErr bool
	}{
		{
			name: "reviewer protocol",
			in:   `{"findings":[{"severity":"high","file":"a.go","line":3,"message":"m","rule":"r1"},{"severity":"low","message":"whole change"}]}`,
			want: verify.Review{Findings: []verify.Finding{
				{Severity: verify.SeverityHigh, File: "a.go", Line: 3, Message: "m", Rule: "r1"},
				{Severity: verify.SeverityLow, Message: "whole change"},
			}},
		},
		{name: "no findings", in: `{"findings":[]}`, want: verify.Review{Findings: []verify.Finding{}}},
		{name: "unknown severity", in: `{"findings":[{"severity":"blocker","message":"m"}]}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got verify.Review
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal error = %v, want error %t", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back verify.Review
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
