package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/transcript"
	"github.com/harnish/harnish/task"
)

func TestBlocked(t *testing.T) {
	tests := []struct {
		name, final string
		reason      string
		ok          bool
	}{
		{"done", "All done.", "", false},
		{"blocked", "I tried.\nHARNISH-BLOCKED: need the API key", "need the API key", true},
		{"indented and quoted", "x\n  `HARNISH-BLOCKED: access to prod`  \n", "access to prod", true},
		{"last of two", "HARNISH-BLOCKED: a\nHARNISH-BLOCKED: b", "b", true},
		{"no reason", "HARNISH-BLOCKED:", "the agent said it is blocked but gave no reason", true},
		{"mentioned mid-line", "I could say HARNISH-BLOCKED: x but I am done", "", false},
		{"empty", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, ok := agent.Blocked(tt.final)
			if reason != tt.reason || ok != tt.ok {
				t.Errorf("Blocked(%q) = %q, %t; want %q, %t", tt.final, reason, ok, tt.reason, tt.ok)
			}
		})
	}
	p := agent.WithBlockedInstruction("do it\n\n")
	if !strings.HasPrefix(p, "do it\n\n") || !strings.Contains(p, agent.BlockedPrefix) {
		t.Errorf("WithBlockedInstruction = %q", p)
	}
}

func TestHookCommand(t *testing.T) {
	tests := []struct {
		harnish, event, agentName, plan string
		want                            string
	}{
		{"harnish", "stop", "codex", "", "harnish hook stop --agent codex"},
		{"/opt/h/harnish", "pre-tool-use", "claude", "/w/plan.yaml", "/opt/h/harnish hook pre-tool-use --agent claude --plan /w/plan.yaml"},
		{"/my dir/it's", "stop", "codex", "a b.yaml", `'/my dir/it'\''s' hook stop --agent codex --plan 'a b.yaml'`},
	}
	for _, tt := range tests {
		got := agent.HookCommand(tt.harnish, tt.event, tt.agentName, tt.plan)
		if got != tt.want {
			t.Errorf("HookCommand = %q, want %q", got, tt.want)
		}
		// What a shell makes of it is the words we started from.
		out, err := exec.Command("sh", "-c", `for w in `+got+`; do printf '%s\n' "$w"; done`).Output()
		if err != nil {
			t.Fatal(err)
		}
		words := []string{tt.harnish, "hook", tt.event, "--agent", tt.agentName}
		if tt.plan != "" {
			words = append(words, "--plan", tt.plan)
		}
		if diff := cmp.Diff(strings.Join(words, "\n")+"\n", string(out)); diff != "" {
			t.Errorf("the shell splits %q differently (-want +got):\n%s", got, diff)
		}
	}
}

func TestSettings(t *testing.T) {
	got := agent.Settings(agent.Hooks{PreToolUse: "h pre", Stop: "h stop", Timeout: 60})
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": "h pre", "timeout": 60.0}}}},
		"Stop":       []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "h stop", "timeout": 60.0}}}},
	}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("Settings (-want +got):\n%s", diff)
	}
	if got := string(agent.Settings(agent.Hooks{})); got != `{"hooks":{}}` {
		t.Errorf("no hooks: %s", got)
	}
}

