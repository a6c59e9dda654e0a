package hookcmd_test

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/cmd/internal/hookcmd"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/hooksock"
)

func TestSimpleArgs(t *testing.T) {
	tests := []struct {
		args        []string
		agent, plan string
		ok          bool
	}{
		{args: []string{"--agent", "codex"}, agent: "codex", ok: true},
		{args: []string{"--agent", "claude", "--plan", "/p.yaml"}, agent: "claude", plan: "/p.yaml", ok: true},
		{args: []string{"-plan=/p.yaml", "-agent=codex"}, agent: "codex", plan: "/p.yaml", ok: true},
		{args: []string{"--agent="}, ok: true},
		{args: nil},
		{args: []string{"--plan", "/p.yaml"}},
		{args: []string{"--agent", "codex", "--agent", "claude"}},
		{args: []string{"--agent", "codex", "extra"}},
		{args: []string{"--agent"}},
		{args: []string{"---agent", "codex"}},
		{args: []string{"--task", "T1", "--agent", "codex"}},
		{args: []string{"-h"}},
		{args: []string{"--", "--agent", "codex"}},
	}
	for _, tt := range tests {
		agent, plan, ok := hookcmd.SimpleArgs(tt.args)
		if agent != tt.agent || plan != tt.plan || ok != tt.ok {
			t.Errorf("%q: %q, %q, %v; want %q, %q, %v", tt.args, agent, plan, ok, tt.agent, tt.plan, tt.ok)
		}
	}
}

// A socket that is there and fails blocks the call, and the hook log says
// the call could not be judged; a socket that is gone leaves the call to
// the hook, which answers as it does outside a run.
func TestSocketFails(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "hooks.jsonl")
	t.Setenv(executor.EnvWorkDir, dir)
	t.Setenv(executor.EnvTaskID, "T1")
	t.Setenv(guardrail.EnvHookLog, logPath)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	call := `{"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"` + dir + `"}`
	t.Setenv(hooksock.EnvSocket, sock)
	var stderr bytes.Buffer
	code := hookcmd.Run([]string{"pre-tool-use", "--agent", "codex"}, strings.NewReader(call), new(bytes.Buffer), &stderr)
	if code != hook.ExitBlock || !strings.HasPrefix(stderr.String(), "harnish: cannot judge the tool call: the run's hook socket: ") {
		t.Errorf("a socket that hangs up: exit %d, %q", code, stderr.String())
	}
	recs, err := guardrail.ReadHookLog(logPath)
	if err != nil || len(recs) != 1 || recs[0].Decision.Rule != hook.RuleError || recs[0].Decision.Level != guardrail.Hard || recs[0].Agent != "codex" {
		t.Errorf("hook log: %v, %+v; want one hard %s record", err, recs, hook.RuleError)
	}

	// Gone: the hook judges itself, as with no socket at all.
	answer := func(env string) (int, string) {
		t.Setenv(hooksock.EnvSocket, env)
		var stderr bytes.Buffer
		code := hookcmd.Run([]string{"pre-tool-use", "--agent", "codex"}, strings.NewReader(`{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`), new(bytes.Buffer), &stderr)
		return code, stderr.String()
	}
	wantCode, wantErr := answer("")
	if wantCode != hook.ExitBlock {
		t.Fatalf("rm -rf /: exit %d", wantCode)
	}
	gotCode, gotErr := answer(filepath.Join(dir, "gone"))
	if diff := cmp.Diff([]any{wantCode, wantErr}, []any{gotCode, gotErr}); diff != "" {
		t.Errorf("with the socket gone (-no socket +gone):\n%s", diff)
	}
}
