package acp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/guardrail"
)

func TestCheckMessage(t *testing.T) {
	tests := []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, true},
		{`{"jsonrpc":"2.0","method":"session/update","params":{}}`, true},
		{`{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{}}`, true},
		{`{"jsonrpc":"2.0","method":""}`, false},
		{`{"jsonrpc":"2.0","id":1}`, false},
		{`{"jsonrpc":"2.0","result":{}}`, false},
		{`{"jsonrpc":"1.0","id":1,"result":{}}`, false},
		{`{"id":1,"result":{}}`, false},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, false},
		{`not json`, false},
		{`{"jsonrpc":"2.0","method":"x"} trailing`, false},
		{`{"jsonrpc":"2.0","id":{},"result":1}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":null}`, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, true},
	}
	for _, tt := range tests {
		err := acp.CheckMessage([]byte(tt.line))
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, acp.ErrMalformed)) {
			t.Errorf("CheckMessage(%s) = %v, want ok %t", tt.line, err, tt.ok)
		}
	}
}

func FuzzCheckMessage(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","method":"m","params":[1]}`, `{`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		err := acp.CheckMessage(line)
		if err != nil && !errors.Is(err, acp.ErrMalformed) {
			t.Fatalf("an error that is not ErrMalformed: %v", err)
		}
		if err != nil && len(err.Error()) > 400 {
			t.Fatalf("an unbounded error message: %d bytes", len(err.Error()))
		}
	})
}

func TestRawCommand(t *testing.T) {
	tests := []struct {
		raw  any
		want string
	}{
		{map[string]any{"command": "go test ./..."}, "go test ./..."},
		{map[string]any{"cmd": "ls -la"}, "ls -la"},
		{map[string]any{"command": []any{"/bin/bash", "-lc", "rm -rf src"}}, "rm -rf src"},
		{map[string]any{"command": []any{"sh", "-c", "echo hi"}}, "echo hi"},
		{map[string]any{"command": []any{"git", "commit", "-m", "a b"}}, "git commit -m 'a b'"},
		{map[string]any{"command": []any{"x", 1}}, ""},
		{map[string]any{"command": 3}, ""},
		{"rm -rf /", ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := acp.RawCommand(tt.raw); got != tt.want {
			t.Errorf("RawCommand(%v) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if got := acp.CommandLine("echo", []string{"it's", "$HOME"}); got != `echo 'it'\''s' '$HOME'` {
		t.Errorf("CommandLine = %q", got)
	}
	if got := acp.CommandLine("ls -la | wc -l", nil); got != "ls -la | wc -l" {
		t.Errorf("CommandLine of a whole line = %q", got)
	}
}

func TestLines(t *testing.T) {
	p := func(n int) *int { return &n }
	const s = "a\nb\nc\nd"
	tests := []struct {
		line, limit *int
		want        string
	}{
		{nil, nil, s},
		{p(2), nil, "b\nc\nd"},
		{p(2), p(2), "b\nc\n"},
		{nil, p(1), "a\n"},
		{p(9), p(1), ""},
		{p(0), p(0), ""},
	}
	for _, tt := range tests {
		if got := acp.Lines(s, tt.line, tt.limit); got != tt.want {
			t.Errorf("Lines(%v, %v) = %q, want %q", tt.line, tt.limit, got, tt.want)
		}
	}
}

// A write's action is the diff of the lines that change, which the edit
// rules parse: a new file, a change, a secret added.
func TestEditAction(t *testing.T) {
	a := acp.EditAction("src/a.go", "", false, "package a\n")
	if a.Kind != guardrail.KindEdit || a.Path != "src/a.go" ||
		a.Diff != "--- /dev/null\n+++ b/src/a.go\n@@ -0,0 +1 @@\n+package a\n" {
		t.Errorf("new file: %+v", a)
	}
	a = acp.EditAction("a.txt", "one\ntwo\n", true, "one\n2\n")
	files, err := guardrail.ParseDiff(a.Diff)
	if err != nil || len(files) != 1 {
		t.Fatalf("ParseDiff(%q) = %v, %v", a.Diff, files, err)
	}
	var added []string
	for _, l := range files[0].Added() {
		added = append(added, l.Text)
	}
	if diff := cmp.Diff([]string{"2"}, added); diff != "" || !strings.HasPrefix(a.Diff, "--- a/a.txt\n+++ b/a.txt\n") {
		t.Errorf("change: %q (-want +got added):\n%s", a.Diff, diff)
	}
	g, err := acp.Builtin(t.TempDir(), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	a = acp.EditAction("config.go", "package config\n", true, "package config\n\nconst token = \"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"\n")
	if d := guardrail.Evaluate(t.Context(), g, a); d.Level != guardrail.Hard || d.Rule != "edit.secret.github" {
		t.Errorf("a secret written: %+v", d)
	}
	a = acp.EditAction(".harnish/state.json", "", false, "{}\n")
	if d := guardrail.Evaluate(t.Context(), g, a); d.Level != guardrail.Hard {
		t.Errorf("a write under .harnish/: %+v", d)
	}
}
