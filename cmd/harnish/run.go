package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/cli"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

var runCommand = &command{
	name:    "run",
	args:    "[--plan FILE] [--dir DIR] [--yes] [--allow-dirty] [--json]",
	summary: "carry a plan out in a working tree",
	help: `Run drives the plan through the loop in the working tree DIR (default: the
current directory): each task is executed, its acceptance checks are run,
failures are retried within budgets, and milestone gates pause the run.
The state goes to DIR/.harnish/; a copy of the plan is kept there for
"harnish resume". In a git working tree the run works on a new branch,
harnish/<plan>-<time>, commits each finished task, and refuses to start on
uncommitted changes (other than the plan file) unless --allow-dirty.
--rollback undoes a failed attempt's changes before the next attempt. --plan defaults to the first of harnish.yaml, harnish.yml,
harnish.json, plan.yaml, plan.yml, plan.json in DIR.

The plan's executor is a program (kind command, argv) or an agent CLI:
kind codex runs "codex exec --json", kind claude "claude -p"; either must be
on PATH, each attempt gets a fresh CODEX_HOME or HOME, and the agent's hooks
call back into this harnish ("hook pre-tool-use", "hook stop") with the
plan kept in .harnish/. A command the hooks never saw stops the run.

--yes approves every milestone gate. Without it, a terminal is asked; with
no terminal the run ends awaiting approval. --json prints one event per line
on stdout instead of progress.

Exit status: 0 completed; 1 usage or internal error; 2 needs a person
(escalated, halted, blocked, awaiting approval); 3 stopped by a hard
guardrail; 4 budget exceeded; 130 cancelled (Ctrl-C; resume continues).
`,
	run: runRun,
}

var resumeCommand = &command{
	name:    "resume",
	args:    "[--dir DIR] [--plan FILE] [--yes] [--approve] [--json]",
	summary: "continue the run recorded in a working tree",
	help: `Resume continues the run recorded in DIR/.harnish/ with the plan kept there,
or with --plan FILE, a changed plan (of the same name), which is kept from
then on: after a task escalated, a person may change it and resume.
--approve approves the milestone gate the run waits at. Other flags and the
exit status are those of "harnish run".
`,
	run: runResume,
}

var statusCommand = &command{
	name:    "status",
	args:    "[--dir DIR] [--json]",
	summary: "show where the recorded run stands",
	help: `Status prints the run recorded in DIR/.harnish/: its outcome, each task's
status and attempts, and what it spent. --json prints the state itself.
It reads without locking, so it works while a run is going.
`,
	run: runStatus,
}

// runFlags are the flags run and resume share.
type runFlags struct {
	plan, dir       string
	yes, json, appr bool
	allowDirty      bool
	rollback        bool
	runID           string // for a new run
	branch          string // for a new run in a git tree
	noCommit        bool   // the tree was dirty at the start
}

func parseRunFlags(c *command, args []string, resume bool, stdout, stderr io.Writer) (*runFlags, int, bool) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &runFlags{}
	fs.StringVar(&f.plan, "plan", "", "the plan file")
	if resume {
		fs.BoolVar(&f.appr, "approve", false, "approve the gate the run waits at")
	} else {
		fs.BoolVar(&f.allowDirty, "allow-dirty", false, "start on a working tree with uncommitted changes")
	}
	fs.StringVar(&f.dir, "dir", ".", "the working tree")
	fs.BoolVar(&f.yes, "yes", false, "approve every milestone gate")
	fs.BoolVar(&f.json, "json", false, "print events as JSON lines")
	fs.BoolVar(&f.rollback, "rollback", false, "undo a failed attempt's changes before the next")
	rest, err := cli.ParseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return nil, exitOK, false
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish %s: %v\nUsage: harnish %s %s\n", c.name, err, c.name, c.args)
		return nil, exitError, false
	}
	return f, 0, true
}

