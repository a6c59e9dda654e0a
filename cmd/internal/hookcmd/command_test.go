package hookcmd_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/harnish/harnish/cmd/internal/hookcmd"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
)

// TestRun: what "harnish hook" adds to package hook: its help, and the
// usage when the event is missing; the rest is hook.Handler's.
func TestRun(t *testing.T) {
	for _, k := range []string{guardrail.EnvHookLog, executor.EnvWorkDir, executor.EnvTaskID} {
		t.Setenv(k, "")
	}
	var usage bytes.Buffer
	hookcmd.Usage(&usage)
	tests := []struct {
		name                string
		args                []string
		stdin               string
		wantCode            int
		wantStdout, wantErr string // wantErr: a prefix of standard error
	}{
		{name: "help", args: []string{"--help"}, wantStdout: usage.String()},
		{name: "no event", wantCode: 2, wantErr: "harnish hook: want pre-tool-use or stop\nUsage: harnish hook pre-tool-use|stop --agent claude|codex\n"},
		{name: "another event", args: []string{"post-tool-use"}, wantCode: 2, wantErr: "harnish hook: want pre-tool-use or stop\n"},
		{name: "pre-tool-use", args: []string{"pre-tool-use", "--agent", "claude"}, wantCode: 2,
			stdin:   `{"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"cwd":"` + os.TempDir() + `"}`,
			wantErr: "harnish guardrail fs.recursive-delete blocked this: "},
		{name: "stop", args: []string{"stop", "--agent", "codex"}, stdin: `{"cwd":"` + t.TempDir() + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := hookcmd.Run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.wantCode || stdout.String() != tt.wantStdout || !strings.HasPrefix(stderr.String(), tt.wantErr) ||
				tt.wantErr == "" && stderr.Len() > 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(),
					tt.wantCode, tt.wantStdout, tt.wantErr)
			}
		})
	}
}