func TestCheck(t *testing.T) {
	allow := func(cmd string) guardrail.HookRecord {
		return guardrail.HookRecord{Event: guardrail.HookPreToolUse, Tool: "Bash", Command: cmd}
	}
	hard := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Tool: "Bash", Command: "rm -r src",
		Decision: guardrail.Decision{Level: guardrail.Hard, Rule: "shell.rm-recursive", Reason: "deletes a tree"}}
	soft := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Tool: "Write", Path: "/w/notes.txt",
		Decision: guardrail.Decision{Level: guardrail.Soft, Rule: "edit.scope", Reason: "outside the scope"}}
	stop := guardrail.HookRecord{Event: guardrail.HookStop, Refused: true, Reason: "checks fail"}
	patch := allow("apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: /w/b/c.go\n*** End Patch\nPATCH")
	// Codex's freeform apply_patch tool: the record's command is the patch.
	tool := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Tool: "apply_patch", Path: "a.txt",
		Command: "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: /w/b/c.go\n*** End Patch\n"}
	unguarded := func(action string) executor.Violation {
		v := executor.Violation{Hard: true, Rule: agent.RuleUnguarded, Action: action}
		return v
	}
	tests := []struct {
		name    string
		records []guardrail.HookRecord
		calls   []agent.Call
		want    []executor.Violation
	}{
		{"nothing", nil, nil, nil},
		{"all seen", []guardrail.HookRecord{allow("ls"), allow("go test ./..."), allow("ls"), stop},
			[]agent.Call{{Command: "ls"}, {Command: "go test ./..."}, {Command: "ls"}}, nil},
		{"one record sees one call", []guardrail.HookRecord{allow("ls"), allow("go test ./...")},
			[]agent.Call{{Command: "ls"}, {Command: "go test ./..."}, {Command: "ls"}, {Command: "ls"}},
			[]executor.Violation{unguarded("ls"), unguarded("ls")}},
		{"one record sees one edit", []guardrail.HookRecord{soft},
			[]agent.Call{{Path: "notes.txt"}, {Path: "/w/notes.txt"}},
			[]executor.Violation{{Rule: "edit.scope", Reason: "outside the scope", Action: "/w/notes.txt"}, unguarded("/w/notes.txt")}},
		{"hook never ran", nil, []agent.Call{{Command: "ls"}, {Path: "a.txt"}},
			[]executor.Violation{unguarded("ls"), unguarded("a.txt")}},
		{"one unseen", []guardrail.HookRecord{allow("ls")}, []agent.Call{{Command: "ls"}, {Command: "cat x"}},
			[]executor.Violation{unguarded("cat x")}},
		{"decisions", []guardrail.HookRecord{allow("ls"), soft, hard, stop}, []agent.Call{{Command: "ls"}},
			[]executor.Violation{
				{Rule: "edit.scope", Reason: "outside the scope", Action: "/w/notes.txt"},
				{Hard: true, Rule: "shell.rm-recursive", Reason: "deletes a tree", Action: "rm -r src"},
			}},
		{"edits by patch and by path", []guardrail.HookRecord{patch, soft},
			[]agent.Call{{Path: "/w/a.txt"}, {Path: "b/c.go"}, {Path: "notes.txt"}},
			[]executor.Violation{{Rule: "edit.scope", Reason: "outside the scope", Action: "/w/notes.txt"}}},
		{"edits by the apply_patch tool", []guardrail.HookRecord{tool},
			[]agent.Call{{Path: "/w/a.txt"}, {Path: "b/c.go"}}, nil},
		{"apply_patch tool edit unseen", []guardrail.HookRecord{tool}, []agent.Call{{Path: "d.txt"}},
			[]executor.Violation{unguarded("d.txt")}},
		{"edit unseen", []guardrail.HookRecord{patch}, []agent.Call{{Path: "/w/other.txt"}},
			[]executor.Violation{unguarded("/w/other.txt")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agent.Check(tt.records, tt.calls, "/w")
			for i := range got {
				if got[i].Rule == agent.RuleUnguarded {
					got[i].Reason = "" // the words may change; the rule and action are the contract
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	req := &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p", Attempt: 2, WorkDir: "/w",
		Env: map[string]string{"TRACESTATE": "k=v", "TRACEPARENT": "00-x"}}
	want := []string{"TRACEPARENT=00-x", "TRACESTATE=k=v", "HARNISH_TASK_ID=T1", "HARNISH_PHASE_ID=p", "HARNISH_ATTEMPT=2", "HARNISH_WORKDIR=/w", "HARNISH_HOOK_LOG=/l"}
	if diff := cmp.Diff(want, agent.Env(req, "/l")); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
}

func TestTail(t *testing.T) {
	long := strings.Repeat("é", agent.TailChars+10)
	tests := []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{long, strings.Repeat("é", agent.TailChars)},
	}
	for _, tt := range tests {
		if got := agent.Tail(tt.in); got != tt.want {
			t.Errorf("Tail(%d bytes) = %d bytes, want %d", len(tt.in), len(got), len(tt.want))
		}
	}
}

func TestLineWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
		long   bool
	}{
		{"lines", []string{"a\nb\n"}, []string{"a", "b"}, false},
		{"split across writes", []string{"{\"ty", "pe\":1}\n{", "}"}, []string{`{"type":1}`, "{}"}, false},
		{"empty lines", []string{"\n\nx\n"}, []string{"", "", "x"}, false},
		{"too long", []string{strings.Repeat("x", agent.MaxLine), "y\nz\n"}, []string{"z"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			w := agent.NewLineWriter(func(l []byte) { got = append(got, string(l)) })
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			w.Flush()
			if diff := cmp.Diff(tt.want, got); diff != "" || w.Long != tt.long {
				t.Errorf("lines (-want +got):\n%s\nLong = %t", diff, w.Long)
			}
		})
	}
}

