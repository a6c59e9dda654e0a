package codex

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
)

// TestStreamCommands: a command counts once per item ID; items without an
// ID are never merged, so no command hides behind another.
func TestStreamCommands(t *testing.T) {
	cmd := func(typ, id, command string) string {
		return `{"type":"` + typ + `","item":{"id":"` + id + `","type":"command_execution","command":"` + command + `","status":"in_progress"}}`
	}
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"started and completed", []string{cmd("item.started", "i1", "ls"), cmd("item.completed", "i1", "ls")}, []string{"ls"}},
		{"two ids", []string{cmd("item.started", "i1", "ls"), cmd("item.started", "i2", "rm x")}, []string{"ls", "rm x"}},
		{"no ids", []string{cmd("item.completed", "", "ls"), cmd("item.completed", "", "rm x"), cmd("item.completed", "", "cat y")},
			[]string{"ls", "rm x", "cat y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStream("/work")
			for _, l := range tt.lines {
				s.line([]byte(l))
			}
			if s.bad != "" {
				t.Fatalf("bad line: %s", s.bad)
			}
			var got []string
			for _, c := range s.calls() {
				got = append(got, c.Command)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("commands (-want +got):\n%s\n%s", diff, strings.Join(tt.lines, "\n"))
			}
		})
	}
}

// TestStreamFilesChanged: the files a patch changed, relative to the
// working tree, once each; those outside it (or climbing out of it) are
// not the task's.
func TestStreamFilesChanged(t *testing.T) {
	s := newStream("/work")
	s.line([]byte(`{"type":"item.completed","item":{"id":"i1","type":"file_change","changes":[{"path":"/work/a.txt","kind":"add"},{"path":"/etc/passwd","kind":"update"},{"path":"/work/../etc/x","kind":"add"},{"path":"b/c.txt","kind":"update"}],"status":"completed"}}`))
	s.line([]byte(`{"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"/work/a.txt","kind":"update"}],"status":"completed"}}`))
	if s.bad != "" {
		t.Fatalf("bad line: %s", s.bad)
	}
	if diff := cmp.Diff([]string{"a.txt", "b/c.txt"}, s.filesChanged()); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// TestSandboxFailure: what bubblewrap and Codex's sandbox helper say when
// the sandbox cannot start (as Codex 0.169.0 reports it in a command's
// output) is told apart from a command that failed on its own.
func TestSandboxFailure(t *testing.T) {
	tests := []struct {
		name, command, output string
		want                  string // "": not the sandbox
	}{
		{"no namespace", "ls", "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)\n",
			"bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)"},
		{"apparmor", "ls", "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted\n", "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted"},
		{"no helper", "ls", "bwrap: execvp codex-linux-sandbox: No such file or directory\n", "bwrap: execvp codex-linux-sandbox: No such file or directory"},
		{"helper panic", "ls", "\nthread 'main' (2) panicked at linux-sandbox/src/linux_run_main.rs:1199:5:\nFailed to execvp ls: No such file or directory (os error 2)\nnote: ...\n",
			"thread 'main' (2) panicked at linux-sandbox/src/linux_run_main.rs:1199:5: Failed to execvp ls: No such file or directory (os error 2)"},
		{"no bwrap at all", "ls", "bubblewrap is unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was found\n",
			"bubblewrap is unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was found"},
		{"the agent's own bwrap", "bwrap --ro-bind / / ls", "bwrap: Creating new namespace failed: Operation not permitted\n", ""},
		{"bwrap later in the output", "make", "building\nbwrap: Creating new namespace failed\n", ""},
		{"a failing command", "go test ./...", "--- FAIL: TestX\nFAIL\n", ""},
		{"empty", "false", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := sandboxFailure(tt.command, tt.output)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("sandboxFailure(%q, %q) = %q, %v; want %q", tt.command, tt.output, got, ok, tt.want)
			}
		})
	}
	long, ok := sandboxFailure("ls", "bwrap: "+strings.Repeat("x", 10_000))
	if !ok || len(long) > maxSandboxMessage+len("…") {
		t.Errorf("a long message is kept at %d bytes", len(long))
	}
}

// TestSandboxErrorHint: the error says what to do about the cause it names.
func TestSandboxErrorHint(t *testing.T) {
	tests := []struct{ message, hint string }{
		{"bwrap: Creating new namespace failed: Operation not permitted", "must create user namespaces"},
		{"bwrap: setting up uid map: Permission denied", "must create user namespaces"},
		{"bwrap: execvp codex-linux-sandbox: No such file or directory", "CODEX_HOME lies inside its temp"},
		{"bwrap: Can't mount proc on /newroot/proc: Operation not permitted", "cannot start: bwrap: Can't mount proc"},
	}
	for _, tt := range tests {
		err := &SandboxError{Mode: SandboxWorkspaceWrite, Message: tt.message}
		if msg := err.Error(); !strings.HasPrefix(msg, "codex: the workspace-write sandbox cannot start: "+tt.message) || !strings.Contains(msg, tt.hint) {
			t.Errorf("%q: error %q does not say %q", tt.message, msg, tt.hint)
		}
	}
}

// TestStreamSandbox: in a sandboxed run, the first command whose output
// looks like the sandbox failing to start is kept and reported once; a
// failed patch is noted.
func TestStreamSandbox(t *testing.T) {
	s := newStream("/work")
	s.sandboxed = true
	calls := 0
	s.onSuspect = func() { calls++ }
	failed := func(id, out string) string {
		return `{"type":"item.completed","item":{"id":"` + id + `","type":"command_execution","command":"/bin/bash -lc 'ls'","aggregated_output":"` + out + `","exit_code":1,"status":"failed"}}`
	}
	for _, l := range []string{
		failed("i1", `ls: cannot access x\n`),
		`{"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"/work/a.txt","kind":"add"}],"status":"failed"}}`,
		failed("i3", `bwrap: Creating new namespace failed: No space left on device\n`),
		failed("i4", `bwrap: something else\n`),
	} {
		s.line([]byte(l))
	}
	want := &SandboxError{Command: "ls", Message: "bwrap: Creating new namespace failed: No space left on device"}
	if diff := cmp.Diff(want, s.suspect); diff != "" || calls != 1 || !s.patchFailed || len(s.filesChanged()) != 0 {
		t.Errorf("suspect (-want +got):\n%s\nonSuspect called %d times, patchFailed %v, files %q", diff, calls, s.patchFailed, s.filesChanged())
	}
}

// TestStreamWatch: each command that ran to its end and each turn reach the
// request's watcher, with what came of the command.
func TestStreamWatch(t *testing.T) {
	var got []executor.Activity
	s := newStream("/work")
	s.watch = func(a executor.Activity) { got = append(got, a) }
	for _, l := range []string{
		`{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"/bin/bash -lc 'go test ./...'","aggregated_output":"FAIL\n","exit_code":1,"status":"failed"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`,
		`{"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"thinking"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}`,
	} {
		s.line([]byte(l))
	}
	want := []executor.Activity{{Command: "go test ./...", Result: "failed 1\nFAIL\n"}, {Turn: true, Acted: true}, {Turn: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("activity (-want +got):\n%s", diff)
	}
}
