package verify_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestParseVetJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []verify.Finding
		wantErr bool
	}{
		{"nothing", "", nil, false},
		{"headers and two packages",
			"# example.com/a\n{\"example.com/a\": {\"unreachable\": [{\"posn\": \"/src/a/a.go:9:2\", \"message\": \"unreachable code\"}]}}\n" +
				"# example.com/b\n{\"example.com/b\": {\"lostcancel\": [{\"posn\": \"/src/b/b.go:3:4\", \"message\": \"the cancel function is not used\"}], \"x\": []}}\n",
			[]verify.Finding{
				{Severity: verify.SeverityLow, File: "a/a.go", Line: 9, Message: "unreachable code", Rule: "vet/unreachable"},
				{Severity: verify.SeverityHigh, File: "b/b.go", Line: 3, Message: "the cancel function is not used", Rule: "vet/lostcancel"},
			}, false},
		{"outside the directory", `{"p": {"assign": [{"posn": "/elsewhere/x.go:1:1", "message": "self-assignment of x"}]}}`,
			[]verify.Finding{{Severity: verify.SeverityMedium, File: "/elsewhere/x.go", Line: 1, Message: "self-assignment of x", Rule: "vet/assign"}}, false},
		{"analyzer error", `{"p": {"printf": {"error": "type-checking failed"}}}`, nil, true},
		{"not JSON", "vet: something broke\n", nil, true},
		{"wrong shape", `{"p": {"printf": [1]}}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verify.ParseVetJSON([]byte(tt.in), "/src")
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %t", err, tt.wantErr)
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

// FuzzParseVetJSON: no panic; findings are valid and sorted.
func FuzzParseVetJSON(f *testing.F) {
	f.Add([]byte(`{"p": {"printf": [{"posn": "/src/a.go:1:2", "message": "m"}]}}`))
	f.Add([]byte("# p\n{\"p\": {\"a\": {\"error\": \"e\"}}}"))
	f.Add([]byte(`{"p": {"x": [{"posn": "a.go:x:1"}]}}{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := verify.ParseVetJSON(data, "/src")
		if err != nil {
			if !errors.Is(err, verify.ErrProtocol) {
				t.Fatalf("error %v does not wrap ErrProtocol", err)
			}
			return
		}
		for i, f := range fs {
			if !f.Severity.Valid() || f.Line < 0 {
				t.Fatalf("invalid finding %+v", f)
			}
			if i > 0 && (fs[i-1].File > f.File || (fs[i-1].File == f.File && fs[i-1].Line > f.Line)) {
				t.Fatalf("findings out of order: %+v before %+v", fs[i-1], f)
			}
		}
	})
}