func runRun(c *command, args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseRunFlags(c, args, false, stdout, stderr)
	if !ok {
		return code
	}
	plan, file, err := cli.LoadPlan(f.plan, f.dir)
	if err == nil && plan == nil {
		err = fmt.Errorf("no plan: give --plan FILE or put one of %v in %s", cli.DefaultPlanFiles, f.dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return exitError
	}
	stateDir := filepath.Join(f.dir, loop.StateDir)
	switch st, err := loop.ReadState(stateDir); {
	case err == nil:
		fmt.Fprintf(stderr, "harnish run: %s holds run %s (%s); continue it with \"harnish resume\", or move the directory away to start anew\n",
			stateDir, st.Run, statusWord(st))
		return exitError
	case !errors.Is(err, loop.ErrNoState):
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return exitError
	}
	runID := time.Now().UTC().Format("20060102-150405")
	if isGitTree(f.dir) {
		// Never sweep a user's unrelated changes into a task's commit.
		rel, _ := filepath.Rel(f.dir, file)
		changes, err := gitx.Changes(cmdContext(), f.dir, loop.StateDir, filepath.ToSlash(rel))
		if err == nil && len(changes) > 0 {
			if !f.allowDirty {
				err = fmt.Errorf("the working tree has uncommitted changes (%s); commit or stash them, or pass --allow-dirty",
					strings.Join(changes[:min(len(changes), 5)], ", "))
			} else {
				// Committing tasks would sweep those changes in with the first.
				f.noCommit = true
				fmt.Fprintln(stderr, "harnish run: uncommitted changes: finished tasks will not be committed")
			}
		}
		if err == nil {
			// The loop makes the branch once the run is on record, so a crash
			// in between leaves a run that resume finds, not a lone branch.
			f.branch, err = gitx.FreeBranchName(cmdContext(), f.dir, "harnish/"+plan.Name+"-"+runID)
		}
		if err != nil {
			fmt.Fprintf(stderr, "harnish run: %v\n", err)
			return exitError
		}
	}
	if err := cli.KeepPlan(stateDir, file); err != nil {
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return exitError
	}
	f.runID = runID
	return drive(f, plan, stdout, stderr, func(ctx context.Context, l *loop.Loop) (*loop.Result, error) { return l.Run(ctx) })
}

func runResume(c *command, args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseRunFlags(c, args, true, stdout, stderr)
	if !ok {
		return code
	}
	stateDir := filepath.Join(f.dir, loop.StateDir)
	var plan *task.Plan
	var err error
	if f.plan != "" {
		if plan, err = task.Load(f.plan); err == nil {
			err = cli.KeepPlan(stateDir, f.plan)
		}
	} else {
		plan, err = cli.LoadKeptPlan(stateDir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish resume: the run's plan: %v\n", err)
		return exitError
	}
	return drive(f, plan, stdout, stderr, func(ctx context.Context, l *loop.Loop) (*loop.Result, error) {
		return l.Resume(ctx, f.appr)
	})
}

// drive builds the loop from the plan and runs it until it ends or the user
// interrupts it, and returns the outcome's exit status.
func drive(f *runFlags, plan *task.Plan, stdout, stderr io.Writer, start func(context.Context, *loop.Loop) (*loop.Result, error)) int {
	root, err := filepath.Abs(f.dir)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	stateDir := filepath.Join(root, loop.StateDir)
	cfg, host, err := components(plan, root)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	if host != nil {
		defer host.Close()
	}
	if isGitTree(root) {
		cfg.CommitTasks, cfg.Rollback = !f.noCommit, f.rollback
	} else {
		fmt.Fprintf(stderr, "harnish: %s is not a git working tree: what each attempt changes cannot be audited or committed\n", root)
		cfg.Guardrail = nil
	}
	cfg.RunID, cfg.Branch = f.runID, f.branch
	// Warnings (a record or a commit that failed) reach the person running it.
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	defer store.Close()
	if err := markRun(stateDir, f.runID, store, stderr); err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	_, statErr := os.Stat(assetsPath(root))
	assets, err := asset.OpenFile(assetsPath(root), nil)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	defer assets.Close()
	// A new store starts from the engine's history, when the tree has one.
	if engine := filepath.Join(root, "harnish-assets.jsonl"); errors.Is(statErr, fs.ErrNotExist) {
		if _, err := os.Stat(engine); err == nil {
			n, err := asset.Import(cmdContext(), assets, engine)
			if err != nil {
				fmt.Fprintf(stderr, "harnish: %v\n", err)
				return exitError
			}
			fmt.Fprintf(stderr, "harnish: imported %d assets from %s\n", n, engine)
		}
	}
	cfg.Plan, cfg.WorkDir, cfg.Store, cfg.RecordsDir, cfg.Assets = plan, root, store, stateDir, assets
	switch {
	case f.yes:
		cfg.Gate = loop.AutoApprove{}
	case isTerminal(os.Stdin):
		cfg.Gate = &loop.Prompt{In: os.Stdin, Out: stderr}
	}
	if f.json {
		cfg.Observer = jsonEvents(stdout)
	} else {
		cfg.Observer = &progress{w: stdout, start: time.Now()}
	}
	l, err := loop.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := start(ctx, l)
	if res == nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	if !f.json {
		if res.Reason != "" {
			fmt.Fprintf(stdout, "%s: %s\n", res.Outcome, res.Reason)
		} else {
			fmt.Fprintln(stdout, res.Outcome)
		}
		fmt.Fprintf(stdout, "state, logs and handoffs: %s\n", stateDir)
	}
	return res.Outcome.ExitCode()
}

// markRun marks every process this harnish starts as the run's (proc.EnvRun
// in its own environment, which they inherit), after ending those a killed
// harnish of the same run left behind: an agent still editing the tree must
// not work beside the next attempt. The store's lock is held, so no live
// harnish drives the run. The mark names the state directory too: run IDs
// are times, and two trees' runs may share one.
func markRun(stateDir, runID string, store loop.Store, stderr io.Writer) error {
	if runID == "" {
		st, err := store.Load(cmdContext())
		if errors.Is(err, loop.ErrNoState) {
			return nil
		}
		if err != nil {
			return err
		}
		runID = st.Run
	}
	mark := stateDir + "#" + runID
	killed, err := proc.KillStrays(cmdContext(), proc.EnvRun, mark)
	if len(killed) > 0 {
		fmt.Fprintf(stderr, "harnish: ended %d process(es) a stopped run %s left behind: %v\n", len(killed), runID, killed)
	}
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("end what run %s left behind: %w", runID, err)
	}
	return os.Setenv(proc.EnvRun, mark)
}

// components builds the executor, verifier, reviewer and debugger a plan
// names, and the edit guard its guardrail settings ask for. The verifier
// always runs the tasks' own acceptance checks. Components of kind plugin
// come from the working tree's plugin manifest; the host that runs them is
// returned for the caller to close.
func components(plan *task.Plan, root string) (loop.Config, *plugins.Host, error) {
	editCfg := guardrail.PlanEditConfig(plan, os.DirFS(root))
	g, err := guardrail.NewEditGuard(editCfg)
	if err != nil {
		return loop.Config{}, nil, err
	}
	cfg := loop.Config{Verifier: verify.Acceptance{}, Guardrail: g}
	if plan.Executor == nil {
		return cfg, nil, errors.New("the plan names no executor (executor: {kind: command, argv: [...]})")
	}
	if plan.Debugger != nil && plan.Debugger.Kind != task.KindCommand {
		return cfg, nil, fmt.Errorf("debugger kind %q is not available in this harnish; use kind command", plan.Debugger.Kind)
	}
	var named []string
	for _, c := range []*task.Component{plan.Executor, plan.Reviewer} {
		if c != nil && c.Kind == task.KindPlugin {
			named = append(named, c.Plugin)
		}
	}
	host, err := openPlugins(root, named)
	if err != nil {
		return cfg, nil, err
	}
	fail := func(err error) (loop.Config, *plugins.Host, error) {
		if host != nil {
			host.Close()
		}
		return cfg, nil, err
	}
	switch c := plan.Executor; c.Kind {
	case task.KindCommand:
		cfg.Executor = &executor.Command{Argv: c.Argv, Env: c.Env}
	case task.KindPlugin:
		if cfg.Executor, err = host.Executor(c.Plugin); err != nil {
			return fail(err)
		}
	case task.KindCodex, task.KindClaude:
		// The agent's hooks call this very binary, or harnish-hook beside it,
		// with the plan the run keeps.
		self, err := os.Executable()
		if err != nil {
			return fail(fmt.Errorf("the %s executor's hooks need harnish's own path: %w", c.Kind, err))
		}
		hooks := hookProgram(self)
		kept := cli.KeptPlanFile(filepath.Join(root, loop.StateDir))
		if c.Kind == task.KindCodex {
			cfg.Executor = &codex.Executor{Harnish: hooks, PlanFile: kept, Model: c.Model, Env: c.Env}
		} else {
			cfg.Executor = &claude.Executor{Harnish: hooks, PlanFile: kept, Model: c.Model, Env: c.Env}
		}
	default:
		return fail(fmt.Errorf("executor kind %q is not available in this harnish", c.Kind))
	}
	if c := plan.Debugger; c != nil {
		cfg.Debugger = &executor.CommandDebugger{Argv: c.Argv, Env: c.Env}
	}
	switch c := plan.Reviewer; {
	case c == nil:
	case c.Kind == task.KindCommand:
		r := &verify.CommandReviewer{Argv: c.Argv}
		for k, v := range c.Env {
			r.Env = append(r.Env, k+"="+v)
		}
		cfg.Reviewer = r
	case c.Kind == task.KindPlugin:
		if cfg.Reviewer, err = host.Reviewer(c.Plugin); err != nil {
			return fail(err)
		}
	default:
		return fail(fmt.Errorf("reviewer kind %q is not available in this harnish; use kind command or plugin", c.Kind))
	}
	return cfg, host, nil
}

func isGitTree(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ".git"))
	return err == nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// jsonEvents writes each event as one JSON line.