func TestHookTimeout(t *testing.T) {
	if got := agent.HookTimeout(context.Background(), time.Time{}); got != 1800 {
		t.Errorf("no deadline: %d", got)
	}
	if got := agent.HookTimeout(context.Background(), time.Now().Add(90*time.Second)); got < 89 || got > 90 {
		t.Errorf("90s left: %d", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := agent.HookTimeout(ctx, time.Now().Add(time.Hour)); got < 9 || got > 10 {
		t.Errorf("ctx's 10s are earlier: %d", got)
	}
	if got := agent.HookTimeout(context.Background(), time.Now().Add(-time.Second)); got != 1 {
		t.Errorf("past the deadline: %d, want at least 1", got)
	}
}

// The transcript is named after the agent, task and attempt, or is the
// file the request names; a transcript that stops working does not cut the
// stream.
func TestTranscript(t *testing.T) {
	req := &executor.Request{Task: &task.Task{ID: "a/b*c"}, Attempt: 2}
	var stream strings.Builder
	out, name, closeIt, err := agent.Transcript(filepath.Join(t.TempDir(), "new"), "codex", req, &stream)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := filepath.Match("codex-a_b_c-2-*.jsonl", filepath.Base(name)); !ok {
		t.Errorf("transcript %q", name)
	}
	io.WriteString(out, `{"type":"one"}`+"\n")
	code := 3
	closeIt(transcript.End{ExitCode: &code, Stderr: "oops"}) // writing the file fails from now on
	if _, err := io.WriteString(out, "two\n"); err != nil {
		t.Errorf("a failed transcript failed the stream: %v", err)
	}
	b, _ := os.ReadFile(name)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"harnish":"attempt","agent":"codex","task":"a/b*c","attempt":2,`) ||
		lines[1] != `{"type":"one"}` || lines[2] != `{"harnish":"exit","exit_code":3,"stderr":"oops"}` || stream.String() != "{\"type\":\"one\"}\ntwo\n" {
		t.Errorf("transcript:\n%s\nstream %q", b, stream.String())
	}
	if out, name, _, err := agent.Transcript("", "codex", req, &stream); out != io.Writer(&stream) || name != "" || err != nil {
		t.Errorf("no transcript dir: %v %q %v", out, name, err)
	}
	// The host names the file: it is that one, whatever the directory.
	req.Transcript = filepath.Join(t.TempDir(), "T-2.jsonl")
	if _, name, closeIt, err := agent.Transcript(filepath.Join(t.TempDir(), "other"), "codex", req, &stream); err != nil || name != req.Transcript {
		t.Errorf("named transcript: %q, %v", name, err)
	} else {
		closeIt(transcript.End{})
	}
}

func TestPaths(t *testing.T) {
	wd, _ := os.Getwd()
	tests := []struct {
		workDir, planFile, root, plan string
	}{
		{"", "", wd, ""},
		{"/w", "plan.yaml", "/w", "/w/plan.yaml"},
		{"/w", "/p/plan.yaml", "/w", "/p/plan.yaml"},
		{"rel", "sub/plan.yaml", filepath.Join(wd, "rel"), filepath.Join(wd, "rel", "sub/plan.yaml")},
	}
	for _, tt := range tests {
		root, plan, err := agent.Paths(&executor.Request{WorkDir: tt.workDir}, tt.planFile)
		if err != nil || root != tt.root || plan != tt.plan {
			t.Errorf("Paths(%q, %q) = %q, %q, %v; want %q, %q", tt.workDir, tt.planFile, root, plan, err, tt.root, tt.plan)
		}
	}
}

// TestCheckLog: a missing log is no records (every call unguarded); one that
// does not read adds a hard violation naming it.
func TestCheckLog(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	if got := agent.CheckLog(missing, []agent.Call{{Command: "ls"}}, dir); len(got) != 1 || !got[0].Hard || got[0].Action != "ls" {
		t.Errorf("missing log: %+v", got)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("not json\n"), 0o600)
	got := agent.CheckLog(bad, nil, dir)
	if len(got) != 1 || !got[0].Hard || got[0].Rule != agent.RuleUnguarded || got[0].Action != bad {
		t.Errorf("bad log: %+v", got)
	}
}

func TestNotes(t *testing.T) {
	final := "Done.\n\nHARNISH-DECISION: kept the float API\n`HARNISH-QUESTION: rename Div?`\nHARNISH-DECISION:   \nHARNISH-BLOCKER: the CI key expires\nHARNISH-BLOCKER: no CI runner for arm64\n"
	d, q, b := agent.Notes(final)
	if diff := cmp.Diff([]string{"kept the float API"}, d); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rename Div?"}, q); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if b != "no CI runner for arm64" {
		t.Errorf("blocker %q", b)
	}
	if d, q, b := agent.Notes("no notes here"); d != nil || q != nil || b != "" {
		t.Errorf("notes from a plain message: %v %v %q", d, q, b)
	}
}
