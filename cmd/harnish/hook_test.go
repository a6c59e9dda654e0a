package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

// hookCall is a PreToolUse call as Claude Code and Codex send it.
func hookCall(t testing.TB, tool string, input map[string]any, cwd string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/tmp/t.jsonl", "hook_event_name": "PreToolUse",
		"tool_name": tool, "tool_input": input, "cwd": cwd,
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHookPreToolUse(t *testing.T) {
	tree := t.TempDir()
	planned := t.TempDir()
	writeGuardPlan(t, planned, "harnish.yaml", "  packages: {pypi: [requests]}\n  protected: [secrets/]\n")
	explicit := writeGuardPlan(t, t.TempDir(), "other.yaml", "  packages: {npm: [left-pad]}\n")
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "plan.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantErr    string // a prefix of stderr; "" means nothing
		wantStatus int
	}{
		{name: "allowed bash", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "go test ./..."}, tree)},
		{name: "blocked bash", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "rm -rf build"}, tree),
			wantErr: "harnish guardrail fs.recursive-delete blocked this: recursive deletion (rm -rf) can destroy the working tree\n"},
		{name: "codex bash", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "git push --force"}, tree),
			wantErr: "harnish guardrail git.force-push blocked this"},
		{name: "payload names the inner command", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": `bash -c "git reset --hard"`}, tree),
			wantErr: "harnish guardrail git.discard blocked this: git reset --hard discards uncommitted work (in \"git reset --hard\")\n"},
		{name: "write to the state is blocked", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Write", map[string]any{"file_path": filepath.Join(tree, ".harnish", "state.json"), "content": "{}"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "edit outside the tree is not judged", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Edit", map[string]any{"file_path": "/elsewhere/.harnish/x", "old_string": "a", "new_string": "b"}, tree)},
		{name: "apply_patch to the state is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: .harnish/state.json\n@@\n-a\n+b\n*** End Patch\nPATCH"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "apply_patch tool to the state is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: .harnish/state.json\n@@\n-a\n+b\n*** End Patch\n"}, tree),
			wantErr: "harnish guardrail edit.protected blocked this"},
		{name: "apply_patch tool edit is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"}, tree)},
		{name: "apply_patch tool naming no file blocks", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "apply_patch", map[string]any{"command": "*** Begin Patch\n*** End Patch\n"}, tree),
			wantErr: "harnish: cannot judge the tool call: apply_patch call names no file"},
		{name: "codex bare shell is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "bash"}, tree),
			wantErr: "harnish guardrail hook.interactive blocked this: bash started without a script"},
		{name: "codex REPL with options is blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "/usr/bin/env python3 -i"}, tree),
			wantErr: "harnish guardrail hook.interactive blocked this: python3 started"},
		{name: "codex shell with a script is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "bash build.sh"}, tree)},
		{name: "codex version checks are allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "python3 -V"}, tree)},
		{name: "codex lone version check is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "node -v"}, tree)},
		{name: "codex bash -v is a verbose shell, blocked", args: []string{"--agent", "codex"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "bash -v"}, tree),
			wantErr: "harnish guardrail hook.interactive blocked this"},
		{name: "codex python -c is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "python3 -c 'print(1)'"}, tree)},
		{name: "codex shell reading a file is allowed", args: []string{"--agent", "codex"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "sh < steps.sh"}, tree)},
		{name: "claude bare shell is allowed", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "bash"}, tree)},
		{name: "other tools are allowed", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Read", map[string]any{"file_path": "/etc/passwd"}, tree)},
		{name: "default plan in cwd allows", args: []string{"--agent", "claude"},
			stdin: hookCall(t, "Bash", map[string]any{"command": "pip install requests"}, planned)},
		{name: "default plan in cwd protects", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "rm secrets/k"}, planned),
			wantErr: "harnish guardrail fs.protected blocked this"},
		{name: "no plan blocks installs", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "pip install requests"}, tree),
			wantErr: "harnish guardrail pkg.install blocked this"},
		{name: "--plan overrides", args: []string{"--agent", "claude", "--plan", explicit},
			stdin: hookCall(t, "Bash", map[string]any{"command": "npm i left-pad"}, planned)},
		{name: "a plan that does not load blocks", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{"command": "ls"}, broken),
			wantErr: "harnish: cannot judge the tool call: the plan does not load: "},
		{name: "bad JSON blocks", args: []string{"--agent", "claude"}, wantStatus: 2, stdin: "{",
			wantErr: "harnish: cannot judge the tool call: decoding the hook input: unexpected end of JSON input\n"},
		{name: "bash without a command blocks", args: []string{"--agent", "claude"}, wantStatus: 2,
			stdin:   hookCall(t, "Bash", map[string]any{}, tree),
			wantErr: "harnish: cannot judge the tool call: Bash call without tool_input.command\n"},
		{name: "no tool name blocks", args: []string{"--agent", "claude"}, wantStatus: 2, stdin: `{"tool_input":{}}`,
			wantErr: "harnish: cannot judge the tool call: the hook input has no tool_name\n"},
		{name: "unknown agent blocks", args: []string{"--agent", "gemini"}, wantStatus: 2, stdin: "{}",
			wantErr: "harnish: hook pre-tool-use: --agent \"gemini\": want claude or codex\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
			t.Setenv(guardrail.EnvHookLog, logPath)
			t.Setenv("HARNISH_WORKDIR", "")
			var stderr bytes.Buffer
			status := hookPreToolUse(tt.args, strings.NewReader(tt.stdin), &stderr)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (stderr %q)", status, tt.wantStatus, stderr.String())
			}
			// Every answer is logged, so the executor can tell the hook ran.
			recs, err := guardrail.ReadHookLog(logPath)
			if err != nil || len(recs) != 1 {
				t.Fatalf("hook log: %v, %d records", err, len(recs))
			}
			if r := recs[0]; r.Event != guardrail.HookPreToolUse || (r.Decision.Level == guardrail.Hard) != (status == 2) {
				t.Errorf("hook log record %+v for status %d", r, status)
			}
			got := stderr.String()
			if tt.wantErr == "" && got != "" || !strings.HasPrefix(got, tt.wantErr) {
				t.Errorf("stderr = %q, want it to start with %q", got, tt.wantErr)
			}
		})
	}
}