func jsonEvents(w io.Writer) loop.Observer {
	enc := json.NewEncoder(w)
	return loop.ObserverFunc(func(e loop.Event) { enc.Encode(e) })
}

// progress prints one line per step a person cares about, with the time
// since the start and the spend so far.
type progress struct {
	w      io.Writer
	start  time.Time
	tokens int64
	cost   float64
}

func (p *progress) Observe(e loop.Event) {
	at := time.Since(p.start).Round(100 * time.Millisecond)
	var line string
	switch e.Type {
	case loop.AttemptStarted:
		line = fmt.Sprintf("%s attempt %d", e.Task, e.Attempt)
	case loop.VerifyPassed:
		line = fmt.Sprintf("%s attempt %d: checks pass", e.Task, e.Attempt)
	case loop.VerifyFailed:
		line = fmt.Sprintf("%s attempt %d: checks fail (%s) %s", e.Task, e.Attempt, e.Fingerprint, e.Message)
	case loop.ReviewFindings:
		line = fmt.Sprintf("%s attempt %d: review: %s", e.Task, e.Attempt, e.Message)
	case loop.AttemptFinished:
		p.tokens, p.cost = p.tokens+e.Tokens, p.cost+e.CostUSD
		line = fmt.Sprintf("%s attempt %d finished (spent so far: %d tokens, $%.2f)", e.Task, e.Attempt, p.tokens, p.cost)
		if e.Message != "" {
			line = fmt.Sprintf("%s attempt %d: %s (spent so far: %d tokens, $%.2f)", e.Task, e.Attempt, e.Message, p.tokens, p.cost)
		}
	case loop.DebuggerInvoked:
		line = fmt.Sprintf("%s: same failure twice; debugger: %s", e.Task, e.Message)
	case loop.TaskDone, loop.TaskEscalated, loop.TaskHalted, loop.TaskBlocked:
		line = strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Task, e.Type[len("task."):], e.Message))
	case loop.MilestoneReached:
		line = fmt.Sprintf("milestone after phase %s", e.Phase)
	case loop.MilestoneApproved:
		line = fmt.Sprintf("milestone after phase %s approved", e.Phase)
	case loop.GuardrailViolated:
		line = fmt.Sprintf("guardrail (%s): %s", e.Level, e.Message)
	default:
		return
	}
	fmt.Fprintf(p.w, "[%7s] %s\n", at, line)
}

