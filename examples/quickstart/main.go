// Command quickstart shows harnish end to end, as a library: it creates a
// small Go project in a new git repository, and drives a plan of two phases
// and four tasks through the loop. A scripted agent makes the changes, so
// the story is the same every time; the checks (go test, go vet), the
// reviewer and the debugger are real programs the loop runs. You see:
//
//   - a task that passes on the first try (add);
//   - a retry after a new failure: a compile error, then a failing test,
//     then a pass (divide);
//   - a Critical review finding sent back, then fixed (divide-zero);
//   - a milestone gate between the phases, with its checklist;
//   - the two-strike rule: the same failure twice, the debugger finds no
//     root cause, and the task halts for a person instead of a blind third
//     try (cli).
//
// Run it from the repository root:
//
//	go run ./examples/quickstart
//
// It exits 0 when the run ends as the demo intends (halted at cli), and
// prints where the state, logs and handoffs are.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

//go:embed all:testdata/project
var project embed.FS

func main() {
	dir := flag.String("dir", "", "where to create the demo project (default: a new temporary directory)")
	flag.Parse()
	code, err := run(*dir, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
	}
	os.Exit(code)
}

// run creates the project in dir (a new temporary directory when empty),
// runs the plan, and returns the exit status: 0 when the run ended as the
// demo intends.
func run(dir string, out io.Writer) (int, error) {
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "harnish-quickstart-"); err != nil {
			return 1, err
		}
	}
	if err := writeProject(dir); err != nil {
		return 1, err
	}
	plan, err := task.Load(filepath.Join(dir, "plan.yaml"))
	if err != nil {
		return 1, err
	}
	stateDir := filepath.Join(dir, loop.StateDir)
	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		return 1, err
	}
	defer store.Close()
	guard, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(out, "quickstart: plan %q, %d tasks, in %s\n\n", plan.Name, len(plan.Tasks()), dir)
	l, err := loop.New(loop.Config{
		Plan:        plan,
		WorkDir:     dir,
		Executor:    &executor.Command{Argv: plan.Executor.Argv},
		Verifier:    verify.Acceptance{},
		Reviewer:    &verify.CommandReviewer{Argv: plan.Reviewer.Argv},
		Debugger:    &executor.CommandDebugger{Argv: plan.Debugger.Argv},
		Guardrail:   guard, // every attempt's diff: secrets, protected paths, scope, size, TDD
		Gate:        &checklistGate{out: out},
		Store:       store,
		RecordsDir:  stateDir,
		CommitTasks: true, // one commit per task done
		Observer:    &narrator{out: out, start: time.Now()},
	})
	if err != nil {
		return 1, err
	}
	res, err := l.Run(context.Background())
	if res == nil {
		return 1, err
	}
	fmt.Fprintf(out, "\noutcome: %s (exit code %d): %s\n", res.Outcome, res.Outcome.ExitCode(), res.Reason)
	fmt.Fprintf(out, "state:    %s\n", filepath.Join(stateDir, loop.SnapshotFile))
	fmt.Fprintf(out, "logs:     %s\n", filepath.Join(stateDir, "logs", plan.Name))
	fmt.Fprintf(out, "handoffs: %s\n", filepath.Join(stateDir, "handoffs"))
	fmt.Fprintf(out, "commits:  git -C %s log --oneline\n", dir)
	if reports, _ := filepath.Glob(filepath.Join(stateDir, "escalation-*.md")); len(reports) > 0 {
		fmt.Fprintf(out, "report:   %s\n", reports[0])
	}
	if cli := res.State.Tasks["cli"]; res.Outcome != policy.Halted || cli == nil || cli.Status != policy.StatusHalted {
		return 1, fmt.Errorf("the demo should end halted at task cli; it ended %s", res.Outcome)
	}
	fmt.Fprintln(out, "\nThe run halted at cli, as this demo intends: the same failure came back, the\n"+
		"debugger found no root cause, and the loop stopped for a person instead of a blind third try.")
	return 0, nil
}

// writeProject writes the embedded project into dir and makes it a git
// repository with one commit, as a real working tree would be.
func writeProject(dir string) error {
	root := "testdata/project"
	err := fs.WalkDir(project, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := project.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = strings.TrimSuffix(rel, ".txt") // go.mod.txt: a go.mod would make the folder a module of its own
		target := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".harnish/\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=harnish", "-c", "user.email=harnish@localhost", "commit", "-q", "-m", "quickstart: the project before the run"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// checklistGate shows the milestone's checklist and approves it, as a person
// running the demo would.
type checklistGate struct{ out io.Writer }

func (g *checklistGate) Decide(ctx context.Context, req *loop.GateRequest) (*policy.GateDecision, error) {
	fmt.Fprintf(g.out, "  -- milestone: phase %s is done; checklist:\n", req.Phase)
	for _, item := range req.Manual {
		fmt.Fprintf(g.out, "       [x] %s\n", item)
	}
	fmt.Fprintf(g.out, "     approved; on to phase %s\n", req.Next)
	return &policy.GateDecision{Verdict: policy.Approve, By: "quickstart"}, nil
}

// narrator prints the events a person follows.
type narrator struct {
	out   io.Writer
	start time.Time
}

func (n *narrator) Observe(e loop.Event) {
	var line string
	switch e.Type {
	case loop.GuardrailViolated:
		line = fmt.Sprintf("  attempt %d: guardrail %s (%s): %s", e.Attempt, e.Rule, e.Level, e.Message)
	case loop.TaskStarted:
		line = fmt.Sprintf("task %s", e.Task)
	case loop.VerifyFailed:
		line = fmt.Sprintf("  attempt %d: checks fail: %s", e.Attempt, e.Message)
	case loop.VerifyPassed:
		line = fmt.Sprintf("  attempt %d: checks pass", e.Attempt)
	case loop.ReviewFindings:
		line = fmt.Sprintf("  attempt %d: review: %s", e.Attempt, e.Message)
	case loop.AttemptFinished:
		if strings.HasPrefix(e.Message, "review") {
			line = "  sent back: " + e.Message
		}
	case loop.DebuggerInvoked:
		line = "  the same failure twice: the debugger investigates: " + e.Message
	case loop.FiveWhysRecorded:
		line = "  five whys recorded"
	case loop.TaskDone:
		line = fmt.Sprintf("  %s done", e.Task)
	case loop.TaskHalted, loop.TaskEscalated, loop.TaskBlocked:
		line = fmt.Sprintf("  %s %s: %s", e.Task, strings.TrimPrefix(string(e.Type), "task."), e.Message)
	}
	if line != "" {
		fmt.Fprintln(n.out, line)
	}
}
