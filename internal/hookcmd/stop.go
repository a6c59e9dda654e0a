package hookcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/cli"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// stopInput is the part of a Stop hook call harnish reads.
type stopInput struct {
	HookEventName  string `json:"hook_event_name"`
	Cwd            string `json:"cwd"`
	StopHookActive bool   `json:"stop_hook_active"`
}

// hookStop is "harnish hook stop": it runs the current task's acceptance
// checks and refuses the agent's stop (exit 2, the failure on stderr, which
// Claude Code and Codex hand the model as the reason to go on) while they
// fail. The task is --task, else HARNISH_TASK_ID (set by harnish for the
// agent it runs), else the task the run in the working tree has running;
// when none is known there is nothing to hold the agent to, and it may stop.
func hookStop(args []string, stdin io.Reader, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook stop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	agent := fs.String("agent", "", "claude or codex")
	planFile := fs.String("plan", "", "the plan file")
	taskID := fs.String("task", "", "the task whose checks must pass")
	rest, err := cli.ParseFlags(fs, args)
	switch {
	case err != nil:
	case len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q", rest[0])
	case *agent != "claude" && *agent != "codex":
		err = fmt.Errorf("--agent must be claude or codex, not %q", *agent)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish hook stop: %v\n", err)
		return cli.ExitError
	}
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	var in stopInput
	if err == nil && len(data) > maxHookInput {
		err = fmt.Errorf("the hook input is larger than %d bytes", maxHookInput)
	}
	if err == nil {
		err = json.Unmarshal(data, &in)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish hook stop: decoding the hook input: %v\n", err)
		return ExitBlock
	}
	root, err := hookRoot(in.Cwd)
	if err != nil {
		fmt.Fprintf(stderr, "harnish hook stop: %v\n", err)
		return ExitBlock
	}
	if n, ok := stopRefusals(in.StopHookActive); !ok {
		// The agent has been sent back n times already: let it stop, and the
		// loop's own verification decide. Refusing forever only burns the
		// attempt's time.
		fmt.Fprintf(stderr, "harnish: the stop was refused %d times; the harness verifies the task now\n", n)
		return logStop(*agent, "", stderr)
	}
	plan, t, err := stopTask(root, *planFile, *taskID)
	if err != nil {
		// Refused, and counted like any refusal, so that a plan or task that
		// does not load cannot hold the agent forever.
		fmt.Fprintf(stderr, "harnish hook stop: %v\n", err)
		logStop(*agent, "the task cannot be loaded: "+err.Error(), stderr)
		return ExitBlock
	}
	if t == nil {
		return logStop(*agent, "", stderr)
	}
	// An agent that gives up on its hook terminates it: the checks' processes
	// must end with it, not outlive it.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	rep, err := verify.Acceptance{}.Verify(ctx, &verify.Request{Task: t, PhaseID: phaseOf(plan, t.ID), WorkDir: root})
	if errors.Is(err, verify.ErrNoChecks) {
		return logStop(*agent, "", stderr) // only manual checks: a person decides, at the milestone
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish: the checks of task %s could not run, so the task is not done: %v\n", t.ID, err)
		logStop(*agent, "checks could not run: "+err.Error(), stderr)
		return ExitBlock
	}
	if rep.Passed {
		return logStop(*agent, "", stderr)
	}
	logStop(*agent, "checks fail: "+rep.Fingerprint.Summary, stderr)
	fmt.Fprintf(stderr, "harnish: task %s is not done: its checks fail (%s). Keep working until they pass.\n",
		t.ID, rep.Fingerprint.Summary)
	for _, c := range rep.Checks {
		if !c.Passed {
			fmt.Fprintf(stderr, "\n$ %s\n%s\n", c.Name, strings.TrimRight(c.OutputTail, "\n"))
			break
		}
	}
	return ExitBlock
}

// maxStopRefusals is how many times in one attempt the stop hook sends the
// agent back to work while the checks fail.
const maxStopRefusals = 3

// stopRefusals returns how many stops of this attempt were refused, and
// whether one more may be. The count comes from the hook log; without one,
// only a stop that is not already a continuation (stop_hook_active) may be
// refused.
func stopRefusals(active bool) (int, bool) {
	logPath := os.Getenv(guardrail.EnvHookLog)
	if logPath == "" {
		if active {
			return 1, false
		}
		return 0, true
	}
	recs, _ := guardrail.ReadHookLog(logPath) // an unreadable log counts none
	n := 0
	for _, r := range recs {
		if r.Event == guardrail.HookStop && r.Refused {
			n++
		}
	}
	return n, n < maxStopRefusals
}

// logStop appends the stop hook's answer to the hook log, when
// $HARNISH_HOOK_LOG names one; refused is the reason it refused the stop, or
// "". It returns the exit status of an allowed stop, unless the log cannot be
// written.
func logStop(agent, refused string, stderr io.Writer) int {
	logPath := os.Getenv(guardrail.EnvHookLog)
	if logPath == "" {
		return cli.ExitOK
	}
	r := guardrail.HookRecord{Time: time.Now().UTC(), Event: guardrail.HookStop, Agent: agent,
		Refused: refused != "", Reason: refused}
	if err := guardrail.AppendHookRecord(logPath, r); err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return ExitBlock
	}
	return cli.ExitOK
}

// stopTask finds the plan and the task a stop hook holds the agent to.
func stopTask(root, planFile, id string) (*task.Plan, *task.Task, error) {
	stateDir := filepath.Join(root, loop.StateDir)
	var plan *task.Plan
	var err error
	if kept := cli.KeptPlanFile(stateDir); planFile == "" && kept != "" {
		// The run's own plan; one that does not load is an error, not a
		// reason to judge by another plan.
		plan, err = task.Load(kept)
	} else {
		plan, _, err = cli.LoadPlan(planFile, root)
	}
	if err != nil {
		return nil, nil, err
	}
	if plan == nil {
		return nil, nil, nil
	}
	if id == "" {
		id = os.Getenv(executor.EnvTaskID)
	}
	if id == "" {
		if st, err := loop.ReadState(stateDir); err == nil {
			for _, pt := range plan.Tasks() {
				if ts := st.Tasks[pt.Task.ID]; ts != nil && ts.Status == policy.StatusRunning {
					id = pt.Task.ID
				}
			}
		}
	}
	if id == "" {
		return plan, nil, nil
	}
	for _, pt := range plan.Tasks() {
		if pt.Task.ID == id {
			return plan, pt.Task, nil
		}
	}
	return nil, nil, fmt.Errorf("the plan has no task %q", id)
}

func phaseOf(plan *task.Plan, id string) string {
	for _, pt := range plan.Tasks() {
		if pt.Task.ID == id {
			return pt.Phase.ID
		}
	}
	return ""
}
