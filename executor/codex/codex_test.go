package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/task"
)

const addA = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n"

// TestCodexRun drives the real CLI through shell commands and a patch and
// reads back the claim, the files, the usage and the transcript; the hooks
// saw every call, so nothing is reported.
func TestCodexRun(t *testing.T) {
	needCodex(t)
	t.Parallel()
	tests := []struct {
		name  string
		final string
		want  *executor.Result
	}{
		{"done", "Wrote a.txt and b.txt.", &executor.Result{Status: executor.StatusDone, Summary: "Wrote a.txt and b.txt."}},
		{"blocked", "I cannot.\nHARNISH-BLOCKED: need the key", &executor.Result{Status: executor.StatusBlocked,
			Reason: "need the key", Summary: "I cannot.\nHARNISH-BLOCKED: need the key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := codextest.NewServer(t,
				codextest.Turn{Items: []codextest.Item{codextest.Shell("mkdir -p sub && printf 'x\\n' > sub/b.txt")}, Usage: codextest.Usage{InputTokens: 100, OutputTokens: 10}},
				codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addA)}, Usage: codextest.Usage{InputTokens: 200, OutputTokens: 20}},
				codextest.Turn{Items: []codextest.Item{codextest.Message(tt.final)}, Usage: codextest.Usage{InputTokens: 300, OutputTokens: 30}},
			)
			work := testkit.GitTree(t)
			ex := newExecutor(t, srv)
			ex.TranscriptDir = t.TempDir()
			res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1,
				WorkDir: work, Prompt: "Write a.txt."})
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(work, "a.txt")); err != nil || string(b) != "hello\n" {
				t.Errorf("a.txt = %q, %v", b, err)
			}
			if !strings.HasPrefix(res.Transcript, ex.TranscriptDir) {
				t.Errorf("transcript at %q", res.Transcript)
			} else if b, _ := os.ReadFile(res.Transcript); !strings.Contains(string(b), `"type":"turn.completed"`) {
				t.Errorf("transcript:\n%s", b)
			}
			tt.want.FilesChanged = []string{"a.txt"} // what Codex reports: its patches, not what commands wrote
			tt.want.Usage = executor.Usage{InputTokens: 600, OutputTokens: 60}
			tt.want.Transcript = res.Transcript
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || !strings.Contains(reqs[0].UserText(), "Write a.txt.") || !strings.Contains(reqs[0].UserText(), "HARNISH-BLOCKED") {
				t.Errorf("the prompt did not reach the model: %d requests", len(reqs))
			}
		})
	}
}

// TestCodexUnguarded: hooks that run but never log (a harnish that is not
// harnish) leave the commands unproven: each is a hard hook.unguarded.
func TestCodexUnguarded(t *testing.T) {
	needCodex(t)
	t.Parallel()
	srv := codextest.NewServer(t,
		codextest.Turn{Items: []codextest.Item{codextest.Shell("echo hi > x.txt")}},
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addA)}},
		codextest.Turn{Items: []codextest.Item{codextest.Message("done")}},
	)
	ex := newExecutor(t, srv)
	ex.Harnish = "/bin/true"
	res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: testkit.GitTree(t), Prompt: "p"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	type v struct {
		Hard         bool
		Rule, Action string
	}
	var got []v
	for _, x := range res.Violations {
		got = append(got, v{x.Hard, x.Rule, x.Action})
	}
	want := []v{{true, "hook.unguarded", "echo hi > x.txt"}, {true, "hook.unguarded", "a.txt"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestCodexPatchTool drives Codex's own freeform apply_patch tool (which a
// model like codextest.PatchModel gets): the hook judges the patch file by
// file, so an edit of .harnish/ is blocked, and an edit it allowed is not
// reported unguarded.
func TestCodexPatchTool(t *testing.T) {
	needCodex(t)
	t.Parallel()
	tests := []struct {
		name   string
		patch  string
		file   string // the file the patch writes
		wrote  bool
		want   []executor.Violation
		output string // in what the model is told
	}{
		{name: "allowed", patch: addA, file: "a.txt", wrote: true, output: "A a.txt"},
		{name: "protected", patch: "*** Begin Patch\n*** Add File: .harnish/state.json\n+{}\n*** End Patch\n",
			file: ".harnish/state.json", output: "edit.protected",
			want: []executor.Violation{{Hard: true, Rule: "edit.protected"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := codextest.NewServer(t,
				codextest.Turn{Items: []codextest.Item{codextest.Patch(tt.patch)}},
				codextest.Turn{Items: []codextest.Item{codextest.Message("done")}},
			)
			work := testkit.GitTree(t)
			ex := newExecutor(t, srv)
			ex.Model = codextest.PatchModel
			res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: work, Prompt: "p"})
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if _, err := os.Stat(filepath.Join(work, tt.file)); (err == nil) != tt.wrote {
				t.Errorf("%s written: %v, want %v", tt.file, err == nil, tt.wrote)
			}
			var got []executor.Violation
			for _, v := range res.Violations {
				got = append(got, executor.Violation{Hard: v.Hard, Rule: v.Rule})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s\nall: %+v", diff, res.Violations)
			}
			if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(strings.Join(reqs[1].ToolOutputs(), "\n"), tt.output) {
				t.Errorf("the model was not told %q: %d requests", tt.output, len(reqs))
			}
		})
	}
}

// TestCodexShellArgs: exec_command calls with a workdir below the tree or an
// interactive session are judged as what they are: overwriting the state
// from a subdirectory is blocked, and so is a bare shell on a tty
// (what Codex would write to it reaches no hook).
func TestCodexShellArgs(t *testing.T) {
	needCodex(t)
	t.Parallel()
	tests := []struct {
		name string
		item codextest.Item
		rule string
	}{
		{"workdir below the tree", codextest.ShellWith("echo x > ../.harnish/state.json", map[string]any{"workdir": "sub"}), "fs.protected"},
		{"bare shell on a tty", codextest.ShellWith("bash", map[string]any{"tty": true}), "shell.interactive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := codextest.NewServer(t, turn(tt.item), turn(codextest.Message("done")))
			work := testkit.GitTree(t)
			for _, d := range []string{"sub", ".harnish"} {
				if err := os.Mkdir(filepath.Join(work, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write(t, filepath.Join(work, ".harnish", "state.json"), "{}")
			ex := newExecutor(t, srv)
			res, err := ex.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: work, Prompt: "p"})
			if err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(work, ".harnish", "state.json")); err != nil || string(b) != "{}" {
				t.Errorf("the state is %q, %v; want it untouched", b, err)
			}
			var rules []string
			for _, v := range res.Violations {
				rules = append(rules, v.Rule)
			}
			if diff := cmp.Diff([]string{tt.rule}, rules); diff != "" {
				t.Errorf("violation rules (-want +got):\n%s\n%+v", diff, res.Violations)
			}
		})
	}
}