func runStatus(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", ".", "the working tree")
	asJSON := fs.Bool("json", false, "print the state as JSON")
	rest, err := cli.ParseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish status: %v\nUsage: harnish %s %s\n", err, c.name, c.args)
		return exitError
	}
	st, err := loop.ReadState(filepath.Join(*dir, loop.StateDir))
	if err != nil {
		fmt.Fprintf(stderr, "harnish status: %v\n", err)
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(st)
		return exitOK
	}
	fmt.Fprintf(stdout, "run %s of plan %s: %s\n", st.Run, st.Plan, statusWord(st))
	if st.Reason != "" {
		fmt.Fprintf(stdout, "  %s\n", st.Reason)
	}
	fmt.Fprintf(stdout, "spent: %d attempts, %s, %d tokens, $%.2f\n", st.Cycles, st.Elapsed.Round(time.Second), st.Tokens, st.CostUSD)
	plan, _ := cli.LoadKeptPlan(filepath.Join(*dir, loop.StateDir))
	if plan == nil {
		return exitOK
	}
	for _, pt := range plan.Tasks() {
		ts := st.Tasks[pt.Task.ID]
		if ts == nil {
			ts = &policy.TaskState{Status: policy.StatusPending}
		}
		fmt.Fprintf(stdout, "  %-10s %-12s %-10s %d attempts, %d tokens, $%.2f\n",
			pt.Phase.ID, pt.Task.ID, ts.Status, ts.Attempts, ts.Tokens, ts.CostUSD)
	}
	return exitOK
}

func statusWord(st *policy.RunState) string {
	switch {
	case st.Outcome != "":
		return string(st.Outcome)
	case st.AwaitingGate != "":
		return "at the milestone after " + st.AwaitingGate
	}
	return "running (or stopped without a record of why)"
}
