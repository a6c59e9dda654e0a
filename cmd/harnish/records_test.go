package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
)

// chattyAgent is agentScript that also talks: a JSON event and a line of
// text on stdout, a line on stderr.
const chattyAgent = `echo '{"type":"thinking","task":"'"$HARNISH_TASK_ID"'"}'
echo "working on $HARNISH_TASK_ID"
echo "note from $HARNISH_TASK_ID/$HARNISH_ATTEMPT" >&2
` + agentScript

// TestRunRecordsFlags: harnish run (the binary) keeps each attempt's
// transcript, names it in the audit log, and with --session-notes saves
// the completion summary as docs/session-DATE.md in the run's records
// commit; --no-transcripts keeps none, and without --session-notes nothing
// is saved in the tree.
func TestRunRecordsFlags(t *testing.T) {
	bin := harnishBinary(t)
	tree := func(t *testing.T) string {
		dir := testkit.GitTree(t)
		for name, text := range map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": chattyAgent} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "-q", "-m", "plan")
		return dir
	}
	harnish := func(t *testing.T, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"run", "--dir", dir, "--yes"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("harnish run %v: %v\n%s", args, err, out.String())
		}
	}
	state := func(dir string, parts ...string) string {
		return filepath.Join(append([]string{dir, loop.StateDir}, parts...)...)
	}

	t.Run("transcripts and session notes", func(t *testing.T) {
		dir := tree(t)
		harnish(t, dir, "--session-notes")
		// T2's first attempt failed its check: its transcript is kept too.
		for _, name := range []string{"T1-1", "T2-1", "T2-2"} {
			task, attempt, _ := strings.Cut(name, "-")
			data, err := os.ReadFile(state(dir, "transcripts", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			want := []string{`{"type":"thinking","task":"` + task + `"}`, `{"harnish":"stdout","line":"working on ` + task + `"}`,
				`{"harnish":"exit","exit_code":0,"stderr":"note from ` + task + `/` + attempt + `\n"}`}
			if len(lines) != 4 || !strings.HasPrefix(lines[0], `{"harnish":"attempt","agent":"command","task":"`+task+`"`) ||
				strings.Join(lines[1:], "\n") != strings.Join(want, "\n") {
				t.Errorf("%s.jsonl:\n%s", name, data)
			}
		}
		var audit loop.AuditLog
		data, err := os.ReadFile(state(dir, "logs", "cli-test", "task-T2.json"))
		if err == nil {
			err = json.Unmarshal(data, &audit)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(audit.Attempts) != 2 || audit.Attempts[0].Transcript != "transcripts/T2-1.jsonl" || audit.Attempts[1].Transcript != "transcripts/T2-2.jsonl" ||
			!audit.Passed || audit.Retries != 1 || len(audit.FailureModes) != 1 || audit.FinalCheck != `sh -c "test -f b.txt"` {
			t.Errorf("audit log of T2:\n%s", data)
		}
		notes := "docs/session-" + time.Now().UTC().Format("2006-01-02") + ".md"
		saved, err := os.ReadFile(filepath.Join(dir, notes))
		if err != nil {
			t.Fatal(err)
		}
		summary, _ := os.ReadFile(state(dir, "summary.md"))
		if !strings.HasPrefix(string(summary), string(saved)) || !strings.Contains(string(summary), "Session notes: "+notes) ||
			!strings.Contains(string(saved), "Files (from its commit): b.txt") {
			t.Errorf("notes:\n%s\nsummary.md:\n%s", saved, summary)
		}
		if got := gitIn(t, dir, "show", "--name-only", "--format=", "HEAD"); !strings.Contains(got, notes) || strings.Contains(got, "transcripts") {
			t.Errorf("the records commit holds:\n%s", got)
		}
		if got := gitIn(t, dir, "status", "--porcelain", "--untracked-files=all", "--", ".", ":!.harnish"); got != "" {
			t.Errorf("left in the tree uncommitted:\n%s", got)
		}
	})

	t.Run("no transcripts, no notes", func(t *testing.T) {
		dir := tree(t)
		harnish(t, dir, "--no-transcripts")
		if _, err := os.Stat(state(dir, "transcripts")); !os.IsNotExist(err) {
			t.Errorf("transcripts kept with --no-transcripts: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "docs")); !os.IsNotExist(err) {
			t.Errorf("session notes saved without --session-notes: %v", err)
		}
		data, _ := os.ReadFile(state(dir, "logs", "cli-test", "task-T1.json"))
		if strings.Contains(string(data), `"transcript"`) {
			t.Errorf("the audit log names a transcript:\n%s", data)
		}
	})
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
