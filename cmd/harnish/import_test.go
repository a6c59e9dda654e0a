package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

const peerPlans = "# Plans\n\n## Phase 1: Files\n\n" +
	"| Task | 内容 | DoD | Depends | Status |\n|---|---|---|---|---|\n" +
	"| 1.1 | Make a | `test -f a.txt` | - | cc:完了 [abc1234] |\n" +
	"| 1.2 | Make b | `test -f b.txt` | 1.1, 0.9 | cc:TODO |\n"

func TestImportCommand(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"Plans.md": peerPlans})
	want, err := importer.Import(filepath.Join(dir, "Plans.md"), importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want.Plan.Executor = &task.Component{Kind: task.KindCommand, Argv: []string{"sh", "agent.sh"}}

	for _, out := range []string{"plan.yaml", "plan.json", ""} {
		t.Run("-o "+out, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"import", "--executor", "sh agent.sh", dir}
			if out != "" {
				args = append(args, "-o", filepath.Join(dir, out))
			}
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			file := filepath.Join(dir, out)
			if out == "" {
				file = filepath.Join(dir, "stdout.yaml")
				if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := task.Load(file)
			if err != nil {
				t.Fatalf("the written plan does not load: %v\n%s", err, stdout.String())
			}
			if diff := cmp.Diff(want.Plan, got, cmpopts.IgnoreUnexported(task.Plan{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("written plan (-imported +loaded):\n%s", diff)
			}
			wantErr := "warning: " + filepath.Join(dir, "Plans.md") + `:8:36: Depends: task "0.9" is not in the file (archived, so taken as done); dependency dropped` + "\n" +
				"imported 1 phase from " + filepath.Join(dir, "Plans.md") + " (plansmd): 2 tasks, 1 done, 0 doing, 1 to do; executor command sh agent.sh; 1 warning\n"
			if diff := cmp.Diff(wantErr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"import", "--format", "yaml", dir}, `harnish import: importer: unknown format "yaml": want auto, progress, steps or plansmd`},
		{[]string{"import"}, "harnish import: want exactly one PATH"},
		{[]string{"import", filepath.Join(dir, "nope")}, "harnish import: importer: " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{[]string{"import", "--format", "steps", dir}, "harnish import: importer: " + dir + ": no plan to import"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tt.args, &stdout, &stderr); code != 1 || !strings.HasPrefix(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want it to start with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestRunPeerPlan: run --plan takes a Plans.md as it is; the task it marks
// done is not done again, and the one the run does is marked done in it.
func TestRunPeerPlan(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"Plans.md": peerPlans,
		"agent.sh": "echo \"$HARNISH_TASK_ID\" >> ran.txt\ntouch b.txt\n", "a.txt": ""})
	var out, errb bytes.Buffer
	code := run([]string{"run", "--dir", dir, "--plan", filepath.Join(dir, "Plans.md"), "--executor", "sh agent.sh", "--yes"}, &out, &errb)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "imported 1 phase from") {
		t.Errorf("stderr lacks the import's summary:\n%s", errb.String())
	}
	ran, err := os.ReadFile(filepath.Join(dir, "ran.txt"))
	if err != nil || string(ran) != "1.2\n" {
		t.Errorf("the agent ran for %q (%v), want only 1.2", ran, err)
	}
	// The peer's file follows the run.
	plans, err := os.ReadFile(filepath.Join(dir, "Plans.md"))
	if err != nil || !strings.Contains(string(plans), "| 1.2 | Make b | `test -f b.txt` | 1.1, 0.9 | cc:完了 |\n") {
		t.Errorf("Plans.md after the run (%v):\n%s", err, plans)
	}
	kept, err := task.Load(filepath.Join(dir, ".harnish", "plan.yaml"))
	if err != nil || len(kept.Tasks()) != 2 {
		t.Errorf("the run keeps no converted plan: %v", err)
	}
}

// TestRunPeerPlanInAGitTree: in a git working tree the peer's file gets the
// commit of each task done, and the agent is not charged with harnish's
// writes to it.
func TestRunPeerPlanInAGitTree(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"Plans.md": peerPlans, ".gitignore": ".harnish/\n",
		"agent.sh": "touch b.txt\n", "a.txt": ""})
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	var out, errb bytes.Buffer
	code := run([]string{"run", "--dir", dir, "--plan", filepath.Join(dir, "Plans.md"), "--executor", "sh agent.sh", "--yes"}, &out, &errb)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
	}
	plans, err := os.ReadFile(filepath.Join(dir, "Plans.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile("\\| 1\\.2 \\| Make b \\| `test -f b.txt` \\| 1\\.1, 0\\.9 \\| cc:完了 \\[[0-9a-f]{7}\\] \\|\n").Match(plans) {
		t.Errorf("Plans.md after the run:\n%s\nstderr:\n%s", plans, errb.String())
	}
	if strings.Contains(errb.String(), "guardrail") || strings.Contains(out.String(), "guardrail") {
		t.Errorf("a guardrail saw harnish's write-back:\n%s%s", out.String(), errb.String())
	}
}

// TestResumePeerPlan: a run started from a peer's file stops at its
// milestone; resumed, with its plan as it was or changed, it goes on
// writing back to the same file.
func TestResumePeerPlan(t *testing.T) {
	t.Run("kept plan", func(t *testing.T) { resumePeerPlan(t, false) })
	t.Run("changed plan", func(t *testing.T) { resumePeerPlan(t, true) })
}

func resumePeerPlan(t *testing.T, changed bool) {
	plans := "# Plans\n\n## Phase 1: A\n\n- [ ] 1.1: Make a `cc:TODO`\n  - DoD: `test -f a.txt`\n\n" +
		"## Phase 2: B\n\n- [ ] 2.1: Make b `cc:TODO` depends:1.1\n  - DoD: `test -f b.txt`\n"
	dir := testkit.WriteTree(t, map[string]string{"Plans.md": plans,
		"agent.sh": "case \"$HARNISH_TASK_ID\" in 1.1) touch a.txt ;; 2.1) touch b.txt ;; esac\n"})
	var out, errb bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--plan", filepath.Join(dir, "Plans.md"), "--executor", "sh agent.sh"}, &out, &errb); code != 2 {
		t.Fatalf("run: exit %d, want 2 (the milestone)\n%s%s", code, out.String(), errb.String())
	}
	read := func() string {
		data, err := os.ReadFile(filepath.Join(dir, "Plans.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if got := read(); !strings.Contains(got, "- [x] 1.1: Make a `cc:完了`\n") || !strings.Contains(got, "- [ ] 2.1: Make b `cc:TODO` depends:1.1\n") {
		t.Errorf("Plans.md at the milestone:\n%s", got)
	}
	out.Reset()
	errb.Reset()
	args := []string{"resume", "--dir", dir, "--approve"}
	if changed {
		// A person changes the run's plan (a task's title) and resumes with it.
		kept, err := os.ReadFile(loop.KeptPlanFile(filepath.Join(dir, loop.StateDir)))
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(kept), "Make b", "Make b, then stop", 1)
		if edited == string(kept) {
			t.Fatalf("the kept plan has no task titled Make b:\n%s", kept)
		}
		changedPlan := filepath.Join(t.TempDir(), "changed.yaml")
		if err := os.WriteFile(changedPlan, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--plan", changedPlan)
	}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("resume: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if got := read(); !strings.Contains(got, "- [x] 2.1: Make b `cc:完了` depends:1.1\n") {
		t.Errorf("Plans.md after the resume:\n%s\n%s", got, errb.String())
	}
}
