package loop_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
)

// TestCompletionSummary: the summary lists each task's files as its commit
// has them, the decisions recorded during the run, and a next step; the
// session notes are asked for once, saved, and committed with the records;
// a resume of the completed run neither asks again nor rewrites the
// summary, and one after a crash that lost the summary asks again and
// writes the notes where they were.
func TestCompletionSummary(t *testing.T) {
	dir := testkit.GitTree(t)
	records := filepath.Join(dir, loop.StateDir)
	assets, err := asset.OpenFile(filepath.Join(t.TempDir(), "assets.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer assets.Close()
	for _, a := range []*asset.Asset{
		{Type: asset.TypeDecision, Title: "Money is int64 cents", Tags: []string{"calc"}, Date: looptest.Epoch.Add(time.Minute)},
		{Type: asset.TypeDecision, Title: "An older run's decision", Tags: []string{"calc"}, Date: looptest.Epoch.Add(-48 * time.Hour)},
	} {
		if err := assets.Record(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	var asked atomic.Int32
	notes := func(_ context.Context, req *loop.SessionNotesRequest) (string, error) {
		asked.Add(1)
		return req.Path, nil
	}
	cfg := loop.Config{Plan: onePhase(check("T1"), check("T2")), WorkDir: dir, RecordsDir: records, CommitTasks: true, Assets: assets,
		SessionNotes: notes, Store: looptest.NewStore(), Verifier: &looptest.Verifier{}, Now: (&looptest.Clock{}).Now,
		Executor: &looptest.Executor{Script: map[string][]looptest.Act{
			"T1": {writes("a.txt", "a\n")},
			"T2": {writes("sub/b.txt", "b\n")},
		}}}
	if _, _, err := looptest.Run(t, cfg); err != nil {
		t.Fatal(err)
	}
	summaryPath := filepath.Join(records, "summary.md")
	summary := readFile(t, summaryPath)
	const notesPath = "docs/session-2026-01-02.md"
	for _, want := range []string{
		"# Run test-run of plan p completed\n",
		"### T1: T1\n\ndone after 1 attempt(s). scripted\nFiles (from its commit): a.txt\n",
		"### T2: T2\n\ndone after 1 attempt(s). scripted\nFiles (from its commit): sub/b.txt\n",
		"## Files changed\n\n- a.txt\n- sub/b.txt\n",
		"## Key decisions\n\n- Money is int64 cents\n\n",
		"## Suggested next step\n\nReview the changes and merge them.\n",
		"\nSession notes: " + notesPath + "\n",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, summary)
		}
	}
	if strings.Contains(summary, "older run") {
		t.Errorf("summary.md lists a decision of an older run:\n%s", summary)
	}
	saved := readFile(t, filepath.Join(dir, notesPath))
	if want, _, _ := strings.Cut(summary, "\nSession notes: "); saved != want {
		t.Errorf("%s:\n%s\nwant the summary:\n%s", notesPath, saved, want)
	}
	if got := gitOut(t, dir, "show", "--name-only", "--format=", "HEAD"); !strings.Contains(got, notesPath) {
		t.Errorf("the records commit lacks the session notes:\n%s", got)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times for the session notes, want once", n)
	}

	// A person adds to the summary; resuming the completed run keeps it.
	edited := summary + "Checked by hand.\n"
	if err := os.WriteFile(summaryPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	resume := func() {
		t.Helper()
		cfg.Observer = nil
		l, err := loop.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Resume(context.Background(), loop.ResumeOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	resume()
	if got := readFile(t, summaryPath); got != edited {
		t.Errorf("a resume rewrote summary.md:\n%s", got)
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times for the session notes after a resume, want once", n)
	}

	// A crash lost the summary: the ceremony is done again, to the same notes.
	os.Remove(summaryPath)
	resume()
	if got := readFile(t, summaryPath); !strings.Contains(got, "\nSession notes: "+notesPath+"\n") {
		t.Errorf("summary.md after a lost one:\n%s", got)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("asked %d times, want again after the summary was lost", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "session-2026-01-02-2.md")); err == nil {
		t.Error("the notes were saved a second time under another name")
	}
}

// TestSessionNotesHook: where the host's answer saves the notes, and that
// nothing is saved outside the working tree or into the state directory.
func TestSessionNotesHook(t *testing.T) {
	tests := []struct {
		name string
		hook loop.SessionNotes
		want string // the file saved, relative to the tree; "" for none
	}{
		{"the suggested path", loop.SaveSessionNotes, "docs/session-2026-01-02.md"},
		{"a path of its own", answer("notes/run.md", nil), "notes/run.md"},
		{"declined", answer("", nil), ""},
		{"an error", answer("docs/x.md", errors.New("no")), ""},
		{"outside the tree", answer("../escape.md", nil), ""},
		{"into the state directory", answer(".harnish/notes.md", nil), ""},
		{"a panic", func(context.Context, *loop.SessionNotesRequest) (string, error) { panic("host bug") }, ""},
		{"through a link out of the tree", answer("out/x.md", nil), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tree := filepath.Join(dir, "tree")
			os.Mkdir(tree, 0o755)
			os.Mkdir(filepath.Join(dir, "elsewhere"), 0o755)
			if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(tree, "out")); err != nil {
				t.Fatal(err)
			}
			if _, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), WorkDir: tree,
				RecordsDir: filepath.Join(tree, loop.StateDir), SessionNotes: tt.hook}); err != nil {
				t.Fatal(err)
			}
			var got []string
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, "summary.md") {
					rel, _ := filepath.Rel(tree, path)
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("notes saved (-want +got):\n%s", diff)
			}
			summary := readFile(t, filepath.Join(tree, loop.StateDir, "summary.md"))
			if has := strings.Contains(summary, "Session notes: "); has != (tt.want != "") {
				t.Errorf("summary.md names notes: %v, want %v\n%s", has, tt.want != "", summary)
			}
		})
	}
}

func answer(path string, err error) loop.SessionNotes {
	return func(context.Context, *loop.SessionNotesRequest) (string, error) { return path, err }
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
