package verify_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestFindingKey(t *testing.T) {
	base := verify.Finding{Severity: verify.SeverityCritical, File: "calc/calc.go", Line: 10, Message: "Unchecked error from Close."}
	tests := []struct {
		name string
		a, b verify.Finding
		same bool
	}{
		{"identical", base, base, true},
		{"line moved", base, with(base, func(f *verify.Finding) { f.Line = 42 }), true},
		{"case, spacing and final period", base, with(base, func(f *verify.Finding) { f.Message = "  unchecked   error\tfrom close " }), true},
		{"dot-slash and backslash paths", with(base, func(f *verify.Finding) { f.File = `.\calc\calc.go` }), with(base, func(f *verify.Finding) { f.File = "./calc/calc.go" }), true},
		{"digits in message", with(base, func(f *verify.Finding) { f.Message = "function is 81 lines long" }), with(base, func(f *verify.Finding) { f.Message = "function is 95 lines long" }), true},
		{"rule decides over message", with(base, func(f *verify.Finding) { f.Rule = "errcheck"; f.Message = "a" }), with(base, func(f *verify.Finding) { f.Rule = "ErrCheck "; f.Message = "b" }), true},
		{"other severity", base, with(base, func(f *verify.Finding) { f.Severity = verify.SeverityHigh }), false},
		{"other file", base, with(base, func(f *verify.Finding) { f.File = "calc/other.go" }), false},
		{"other message", base, with(base, func(f *verify.Finding) { f.Message = "Unchecked error from Write." }), false},
		{"other rule", with(base, func(f *verify.Finding) { f.Rule = "errcheck" }), with(base, func(f *verify.Finding) { f.Rule = "gosec" }), false},
		{"rule versus no rule", with(base, func(f *verify.Finding) { f.Rule = "errcheck" }), base, false},
		{"no file versus file", with(base, func(f *verify.Finding) { f.File = "" }), base, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ka, kb := tt.a.Key(), tt.b.Key()
			if (ka == kb) != tt.same {
				t.Errorf("keys %q and %q: equal = %t, want %t", ka, kb, ka == kb, tt.same)
			}
		})
	}
}

func TestFindingKeyText(t *testing.T) {
	tests := []struct {
		f    verify.Finding
		want string
	}{
		{verify.Finding{Severity: verify.SeverityLow, File: "a/b/../c.go", Message: "Too long!!"}, "low|a/c.go|msg:too long"},
		{verify.Finding{Severity: verify.SeverityHigh, Message: "x", Rule: "R1"}, "high||rule:r1"},
		{verify.Finding{Message: "no severity"}, "severity(0)||msg:no severity"},
	}
	for _, tt := range tests {
		if got := tt.f.Key(); got != tt.want {
			t.Errorf("Key() = %q, want %q", got, tt.want)
		}
	}
}

func TestKeys(t *testing.T) {
	f1 := verify.Finding{Severity: verify.SeverityCritical, File: "b.go", Line: 1, Message: "x"}
	f2 := verify.Finding{Severity: verify.SeverityCritical, File: "a.go", Line: 1, Message: "y"}
	tests := []struct {
		name string
		in   []verify.Finding
		want []string
	}{
		{"none", nil, []string{}},
		{"sorted", []verify.Finding{f1, f2}, []string{"critical|a.go|msg:y", "critical|b.go|msg:x"}},
		{"deduplicated", []verify.Finding{f1, f2, with(f1, func(f *verify.Finding) { f.Line = 7 })}, []string{"critical|a.go|msg:y", "critical|b.go|msg:x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verify.Keys(tt.in)); diff != "" {
				t.Errorf("Keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReviewCritical(t *testing.T) {
	crit := verify.Finding{Severity: verify.SeverityCritical, File: "a.go", Message: "c"}
	high := verify.Finding{Severity: verify.SeverityHigh, File: "a.go", Message: "h"}
	tests := []struct {
		name string
		r    *verify.Review
		want []verify.Finding
	}{
		{"nil review", nil, nil},
		{"no findings", &verify.Review{}, nil},
		{"none critical", &verify.Review{Findings: []verify.Finding{high}}, nil},
		{"mixed", &verify.Review{Findings: []verify.Finding{high, crit, high, crit}}, []verify.Finding{crit, crit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.r.Critical()); diff != "" {
				t.Errorf("Critical (-want +got):\n%s", diff)
			}
		})
	}
}

func with(f verify.Finding, change func(*verify.Finding)) verify.Finding {
	change(&f)
	return f
}
