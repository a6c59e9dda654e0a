package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

var runCommand = &command{
	name:    "run",
	args:    "[--plan FILE] [--dir DIR] [--yes] [--json] [flags]",
	summary: "carry a plan out in a working tree",
	help: `Run drives the plan through the loop in the working tree DIR (default: the
current directory): each task is executed, its acceptance checks are run,
failures are retried within budgets, and milestone gates pause the run.
The state goes to DIR/.harnish/; a copy of the plan is kept there for
"harnish resume". In a git working tree the run works on a new branch,
harnish/<plan>-<time>, commits each finished task, and refuses to start on
uncommitted changes (other than the plan file) unless --allow-dirty.
A run the tree holds already is continued with "harnish resume"; when it
is over (completed, its records committed) run sets it aside in
DIR/.harnish/runs/<run>/ and starts the new one, and --new does so for a
run in any other state. The experience store and records stay.
--rollback undoes a failed attempt's changes before the next attempt.
--tasks runs only the tasks named, IDs and ranges of the plan's order,
comma-separated (T2,T5 or 41.1-41.3); a selected task may depend on one
left out only when the plan records that one done. --cycles N caps the
attempts in all (harness-loop's "at most N cycles"), for run and resume.
--push pushes the run's branch to origin when the run completes: once,
never forced; a failure is reported (exit 1), the run staying completed.
When the run completes, .harnish/summary.md says what each task changed and
decided and what to do next; --session-notes also saves it in the tree as
docs/session-DATE.md (committed with the run's records), once.
Each attempt's transcript (the agent's raw stream, its exit code and the
end of its stderr, at most 16 MiB) is kept as
.harnish/transcripts/<task>-<attempt>.jsonl and named in the task's audit
log (.harnish/logs/<plan>/task-<id>.json); --no-transcripts keeps none.
--plan defaults to the first of harnish.yaml, harnish.yml,
harnish.json, plan.yaml, plan.yml, plan.json in DIR. --plan may name a peer
tool's plan or progress (see "harnish help import"): it is imported, its
warnings printed, and the run keeps the converted plan; --executor is
that of "harnish import".

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
	args:    "[--dir DIR] [--json] [--watch]",
	summary: "show where the recorded run stands",
	help: `Status prints the run recorded in DIR/.harnish/: its outcome, each task's
status and attempts, and what it spent. --json prints the state itself.
It reads without locking, so it works while a run is going.

--watch then follows the run from another shell, printing its progress as
the run itself does (on a terminal, one line per task running side by
side and the spend, rewritten in place) as its journal grows, and ends
when the run ends, with the run's exit status (see "harnish help run");
it waits for a run to start when none is recorded yet.
`,
	run: runStatus,
}

// runFlags are the flags run and resume share.
type runFlags struct {
	plan, dir       string
	yes, json, appr bool
	allowDirty      bool
	rollback        bool
	executor        string        // for a peer's plan: its executor (see harnish help import)
	tasks           string        // run only these tasks (--tasks)
	cycles          int           // the host's cap on attempts in all (--cycles)
	push            bool          // push the run's branch when it completes
	sessionNotes    bool          // save the completion summary as docs/session-DATE.md
	noTranscripts   bool          // keep no transcripts
	observe         loop.Observer // also observes the run: the peer's write-back
	runID           string        // for a new run
	branch          string        // for a new run in a git tree
	noCommit        bool          // the tree was dirty at the start
	fresh           bool          // set aside the run the tree holds (--new)
	// opened, when set, is told whether the run opened (serve's approvals).
	opened func(error)
	// before, when set, is asked once the run is open and before it is
	// driven; false ends the command with the exit status it gives.
	before func(*harnish.Runner) (int, bool)
	// noPrompt: gates are not asked on a terminal (the run ends awaiting
	// approval), for a run driven from the status page.
	noPrompt bool
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
		fs.StringVar(&f.executor, "executor", "", "the executor of a peer tool's plan")
		fs.StringVar(&f.tasks, "tasks", "", "run only these tasks: IDs and ranges FROM-TO, comma-separated")
		fs.BoolVar(&f.fresh, "new", false, "set the run the tree holds aside, whatever its outcome, and start anew")
	}
	fs.IntVar(&f.cycles, "cycles", 0, "at most this many attempts in all (the plan's budget.cycles otherwise)")
	fs.BoolVar(&f.push, "push", false, "push the run's branch to origin when the run completes")
	fs.StringVar(&f.dir, "dir", ".", "the working tree")
	fs.BoolVar(&f.yes, "yes", false, "approve every milestone gate")
	fs.BoolVar(&f.json, "json", false, "print events as JSON lines")
	fs.BoolVar(&f.rollback, "rollback", false, "undo a failed attempt's changes before the next")
	fs.BoolVar(&f.sessionNotes, "session-notes", false, "save the completion summary in the tree as docs/session-DATE.md")
	fs.BoolVar(&f.noTranscripts, "no-transcripts", false, "keep no transcripts of the attempts")
	if code, ok := c.parse(fs, args, stdout, stderr, nil); !ok {
		return nil, code, false
	}
	return f, 0, true
}

func runRun(c *command, args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseRunFlags(c, args, false, stdout, stderr)
	if !ok {
		return code
	}
	// A peer tool's plan or progress is imported; the run keeps the result.
	imported, keep, peer, err := peerPlan(f.plan, f.executor, stderr)
	var plan *task.Plan
	file := f.plan
	if !peer {
		plan, file, err = task.Locate(f.plan, f.dir)
		keep = file
	} else if err == nil {
		// The peer's file follows the run (see harnish help import).
		plan = imported.Plan
		w, werr := imported.Writer()
		if werr == nil {
			f.observe = writeBack(w, filepath.Join(f.dir, loop.StateDir), stderr)
		}
	}
	if err == nil && plan == nil {
		err = fmt.Errorf("no plan: give --plan FILE or put one of %v in %s", task.DefaultFiles, f.dir)
	}
	if err == nil && f.tasks != "" {
		// The run keeps the selection, so a resume goes on with the same tasks.
		if plan, err = selectTasks(plan, f.tasks); err == nil {
			keep, err = tempPlan(plan, true)
			defer os.RemoveAll(filepath.Dir(keep))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return exitError
	}
	stateDir := filepath.Join(f.dir, loop.StateDir)
	if !setAsideOver(stateDir, f.fresh, stderr) {
		return exitError
	}
	if !preflightRun("run", plan, f.dir, file, stderr) {
		fmt.Fprintln(stderr, "harnish run: not started: answer what preflight found, then run again")
		return 2
	}
	runID := freeRunID(stateDir, time.Now())
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
	err = loop.KeepPlan(stateDir, keep)
	if peer {
		os.RemoveAll(filepath.Dir(keep))
		if err == nil {
			err = rememberPeer(stateDir, imported)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return exitError
	}
	f.runID = runID
	return drive(f, plan, stdout, stderr, func(ctx context.Context, r *harnish.Runner) (*loop.Result, error) { return r.Run(ctx) })
}

func runResume(c *command, args []string, stdout, stderr io.Writer) int {
	f, code, ok := parseRunFlags(c, args, true, stdout, stderr)
	if !ok {
		return code
	}
	plan, err := prepareResume(f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "harnish resume: the run's plan: %v\n", err)
		return exitError
	}
	return drive(f, plan, stdout, stderr, resume(f.appr))
}

// resume resumes the opened run, approving the gate it waits at or not.
func resume(approve bool) func(context.Context, *harnish.Runner) (*loop.Result, error) {
	return func(ctx context.Context, r *harnish.Runner) (*loop.Result, error) {
		return r.Resume(ctx, loop.ResumeOptions{Approve: approve})
	}
}

// prepareResume loads the plan a resume goes on with (f.plan, else the
// run's kept plan) and sets up f as every resume needs: a peer's file
// follows the run, with its plan changed or not (its tasks are found by
// their IDs); and what preflight finds before a run, it finds before a
// resume too, for the tasks the run has not done (a person may have
// changed the plan or the machine since), from the state Open read; a
// changed plan is kept once the resume goes ahead.
func prepareResume(f *runFlags, stderr io.Writer) (*task.Plan, error) {
	stateDir := filepath.Join(f.dir, loop.StateDir)
	var plan *task.Plan
	var err error
	if f.plan != "" {
		plan, err = task.Load(f.plan)
	} else {
		plan, err = loop.LoadKeptPlan(stateDir)
	}
	if err != nil {
		return nil, err
	}
	f.observe = resumeWriteBack(stateDir, stderr)
	f.before = func(r *harnish.Runner) (int, bool) {
		if st := r.Opened().State; st != nil && st.Outcome != policy.Completed {
			if !preflightRun("resume", leftToDo(plan, st), f.dir, f.plan, stderr) {
				fmt.Fprintln(stderr, "harnish resume: not resumed: answer what preflight found, then resume again")
				return 2, false
			}
		}
		if f.plan != "" {
			if err := loop.KeepPlan(stateDir, f.plan); err != nil {
				fmt.Fprintf(stderr, "harnish resume: the run's plan: %v\n", err)
				return exitError, false
			}
		}
		return 0, true
	}
	return plan, nil
}

// leftToDo is plan with the tasks the run has done marked done, so that
// preflight looks at the rest only.
func leftToDo(plan *task.Plan, st *policy.RunState) *task.Plan {
	c := *plan
	c.Phases = slices.Clone(plan.Phases)
	for i := range c.Phases {
		c.Phases[i].Tasks = slices.Clone(c.Phases[i].Tasks)
		for j := range c.Phases[i].Tasks {
			if ts := st.Tasks[c.Phases[i].Tasks[j].ID]; ts != nil && ts.Status == policy.StatusDone {
				c.Phases[i].Tasks[j].Status = task.StatusDone
			}
		}
	}
	return &c
}

// drive opens the run of the plan in the working tree and drives it until
// it ends or the user interrupts it, and returns the outcome's exit status.
func drive(f *runFlags, plan *task.Plan, stdout, stderr io.Writer, start func(context.Context, *harnish.Runner) (*loop.Result, error)) int {
	root, err := filepath.Abs(f.dir)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: %v\n", err)
		return exitError
	}
	opts := options(root)
	opts.RunID, opts.Branch, opts.CommitTasks, opts.Rollback = f.runID, f.branch, !f.noCommit, f.rollback
	opts.NoTranscripts = f.noTranscripts
	if f.sessionNotes {
		opts.SessionNotes = loop.SaveSessionNotes
	}
	// Warnings (a record or a commit that failed) reach the person running it.
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	switch {
	case f.yes:
		opts.Gate = loop.AutoApprove{}
	case isTerminal(os.Stdin) && !f.noPrompt:
		opts.Gate = &loop.TerminalGate{In: os.Stdin, Out: stderr}
	}
	var prog *progress
	if f.json {
		opts.Observer = jsonEvents(stdout)
	} else {
		tty, ok := stdout.(*os.File)
		prog = &progress{w: stdout, live: ok && isTerminal(tty)}
		opts.Observer = prog
	}
	if f.observe != nil {
		opts.Observer = observers(opts.Observer, f.observe)
	}
	tel, err := telemetryFromEnv(cmdContext(), os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "harnish: OpenTelemetry: %v\n", err)
		return exitError
	}
	defer tel.shutdown(cmdContext(), stderr) // after the Runner's Close: the last spans are in
	tel.apply(&opts)
	r, err := harnish.Open(cmdContext(), plan, opts)
	if err != nil {
		if f.opened != nil {
			f.opened(err)
		}
		fmt.Fprintln(stderr, err)
		return exitError
	}
	defer r.Close()
	if f.before != nil {
		if code, ok := f.before(r); !ok {
			if f.opened != nil {
				f.opened(fmt.Errorf("the run was not resumed (exit %d): see the server's log", code))
			}
			return code
		}
	}
	if f.opened != nil {
		f.opened(nil)
	}
	if f.cycles > 0 {
		r.Config().Policy.Budget.Cycles = f.cycles
	}
	if !isGitTree(root) {
		fmt.Fprintf(stderr, "harnish: %s is not a git working tree: each attempt's change is judged from snapshots of the directory, and nothing is committed\n", root)
	}
	op := r.Opened()
	if len(op.Strays) > 0 {
		fmt.Fprintf(stderr, "harnish: ended %d process(es) a stopped run %s left behind: %v\n", len(op.Strays), op.Run, op.Strays)
	}
	if op.ImportedFrom != "" {
		fmt.Fprintf(stderr, "harnish: imported %d assets from %s\n", op.Imported, op.ImportedFrom)
	}
	if prog != nil {
		prog.start = time.Now()
	}
	os.Remove(filepath.Join(root, loop.StateDir, stopFile)) // an old request is not this run's
	ctx, stop := stopContext(filepath.Join(root, loop.StateDir))
	defer stop()
	res, err := start(tel.parent(ctx), r)
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
		fmt.Fprintf(stdout, "state, logs and handoffs: %s\n", filepath.Join(root, loop.StateDir))
	}
	if f.push && res.Outcome == policy.Completed {
		// Once, and never forced: a remote that moved on is for a person.
		branch := res.State.Branch
		if branch == "" {
			fmt.Fprintln(stderr, "harnish: --push: the run has no branch of its own to push (not a git tree, or a tree that was not clean)")
			return exitError
		}
		if err := gitx.Push(cmdContext(), root, "origin", branch); err != nil {
			fmt.Fprintf(stderr, "harnish: the run completed, and pushing %s to origin failed: %v\n", branch, err)
			return exitError
		}
		fmt.Fprintf(stdout, "pushed %s to origin\n", branch)
	}
	return res.Outcome.ExitCode()
}

// options are what every run and resume in the working tree root asks of
// the library: the agents' hooks call this very binary, or harnish-hook
// beside it, with the plan the run keeps.
func options(root string) harnish.Options {
	opts := harnish.Options{Dir: root, PlanFile: loop.KeptPlanFile(filepath.Join(root, loop.StateDir))}
	if self, err := os.Executable(); err == nil {
		opts.HookProgram = hookProgram(self)
	}
	return opts
}

// components builds the plan's components with the options of run and
// resume, short of the state (see harnish.Components): what the tests check
// the CLI's own choices (the hook program, the kept plan) through.
func components(plan *task.Plan, root string) (loop.Config, io.Closer, error) {
	return harnish.Components(cmdContext(), plan, options(root))
}

// isGitTree reports whether dir is in a git working tree, as the library
// decides it.
func isGitTree(dir string) bool { return gitx.InRepo(dir) }

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
// since the start and the spend so far. On a terminal, while tasks run side
// by side, it keeps one line per running task under the log, rewritten in
// place as each moves on.
type progress struct {
	w      io.Writer
	start  time.Time
	tokens int64
	cost   float64
	// live is set on a terminal: the running tasks' lines are kept.
	live    bool
	running map[string]string // task -> what it is doing
	shown   int               // lines of the block last drawn
}

func (p *progress) Observe(e loop.Event) {
	at := time.Since(p.start).Round(100 * time.Millisecond)
	p.track(e)
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
	p.erase()
	fmt.Fprintf(p.w, "[%7s] %s\n", at, line)
	p.draw()
}

// track keeps what each running task is doing, for the live block.
func (p *progress) track(e loop.Event) {
	if !p.live || e.Task == "" {
		return
	}
	if p.running == nil {
		p.running = map[string]string{}
	}
	switch e.Type {
	case loop.TaskDone, loop.TaskEscalated, loop.TaskHalted, loop.TaskBlocked:
		delete(p.running, e.Task)
	case loop.AttemptStarted:
		p.running[e.Task] = fmt.Sprintf("attempt %d: the agent works", e.Attempt)
	case loop.VerifyPassed:
		p.running[e.Task] = fmt.Sprintf("attempt %d: checks pass, joining the branch", e.Attempt)
	case loop.VerifyFailed, loop.AttemptFinished:
		p.running[e.Task] = fmt.Sprintf("attempt %d finished", e.Attempt)
	}
}

// erase removes the live block drawn last; draw draws it again, one line
// per running task, when more than one runs.
func (p *progress) erase() {
	if p.shown > 0 {
		fmt.Fprintf(p.w, "\x1b[%dA\x1b[J", p.shown)
		p.shown = 0
	}
}

func (p *progress) draw() {
	if len(p.running) < 2 {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(p.running)) {
		fmt.Fprintf(p.w, "  ▸ %-12s %s\n", id, p.running[id])
		p.shown++
	}
	fmt.Fprintf(p.w, "  %d running · spent so far: %d tokens, $%.2f\n", len(p.running), p.tokens, p.cost)
	p.shown++
}

func runStatus(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", ".", "the working tree")
	asJSON := fs.Bool("json", false, "print the state as JSON")
	watch := fs.Bool("watch", false, "follow the run until it ends")
	if code, ok := c.parse(fs, args, stdout, stderr, nil); !ok {
		return code
	}
	if *watch {
		return watchStatus(*dir, stdout, stderr)
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
	printStatus(stdout, *dir, st)
	return exitOK
}

// printStatus prints where the run st of the working tree dir stands.
func printStatus(stdout io.Writer, dir string, st *policy.RunState) {
	fmt.Fprintf(stdout, "run %s of plan %s: %s\n", st.Run, st.Plan, statusWord(st))
	if st.Reason != "" {
		fmt.Fprintf(stdout, "  %s\n", st.Reason)
	}
	fmt.Fprintf(stdout, "spent: %d attempts, %s, %d tokens, $%.2f\n", st.Cycles, st.Elapsed.Round(time.Second), st.Tokens, st.CostUSD)
	if st.SharedCause != "" {
		fmt.Fprintf(stdout, "stopped together: %s\n", st.SharedCause)
	}
	plan, _ := loop.LoadKeptPlan(filepath.Join(dir, loop.StateDir))
	if plan == nil {
		return
	}
	var running []string
	for _, pt := range plan.Tasks() {
		if ts := st.Tasks[pt.Task.ID]; ts != nil && ts.Status == policy.StatusRunning {
			running = append(running, fmt.Sprintf("%s (attempt %d)", pt.Task.ID, ts.Attempts))
		}
	}
	if len(running) > 0 && st.Outcome == "" {
		fmt.Fprintf(stdout, "running: %s\n", strings.Join(running, ", "))
		if q, _ := loop.ReadQueue(filepath.Join(dir, loop.StateDir)); len(q) > 0 {
			fmt.Fprintf(stdout, "merge queue: %s\n", strings.Join(q, ", "))
		}
	}
	if gitx.InRepo(dir) {
		forks, _ := (&loop.GitWorkspace{Dir: dir}).Forks(cmdContext())
		for _, f := range forks {
			if id, ok := strings.CutPrefix(f.Name, st.Run+"-"); ok {
				fmt.Fprintf(stdout, "working copy of task %s: %s (branch %s)\n", id, f.Dir, f.Branch)
			}
		}
	}
	for _, pt := range plan.Tasks() {
		ts := st.Tasks[pt.Task.ID]
		if ts == nil {
			ts = &policy.TaskState{Status: policy.StatusPending}
		}
		fmt.Fprintf(stdout, "  %-10s %-12s %-10s %d attempts, %d tokens, $%.2f\n",
			pt.Phase.ID, pt.Task.ID, ts.Status, ts.Attempts, ts.Tokens, ts.CostUSD)
	}
}

// freeRunID names a new run by its start time, with a suffix when a run
// set aside in stateDir has that name (two runs within a second).
func freeRunID(stateDir string, now time.Time) string {
	id := now.UTC().Format("20060102-150405")
	for i, try := 2, id; ; i++ {
		if _, err := os.Stat(filepath.Join(stateDir, loop.RunsDir, try)); err != nil {
			return try
		}
		try = id + "-" + strconv.Itoa(i)
	}
}

// setAsideOver makes room for a new run in stateDir: a run that is over
// (completed, its records committed) is set aside in runs/<run>/, and so
// is any other when fresh (--new); a run that could go on is left for
// "harnish resume". False: the command ends (it said why).
func setAsideOver(stateDir string, fresh bool, stderr io.Writer) bool {
	st, err := loop.ReadState(stateDir)
	switch {
	case errors.Is(err, loop.ErrNoState):
		return true
	case err != nil:
		fmt.Fprintf(stderr, "harnish run: %v\n", err)
		return false
	}
	over := st.Outcome == policy.Completed && (!st.Commits || st.RecordsCommitted)
	if !over && !fresh {
		how := "continue it with \"harnish resume\""
		if st.Outcome == policy.Completed {
			how = "finish it with \"harnish resume\" (its records are not committed yet)"
		}
		fmt.Fprintf(stderr, "harnish run: %s holds run %s (%s); %s, or set it aside and start anew with --new\n",
			stateDir, st.Run, statusWord(st), how)
		return false
	}
	s, err := loop.OpenDir(stateDir, nil)
	if err == nil {
		var dest string
		dest, err = s.SetAside()
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			fmt.Fprintf(stderr, "harnish run: run %s (%s) set aside in %s\n", st.Run, statusWord(st), dest)
			return true
		}
	}
	if errors.Is(err, loop.ErrLocked) {
		fmt.Fprintf(stderr, "harnish run: run %s is going on in another process (%v); stop it with \"harnish stop\" first\n", st.Run, err)
		return false
	}
	fmt.Fprintf(stderr, "harnish run: %v\n", err)
	return false
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
