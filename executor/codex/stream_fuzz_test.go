package codex

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStream feeds the event-stream parser arbitrary lines: it never
// panics, nor does reading what it found. What it finds is checked by the
// table tests of stream_test.go and codex_test.go.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"/bin/bash -lc 'ls -la'","status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"/work/a.txt","kind":"add"},{"path":"/etc/passwd","kind":"update"}],"status":"completed"}}`,
		`{"type":"item.completed","item":{"id":"i3","type":"agent_message","text":"done"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":5}}`,
		`{"type":"turn.failed","error":{"message":"boom"}}`,
		`{"type":"item.completed","item":{"id":"i4","type":"command_execution","command":"/bin/bash -lc 'ls'","aggregated_output":"bwrap: Creating new namespace failed: Operation not permitted\n","exit_code":1,"status":"failed"}}`,
		`{"type":"item.completed","item":{"id":"i5","type":"file_change","changes":[{"path":"/work/a.txt","kind":"add"}],"status":"failed"}}`,
		`not json`,
		`{"type":"item.started","item":{"id":"x","type":"command_execution","command":"bash -c \"echo $(rm -rf /)\""}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newStream("/work")
		s.sandboxed = true
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			s.line(line)
		}
		_, _ = s.filesChanged(), s.calls()
	})
}

// FuzzUnwrapShell: a script Codex wraps as /bin/bash -lc '<script>' comes
// back as the script the hook saw, and unwrapping anything never panics.
func FuzzUnwrapShell(f *testing.F) {
	for _, seed := range []string{"ls -la", `echo "hi"`, "it's", "a\nb", "", "$(rm -rf /)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, script string) {
		unwrapShell(script)
		// Codex reports commands in JSON strings: valid UTF-8, no NUL.
		if script == "" || strings.ContainsRune(script, 0) || !utf8.ValidString(script) {
			return
		}
		wrapped := "/bin/bash -lc '" + strings.ReplaceAll(script, "'", `'\''`) + "'"
		if got := unwrapShell(wrapped); got != script {
			t.Errorf("unwrapShell(%q) = %q, want %q", wrapped, got, script)
		}
	})
}
