package verify_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestParseReview(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *verify.Review
		wantErr bool
	}{
		{"no findings", `{"findings": []}`, &verify.Review{Findings: []verify.Finding{}}, false},
		{"findings, extra fields ignored", " \n{\"summary\": \"ok\", \"findings\": [{\"severity\": \"High\", \"file\": \"a.go\", \"line\": 3, \"message\": \"m\", \"rule\": \"r\", \"fix\": \"x\"}]}\n",
			&verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityHigh, File: "a.go", Line: 3, Message: "m", Rule: "r"}}}, false},
		{"empty", "", nil, true},
		{"blank", "  \n", nil, true},
		{"prose", "Looks good to me!", nil, true},
		{"prose around JSON", `Here you go: {"findings": []}`, nil, true},
		{"JSON then prose", `{"findings": []} done`, nil, true},
		{"two objects", `{"findings": []}{"findings": []}`, nil, true},
		{"no findings key", `{"finding": []}`, nil, true},
		{"findings null", `{"findings": null}`, nil, true},
		{"findings not a list", `{"findings": {}}`, nil, true},
		{"a list, not an object", `[]`, nil, true},
		{"bad severity", `{"findings": [{"severity": "blocker", "message": "m"}]}`, nil, true},
		{"no severity", `{"findings": [{"message": "m"}]}`, nil, true},
		{"no message", `{"findings": [{"severity": "low"}]}`, nil, true},
		{"negative line", `{"findings": [{"severity": "low", "message": "m", "line": -1}]}`, nil, true},
		{"truncated", `{"findings": [{"severity": "low", "mess`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verify.ParseReview([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseReview error = %v, want error %t", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, verify.ErrProtocol) {
				t.Errorf("error %v does not wrap ErrProtocol", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseReview: any input is a valid review or a protocol error, never a
// panic; a valid review's findings all have a severity and a message, and
// survive a round trip.
func FuzzParseReview(f *testing.F) {
	for _, s := range []string{`{"findings": []}`, `{"findings": [{"severity": "low", "message": "m", "line": 2, "file": "a"}]}`,
		`{"findings": null}`, `[]`, `{"findings": [{}]}`, "", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := verify.ParseReview(data)
		if err != nil {
			if r != nil || !errors.Is(err, verify.ErrProtocol) {
				t.Fatalf("ParseReview = %v, %v", r, err)
			}
			return
		}
		if r.Findings == nil {
			t.Fatal("nil findings in a valid review")
		}
		for _, fd := range r.Findings {
			if !fd.Severity.Valid() || fd.Message == "" || fd.Line < 0 {
				t.Fatalf("invalid finding accepted: %+v", fd)
			}
		}
	})
}