// TestHookWorkdir: a call that runs below the working tree (Codex passes a
// command's workdir as the hook's cwd) is judged against the tree that
// $HARNISH_WORKDIR names: its plan, its protected paths.
func TestHookWorkdir(t *testing.T) {
	tree, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeGuardPlan(t, tree, "harnish.yaml", "  protected: [secrets/]\n")
	sub := filepath.Join(tree, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		tool       string
		input      map[string]any
		cwd        string
		wantStatus int
		wantErr    string
	}{
		{"state from below", "Bash", map[string]any{"command": "rm -f ../.harnish/state.json"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"plan's protected path from below", "Bash", map[string]any{"command": "rm ../secrets/k"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"multi-line command from below", "Bash", map[string]any{"command": "ls\nrm -f ../.harnish/state.json"}, sub, 2, "harnish guardrail fs.protected blocked this"},
		{"harmless command from below", "Bash", map[string]any{"command": "rm -f x.txt"}, sub, 0, ""},
		{"relative edit from below", "Write", map[string]any{"file_path": "../.harnish/state.json", "content": "{}"}, sub, 2, "harnish guardrail edit.protected blocked this"},
		{"patch from below", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: ../.harnish/x\n+a\n*** End Patch\n"}, sub, 2, "harnish guardrail edit.protected blocked this"},
		{"harmless patch from below", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n"}, sub, 0, ""},
		{"at the root", "Bash", map[string]any{"command": "rm secrets/k"}, tree, 2, "harnish guardrail fs.protected blocked this"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(guardrail.EnvHookLog, filepath.Join(t.TempDir(), "hooks.jsonl"))
			t.Setenv("HARNISH_WORKDIR", tree)
			var stderr bytes.Buffer
			status := hookPreToolUse([]string{"--agent", "codex"}, strings.NewReader(hookCall(t, tt.tool, tt.input, tt.cwd)), &stderr)
			if status != tt.wantStatus || !strings.HasPrefix(stderr.String(), tt.wantErr) || (tt.wantErr == "" && stderr.Len() > 0) {
				t.Errorf("status %d, stderr %q; want %d, %q", status, stderr.String(), tt.wantStatus, tt.wantErr)
			}
			recs, err := guardrail.ReadHookLog(os.Getenv(guardrail.EnvHookLog))
			if err != nil || len(recs) != 1 || recs[0].Command != tt.input["command"] && tt.tool != "Write" {
				t.Errorf("hook log: %v, %+v: want the command as the agent gave it", err, recs)
			}
		})
	}
}

// TestHookStopWorkdir: the stop hook finds the plan and runs the checks in
// the tree $HARNISH_WORKDIR names, whatever its cwd (relative included).
func TestHookStopWorkdir(t *testing.T) {
	dir := writeTree(t, map[string]string{"harnish.yaml": twoTaskPlan})
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(guardrail.EnvHookLog, "")
	t.Setenv("HARNISH_TASK_ID", "T1")
	t.Setenv("HARNISH_WORKDIR", dir)
	for _, cwd := range []string{"sub", filepath.Join(dir, "sub")} {
		var stderr bytes.Buffer
		input := `{"hook_event_name": "Stop", "cwd": "` + cwd + `"}`
		if code := hookStop([]string{"--agent", "codex"}, strings.NewReader(input), &stderr); code != 2 ||
			!strings.Contains(stderr.String(), "harnish: task T1 is not done") {
			t.Errorf("cwd %q: exit %d, stderr %q; want the checks of T1 to fail", cwd, code, stderr.String())
		}
	}
}

func TestApplyPatchPaths(t *testing.T) {
	cmd := "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n*** Move to: c.go\n*** Delete File: d.go\n*** End Patch\nPATCH"
	if diff := cmp.Diff([]string{"a.go", "b.go", "c.go", "d.go"}, applyPatchPaths(cmd)); diff != "" {
		t.Errorf("applyPatchPaths (-want +got):\n%s", diff)
	}
	if got := applyPatchPaths("echo '*** Delete File: x'"); got != nil {
		t.Errorf("without apply_patch = %q, want nil", got)
	}
}

// FuzzDecodeHookInput checks that no input makes the hook decoder panic.
func FuzzDecodeHookInput(f *testing.F) {
	f.Add(hookCall(f, "Bash", map[string]any{"command": "rm -rf /"}, "/repo"))
	f.Add(hookCall(f, "Write", map[string]any{"file_path": "/repo/.harnish/x"}, "/repo"))
	f.Add(`{"tool_name":"Bash","tool_input":null}`)
	f.Add(`{"tool_name":"MultiEdit","tool_input":{"file_path":1}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		acts, _, err := decodeHookInput(strings.NewReader(in))
		if err != nil && acts != nil {
			t.Errorf("actions %v with error %v", acts, err)
		}
	})
}

// TestHookStopCannotLoad: a stop refused because the plan or the task does
// not load is counted like any refusal, and the cap lets the agent go.
func TestHookStopCannotLoad(t *testing.T) {
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "plan.yaml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planned := writeTree(t, map[string]string{"harnish.yaml": twoTaskPlan})
	tests := []struct {
		name, dir string
		args      []string
		wantErr   string
	}{
		{"plan does not load", broken, nil, "harnish hook stop: "},
		{"unknown task", planned, []string{"--task", "T9"}, `harnish hook stop: the plan has no task "T9"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "hooks.jsonl")
			t.Setenv(guardrail.EnvHookLog, logPath)
			t.Setenv("HARNISH_TASK_ID", "T1")
			t.Setenv("HARNISH_WORKDIR", "")
			input := `{"hook_event_name": "Stop", "stop_hook_active": true, "cwd": "` + tt.dir + `"}`
			for i := range maxStopRefusals + 1 {
				var stderr bytes.Buffer
				code := hookStop(append([]string{"--agent", "codex"}, tt.args...), strings.NewReader(input), &stderr)
				if i < maxStopRefusals {
					if code != 2 || !strings.HasPrefix(stderr.String(), tt.wantErr) {
						t.Fatalf("stop %d: exit %d, stderr %q", i+1, code, stderr.String())
					}
				} else if code != 0 {
					t.Fatalf("stop %d, after %d refusals: exit %d (%s), want 0", i+1, maxStopRefusals, code, stderr.String())
				}
			}
			recs, err := guardrail.ReadHookLog(logPath)
			if err != nil {
				t.Fatal(err)
			}
			refused := 0
			for _, r := range recs {
				if r.Event == guardrail.HookStop && r.Refused {
					refused++
				}
			}
			if refused != maxStopRefusals {
				t.Errorf("%d refusals logged, want %d: %+v", refused, maxStopRefusals, recs)
			}
		})
	}
}

