package codex

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
