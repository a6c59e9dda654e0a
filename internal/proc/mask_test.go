package proc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/proc"
)

func TestMaskArgv(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"nothing secret", []string{"go", "test", "-run=TestToken", "./..."}, []string{"go", "test", "-run=TestToken", "./..."}},
		{"flag with =", []string{"tool", "--token=abc123", "--api-key=k"}, []string{"tool", "--token=***", "--api-key=***"}},
		{"flag then value", []string{"tool", "--password", "hunter2", "next"}, []string{"tool", "--password", "***", "next"}},
		{"flag then another flag", []string{"tool", "--token", "--verbose"}, []string{"tool", "--token", "--verbose"}},
		{"env assignment", []string{"env", "GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=y", "HOME=/root"}, []string{"env", "GITHUB_TOKEN=***", "AWS_SECRET_ACCESS_KEY=***", "HOME=/root"}},
		{"password= in a script", []string{"sh", "-c", "login password=s3cret && run"}, []string{"sh", "-c", "login password=*** && run"}},
		{"quoted value", []string{"sh", "-c", `curl -H 'x' --token="a b" u`}, []string{"sh", "-c", `curl -H 'x' --token=*** u`}},
		{"url user and password", []string{"git", "clone", "https://bob:pa55@example.com/r.git"}, []string{"git", "clone", "https://bob:***@example.com/r.git"}},
		{"url token only", []string{"git", "clone", "https://ghp_abc@github.com/r.git"}, []string{"git", "clone", "https://***@github.com/r.git"}},
		{"url without userinfo", []string{"curl", "https://example.com/a@b"}, []string{"curl", "https://example.com/a@b"}},
		{"bearer header", []string{"curl", "-H", "Authorization: Bearer eyJhbGc.x.y"}, []string{"curl", "-H", "Authorization: ***"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.in...)
			if diff := cmp.Diff(tt.want, proc.MaskArgv(tt.in)); diff != "" {
				t.Errorf("MaskArgv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(in, tt.in); diff != "" {
				t.Errorf("MaskArgv modified its input:\n%s", diff)
			}
		})
	}
}