// TestHookStopTerminated: an agent that terminates its stop hook ends the
// checks the hook runs too, not only the hook.
func TestHookStopTerminated(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("builds the binary; reads /proc")
	}
	bin := filepath.Join(t.TempDir(), "harnish")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	plan := `version: 1
name: slow
phases:
  - id: p1
    tasks:
      - id: T1
        title: slow check
        acceptance: [{sh: "echo $$ > check.pid; exec sleep 120"}]
`
	dir := writeTree(t, map[string]string{"harnish.yaml": plan})
	cmd := exec.Command(bin, "hook", "stop", "--agent", "codex", "--task", "T1")
	cmd.Stdin = strings.NewReader(`{"hook_event_name": "Stop", "cwd": "` + dir + `"}`)
	cmd.Env = append(os.Environ(), "HARNISH_WORKDIR="+dir, guardrail.EnvHookLog+"=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "check.pid")
	var pid int
	for deadline := time.Now().Add(30 * time.Second); ; {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the check never started: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the hook outlived SIGTERM by 30s")
	}
	for range 50 {
		if processGone(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill() // the test's own leftover
	}
	t.Errorf("the check's process %d outlived the terminated hook (stderr %q)", pid, stderr.String())
}

// processGone reports whether pid no longer runs: it does not exist, or is
// a zombie nobody reaped (in a container without an init, an orphan stays
// one).
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}
