package hook_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/testkit"
)

// TestActions: what each tool call asks the guardrails to judge, an edit
// per file with the change it makes as a diff against the tree.
func TestActions(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{
		"notes.txt":    "one\ntwo\nthree\n",
		"old.txt":      "gone\n",
		"calc/calc.go": "package calc\n",
		"sub/keep":     "",
	})
	sub := filepath.Join(root, "sub")
	cmd := func(c string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: c}
	}
	edit := func(path, diff string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindEdit, Path: path, Diff: diff}
	}
	install := func(eco, pkg string) guardrail.Action {
		return guardrail.Action{Kind: guardrail.KindInstall, Ecosystem: eco, Package: pkg}
	}
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Update File: notes.txt\n@@\n one\n-two\n+2\n" +
		"*** Update File: calc/calc.go\n*** Move to: calc/add.go\n*** Delete File: old.txt\n*** End Patch\n"
	tests := []struct {
		name  string
		tool  string
		input map[string]any
		cwd   string
		want  []guardrail.Action
	}{
		{name: "command", tool: "Bash", input: map[string]any{"command": "go test ./..."}, cwd: root,
			want: []guardrail.Action{cmd("go test ./...")}},
		{name: "command below the root", tool: "Bash", input: map[string]any{"command": "rm -f x"}, cwd: sub,
			want: []guardrail.Action{cmd("cd '" + sub + "' && {\nrm -f x\n}")}},
		{name: "command that installs", tool: "exec_command", input: map[string]any{"command": "pip install requests && npm i zod"}, cwd: root,
			want: []guardrail.Action{cmd("pip install requests && npm i zod"), install("pypi", "requests"), install("npm", "zod")}},
		{name: "apply_patch command", tool: "Bash", input: map[string]any{"command": "apply_patch <<'PATCH'\n" + patch + "PATCH"}, cwd: root,
			want: []guardrail.Action{
				cmd("apply_patch <<'PATCH'\n" + patch + "PATCH"),
				edit("a.txt", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,1 @@\n+hello\n"),
				edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"),
				edit("calc/add.go", "--- a/calc/calc.go\n+++ b/calc/add.go\n"),
				edit("old.txt", "--- a/old.txt\n+++ /dev/null\n"),
			}},
		{name: "apply_patch tool below the root", tool: "apply_patch", cwd: sub,
			input: map[string]any{"command": "*** Begin Patch\n*** Add File: ../b.txt\n+b\n*** Update File: keep\n@@\n+k\n*** End Patch\n"},
			want: []guardrail.Action{
				edit("b.txt", "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1,1 @@\n+b\n"),
				edit("sub/keep", "--- a/sub/keep\n+++ b/sub/keep\n@@ -0,0 +1,1 @@\n+k\n"),
			}},
		// The spellings of other agents and versions: exec_command's cmd,
		// the shell tool's argv list, a patch under input or patch.
		{name: "command as cmd", tool: "exec_command", input: map[string]any{"cmd": "rm -r build"}, cwd: root,
			want: []guardrail.Action{cmd("rm -r build")}},
		{name: "command as an argv list", tool: "shell", input: map[string]any{"command": []string{"bash", "-lc", "rm -r it's"}}, cwd: root,
			want: []guardrail.Action{cmd(`'bash' '-lc' 'rm -r it'\''s'`)}},
		{name: "patch as input", tool: "apply_patch", cwd: root,
			input: map[string]any{"input": "*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch\n"},
			want:  []guardrail.Action{edit("c.txt", "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1,1 @@\n+c\n")}},
		{name: "patch as patch", tool: "apply_patch", cwd: root,
			input: map[string]any{"patch": "*** Begin Patch\n*** Add File: d.txt\n+d\n*** End Patch\n"},
			want:  []guardrail.Action{edit("d.txt", "--- /dev/null\n+++ b/d.txt\n@@ -0,0 +1,1 @@\n+d\n")}},
		{name: "patch of a file outside the tree", tool: "apply_patch", cwd: root,
			input: map[string]any{"command": "*** Begin Patch\n*** Add File: /elsewhere/y\n+one\n+two\n*** End Patch\n"},
			want:  []guardrail.Action{cmd("cat > '/elsewhere/y' <<'HARNISH_EOF'\none\ntwo\nHARNISH_EOF")}},
		// Gemini CLI's tools, in the same hook JSON.
		{name: "gemini shell in a directory", tool: "run_shell_command", input: map[string]any{"command": "rm -f x", "directory": "sub"}, cwd: root,
			want: []guardrail.Action{cmd("cd '" + sub + "' && {\nrm -f x\n}")}},
		{name: "gemini write_file", tool: "write_file", input: map[string]any{"file_path": filepath.Join(root, "g.txt"), "content": "g\n"}, cwd: root,
			want: []guardrail.Action{edit("g.txt", "--- /dev/null\n+++ b/g.txt\n@@ -0,0 +1,1 @@\n+g\n")}},
		{name: "gemini replace of every occurrence", tool: "replace", cwd: root,
			input: map[string]any{"file_path": "notes.txt", "old_string": "e", "new_string": "E", "expected_replacements": 2},
			want:  []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n-one\n+onE\n two\n-three\n+thrEE\n")}},
		{name: "a chunk found by its context", tool: "apply_patch", cwd: root,
			input: map[string]any{"command": "*** Begin Patch\n*** Update File: notes.txt\n@@ two\n-three\n+3\n*** End Patch\n"},
			want:  []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n two\n-three\n+3\n")}},
		{name: "write a new file", tool: "Write", input: map[string]any{"file_path": filepath.Join(root, "new.txt"), "content": "x\ny"}, cwd: root,
			want: []guardrail.Action{edit("new.txt", "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n")}},
		{name: "write over a file", tool: "Write", input: map[string]any{"file_path": "notes.txt", "content": "one\n2\nthree\n"}, cwd: root,
			want: []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n")}},
		{name: "write what is there", tool: "Write", input: map[string]any{"file_path": "notes.txt", "content": "one\ntwo\nthree\n"}, cwd: root,
			want: []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n")}},
		{name: "edit", tool: "Edit", input: map[string]any{"file_path": "notes.txt", "old_string": "three", "new_string": "3\n3b"}, cwd: root,
			want: []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,4 @@\n one\n two\n-three\n+3\n+3b\n")}},
		{name: "edit of text the file does not hold", tool: "Edit", input: map[string]any{"file_path": "notes.txt", "old_string": "four", "new_string": "4"}, cwd: root,
			want: []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,1 +1,1 @@\n-four\n+4\n")}},
		{name: "edit that creates a file", tool: "Edit", input: map[string]any{"file_path": "n.txt", "old_string": "", "new_string": "n\n"}, cwd: root,
			want: []guardrail.Action{edit("n.txt", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,1 @@\n+n\n")}},
		{name: "multi-edit", tool: "MultiEdit", cwd: root, input: map[string]any{"file_path": "notes.txt", "edits": []map[string]any{
			{"old_string": "one", "new_string": "1"}, {"old_string": "e", "new_string": "E", "replace_all": true}}},
			want: []guardrail.Action{edit("notes.txt", "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n-one\n+1\n two\n-three\n+thrEE\n")}},
		{name: "notebook edit", tool: "NotebookEdit", input: map[string]any{"notebook_path": "nb.ipynb", "new_source": "x = 1"}, cwd: root,
			want: []guardrail.Action{edit("nb.ipynb", "--- a/nb.ipynb\n+++ b/nb.ipynb\n@@ -0,0 +1,1 @@\n+x = 1\n")}},
		{name: "notebook cell deleted", tool: "NotebookEdit", input: map[string]any{"notebook_path": "nb.ipynb", "edit_mode": "delete"}, cwd: root,
			want: []guardrail.Action{edit("nb.ipynb", "")}},
		{name: "edit with content that does not decode", tool: "Write", input: map[string]any{"file_path": "notes.txt", "content": 1}, cwd: root,
			want: []guardrail.Action{edit("notes.txt", "")}},
		{name: "write outside the tree", tool: "Write", input: map[string]any{"file_path": "/elsewhere/x", "content": "x"}, cwd: root,
			want: []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: "cat > '/elsewhere/x' <<'HARNISH_EOF'\nx\nHARNISH_EOF"}}},
		{name: "write outside the tree of text that holds the delimiter", tool: "Write", input: map[string]any{"file_path": "/elsewhere/x", "content": "a\nHARNISH_EOF\nb\n"}, cwd: root,
			want: []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: "cat > '/elsewhere/x' <<'HARNISH_EOF1'\na\nHARNISH_EOF\nb\nHARNISH_EOF1"}}},
		{name: "edit outside the tree, relative", tool: "Edit", input: map[string]any{"file_path": "../it's.txt", "old_string": "a", "new_string": "b"}, cwd: root,
			want: []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: "cat > '" + filepath.ToSlash(filepath.Dir(root)) + "/it'\\''s.txt' <<'HARNISH_EOF'\nb\nHARNISH_EOF"}}},
		{name: "other tools", tool: "Read", input: map[string]any{"file_path": "notes.txt"}, cwd: root},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := hook.ParseToolCall(strings.NewReader(hookCall(t, tt.tool, tt.input, tt.cwd)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Actions(root)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Actions (-want +got):\n%s", diff)
			}
			for _, a := range got {
				if _, err := guardrail.ParseDiff(a.Diff); err != nil {
					t.Errorf("the diff of %s does not parse: %v", a.Path, err)
				}
			}
		})
	}
}

func TestParseToolCall(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"not JSON", "{", "decoding the hook input: unexpected end of JSON input"},
		{"no tool", `{"tool_input":{}}`, "the hook input has no tool_name"},
		{"shell without a command", `{"tool_name":"Bash","tool_input":{}}`, "Bash call without tool_input.command"},
		{"edit without a file", `{"tool_name":"Edit","tool_input":{"old_string":"a"}}`, "Edit call without a file path"},
		{"patch naming no file", `{"tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** End Patch"}}`, "apply_patch call names no file in tool_input.command"},
		{"tool input of another shape", `{"tool_name":"Bash","tool_input":[]}`, "decoding tool_input of Bash: "},
		{"command of another shape", `{"tool_name":"shell","tool_input":{"command":{"argv":["ls"]}}}`, "decoding tool_input of shell: command is neither"},
		{"argv list of another shape", `{"tool_name":"shell","tool_input":{"command":["ls",1]}}`, "decoding tool_input of shell: command is neither"},
		{"a tool not judged", `{"tool_name":"WebFetch","tool_input":{"url":"x"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := hook.ParseToolCall(strings.NewReader(tt.in))
			if tt.wantErr == "" {
				if err != nil || c == nil || c.Judged() {
					t.Errorf("ParseToolCall = %+v, %v; want a call not judged", c, err)
				}
				return
			}
			var ie *hook.InputError
			if c != nil || !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("ParseToolCall = %+v, %v; want an InputError %q", c, err, tt.wantErr)
			}
		})
	}
}

// TestBareToolInput: a tool_input that is a JSON string is the command or
// the patch itself.
func TestBareToolInput(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{"keep": ""})
	for _, tt := range []struct {
		tool, input string
		want        []guardrail.Action
	}{
		{"Bash", "rm -r build", []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: "rm -r build"}}},
		{"apply_patch", "*** Begin Patch\n*** Add File: e.txt\n+e\n*** End Patch\n",
			[]guardrail.Action{{Kind: guardrail.KindEdit, Path: "e.txt", Diff: "--- /dev/null\n+++ b/e.txt\n@@ -0,0 +1,1 @@\n+e\n"}}},
	} {
		in, err := json.Marshal(map[string]any{"tool_name": tt.tool, "tool_input": tt.input, "cwd": root})
		if err != nil {
			t.Fatal(err)
		}
		c, err := hook.ParseToolCall(strings.NewReader(string(in)))
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		got, err := c.Actions(root)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Actions (-want +got):\n%s", tt.tool, diff)
		}
	}
}

func TestApplyPatchPaths(t *testing.T) {
	cmd := "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n*** Move to: c.go\n*** Delete File: d.go\n*** End Patch\nPATCH"
	if diff := cmp.Diff([]string{"a.go", "b.go", "c.go", "d.go"}, hook.ApplyPatchPaths(cmd)); diff != "" {
		t.Errorf("applyPatchPaths (-want +got):\n%s", diff)
	}
	if got := hook.ApplyPatchPaths("echo '*** Delete File: x'"); got != nil {
		t.Errorf("without apply_patch = %q, want nil", got)
	}
}

// TestActionsThroughLinks: a file edited through a symbolic link is also
// judged as the file the link leads to: in the tree by its path, outside it
// as the write it amounts to.
func TestActionsThroughLinks(t *testing.T) {
	root := testkit.WriteTree(t, map[string]string{".harnish/state.json": "{}\n", "a.txt": "a\n"})
	for _, l := range [][2]string{{".harnish/state.json", "s.json"}, {".harnish", "h"}, {"a.txt", "b.txt"}, {"/etc/hosts", "hosts"}} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, tool string
		input      map[string]any
		want       []string // the paths or commands judged, in order
	}{
		{"a link to the state", "Write", map[string]any{"file_path": "s.json", "content": "{}"}, []string{"s.json", ".harnish/state.json"}},
		{"a new file under a linked directory", "Write", map[string]any{"file_path": "h/new.json", "content": "{}"}, []string{"h/new.json", ".harnish/new.json"}},
		{"a link within the tree", "Edit", map[string]any{"file_path": "b.txt", "old_string": "a", "new_string": "b"}, []string{"b.txt", "a.txt"}},
		{"a link out of the tree", "Write", map[string]any{"file_path": "hosts", "content": "1.2.3.4 x\n"}, []string{"hosts", "cat > '/etc/hosts' <<'HARNISH_EOF'\n1.2.3.4 x\nHARNISH_EOF"}},
		{"no link", "Write", map[string]any{"file_path": "a.txt", "content": "b\n"}, []string{"a.txt"}},
		{"a patch through a link", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: s.json\n@@\n-{}\n+{\"x\":1}\n*** End Patch\n"}, []string{"s.json", ".harnish/state.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := hook.ParseToolCall(strings.NewReader(hookCall(t, tt.tool, tt.input, root)))
			if err != nil {
				t.Fatal(err)
			}
			acts, err := c.Actions(root)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range acts {
				got = append(got, a.Path+a.Command)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("judged (-want +got):\n%s", diff)
			}
		})
	}
}
