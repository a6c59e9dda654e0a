// Package host is the harnish-temporal command: its flags, its printing and
// its exit codes, as a function the command and the tests call.
package host

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

const usage = `usage:
  harnish-temporal worker [--address ADDR] [--namespace NS] [--task-queue Q] [--hook PROGRAM]
  harnish-temporal run [--address ADDR] [--namespace NS] [--task-queue Q] [--dir DIR] [--id ID] [--yes] [--detach] [--worker]
                       [--records] [--commit [--branch B] [--allow-dirty]] PLAN
  harnish-temporal approve [--address ADDR] [--namespace NS] [--reject] [--note TEXT] [--by NAME] ID
  harnish-temporal status [--address ADDR] [--namespace NS] [--json] ID
`

// conn are the flags every command shares.
type conn struct {
	address, namespace, queue string
	verbose                   bool
}

func (c *conn) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.address, "address", envOr("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "the Temporal frontend (host:port); $TEMPORAL_ADDRESS")
	fs.StringVar(&c.namespace, "namespace", envOr("TEMPORAL_NAMESPACE", "default"), "the namespace; $TEMPORAL_NAMESPACE")
	fs.StringVar(&c.queue, "task-queue", "harnish", "the task queue of the workflows and their activities")
	fs.BoolVar(&c.verbose, "v", false, "log the SDK's and the activities' warnings to stderr")
}

func (c *conn) dial(stderr io.Writer) (client.Client, error) {
	h := slog.DiscardHandler
	if c.verbose {
		h = slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})
	}
	return client.Dial(client.Options{HostPort: c.address, Namespace: c.namespace, Logger: sdklog.NewStructuredLogger(slog.New(h))})
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Main runs the command with args (without the program's name) and returns
// its exit status. Cancelling ctx stops a worker, or stops waiting for a run.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	var err error
	code := 0
	switch args[0] {
	case "worker":
		err = workerCmd(ctx, args[1:], stderr)
	case "run":
		code, err = runCmd(ctx, args[1:], stdout, stderr)
	case "resume":
		code, err = resumeCmd(ctx, args[1:], stdout, stderr)
	case "approve":
		err = approveCmd(ctx, args[1:], stdout, stderr)
	case "status":
		err = statusCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "harnish-temporal: unknown command %q\n%s", args[0], usage)
		return 1
	}
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "harnish-temporal %s: %v\n", args[0], err)
		}
		return 1
	}
	return code
}

func parse(fs *flag.FlagSet, args []string, stderr io.Writer, nargs int) ([]string, error) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != nargs {
		return nil, fmt.Errorf("want %d argument(s), got %d\n%s", nargs, fs.NArg(), usage)
	}
	return fs.Args(), nil
}

// newWorker is a worker of the workflow and the activities on the queue.
func newWorker(c client.Client, cn *conn, hook string, stderr io.Writer) (worker.Worker, *temporal.Activities) {
	a := &temporal.Activities{Build: temporal.Harnish(hook)}
	if cn.verbose {
		a.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	w := worker.New(c, cn.queue, worker.Options{})
	temporal.Register(w, a)
	return w, a
}

func workerCmd(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var cn conn
	cn.flags(fs)
	hook := fs.String("hook", "", "the program the agents' hooks run (harnish, harnish-hook); empty: harnish from PATH")
	if _, err := parse(fs, args, stderr, 0); err != nil {
		return err
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	w, a := newWorker(c, &cn, *hook, stderr)
	defer a.Close()
	if err := w.Start(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "harnish-temporal: worker on %s, queue %s (pid %d)\n", cn.address, cn.queue, os.Getpid())
	<-ctx.Done()
	w.Stop()
	return nil
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var cn conn
	cn.flags(fs)
	dir := fs.String("dir", ".", "the working tree, as the workers see it")
	id := fs.String("id", "", "the workflow ID; empty: harnish-PLAN-TIME")
	yes := fs.Bool("yes", false, "approve every milestone gate")
	detach := fs.Bool("detach", false, "start the run and print its ID, without waiting")
	inProcess := fs.Bool("worker", false, "run a worker in this process too")
	hook := fs.String("hook", "", "with --worker: the program the agents' hooks run")
	cycles := fs.Int("cycles", 0, "at most this many attempts in all (the plan's budget.cycles otherwise)")
	rollback := fs.Bool("rollback", false, "undo a failed attempt's changes before the next")
	gateTimeout := fs.Duration("gate-timeout", 0, "end the run awaiting approval when a gate waits this long; zero: wait")
	records := fs.Bool("records", false, "keep the run's record in the tree's .harnish, as harnish run does")
	commit := fs.Bool("commit", false, "with the records, commit each task done and the records, as harnish run does")
	branch := fs.String("branch", "", "with --commit, the branch to commit on; empty: harnish/PLAN-TIME, made at HEAD")
	allowDirty := fs.Bool("allow-dirty", false, "with --commit, start on a tree with uncommitted changes, and commit nothing")
	rest, err := parse(fs, args, stderr, 1)
	if err != nil {
		return 1, err
	}
	plan, abs, c, done, err := open(&cn, rest[0], *dir, *inProcess, *hook, stderr)
	if err != nil {
		return 1, err
	}
	defer done()
	now := time.Now().UTC()
	wid := *id
	if wid == "" {
		wid = fmt.Sprintf("harnish-%s-%s", plan.Name, now.Format("20060102T150405.000Z"))
	}
	in := temporal.RunInput{Plan: plan, Dir: abs, Approve: *yes, Rollback: *rollback, GateTimeout: *gateTimeout,
		Budget: task.Budget{Cycles: *cycles}, Records: *records || *commit || *branch != ""}
	if in.Records {
		// One run's record per tree, as harnish run has it.
		switch st, err := loop.ReadState(filepath.Join(abs, loop.StateDir)); {
		case err == nil:
			return 1, fmt.Errorf("%s holds run %s (%s); resume it, or move the directory away to start anew",
				filepath.Join(abs, loop.StateDir), st.Run, cmp.Or(string(st.Outcome), "running"))
		case !errors.Is(err, loop.ErrNoState):
			return 1, err
		}
	}
	if *commit {
		if in.CommitTasks, in.Branch, err = commits(abs, rest[0], plan.Name, *branch, now, *allowDirty, stderr); err != nil {
			return 1, err
		}
	}
	if _, err := temporal.Start(ctx, c, wid, cn.queue, in); err != nil {
		return 1, err
	}
	fmt.Fprintln(stdout, wid)
	if *detach {
		return 0, nil
	}
	return wait(ctx, c, wid, stderr)
}

// commits decides, as harnish run does, whether a run on the tree dir
// commits its tasks and on which branch: never on a tree with uncommitted
// changes but the plan's file (an error, or with allowDirty, no commits), on branch or else a
// free harnish/PLAN-TIME. A tree this host cannot see (the workers' own)
// is taken as it is said.
func commits(dir, planFile, plan, branch string, now time.Time, allowDirty bool, stderr io.Writer) (bool, string, error) {
	ctx := context.Background()
	if !gitx.InRepo(dir) {
		if _, err := os.Stat(dir); err == nil {
			fmt.Fprintf(stderr, "harnish-temporal run: %s is not a git working tree: nothing is committed\n", dir)
			return false, "", nil
		}
		return true, cmp.Or(branch, "harnish/"+plan+"-"+now.Format("20060102-150405")), nil
	}
	abs, _ := filepath.Abs(planFile)
	rel, _ := filepath.Rel(dir, abs)
	changes, err := gitx.Changes(ctx, dir, loop.StateDir, filepath.ToSlash(rel)) // the plan's file may be new
	if err != nil {
		return false, "", err
	}
	if len(changes) > 0 {
		if !allowDirty {
			return false, "", fmt.Errorf("the working tree has uncommitted changes (%s); commit or stash them, or pass --allow-dirty",
				strings.Join(changes[:min(len(changes), 5)], ", "))
		}
		fmt.Fprintln(stderr, "harnish-temporal run: uncommitted changes: finished tasks will not be committed")
		return false, branch, nil
	}
	if branch == "" {
		if branch, err = gitx.FreeBranchName(ctx, dir, "harnish/"+plan+"-"+now.Format("20060102-150405")); err != nil {
			return false, "", err
		}
	}
	return true, branch, nil
}

// open loads the plan, dials the server and, when asked, starts a worker
// in this process; done stops what it started.
func open(cn *conn, planFile, dir string, inProcess bool, hook string, stderr io.Writer) (plan *task.Plan, abs string, c client.Client, done func(), err error) {
	if plan, err = task.Load(planFile); err != nil {
		return nil, "", nil, nil, err
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return nil, "", nil, nil, err
	}
	if c, err = cn.dial(stderr); err != nil {
		return nil, "", nil, nil, err
	}
	if !inProcess {
		return plan, abs, c, c.Close, nil
	}
	w, a := newWorker(c, cn, hook, stderr)
	a.AddPlan(plan)
	if err := w.Start(); err != nil {
		a.Close()
		c.Close()
		return nil, "", nil, nil, err
	}
	return plan, abs, c, func() { w.Stop(); a.Close(); c.Close() }, nil
}

// wait waits for the run and says how it ended; the exit status is the
// CLI's for its outcome.
func wait(ctx context.Context, c client.Client, wid string, stderr io.Writer) (int, error) {
	res, err := temporal.Wait(ctx, c, wid)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "harnish-temporal: stopped waiting; the run %s goes on (cancel it with the Temporal CLI or API)\n", wid)
			return policy.Cancelled.ExitCode(), nil
		}
		return 1, err
	}
	fmt.Fprintf(stderr, "run %s: %s", wid, res.Outcome)
	if res.Reason != "" {
		fmt.Fprintf(stderr, ": %s", res.Reason)
	}
	fmt.Fprintln(stderr)
	return res.ExitCode, nil
}

func resumeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("resume", flag.ContinueOnError)
	var cn conn
	cn.flags(fs)
	dir := fs.String("dir", ".", "the working tree, as the workers see it")
	approve := fs.Bool("approve", false, "approve the milestone gate the run waits at")
	yes := fs.Bool("yes", false, "approve every milestone gate")
	inProcess := fs.Bool("worker", false, "run a worker in this process too")
	hook := fs.String("hook", "", "with --worker: the program the agents' hooks run")
	rest, err := parse(fs, args, stderr, 2)
	if err != nil {
		return 1, err
	}
	plan, abs, c, done, err := open(&cn, rest[1], *dir, *inProcess, *hook, stderr)
	if err != nil {
		return 1, err
	}
	defer done()
	if _, err := temporal.Resume(ctx, c, rest[0], cn.queue, temporal.RunInput{Plan: plan, Dir: abs, Approve: *yes}, *approve); err != nil {
		return 1, err
	}
	fmt.Fprintln(stdout, rest[0])
	return wait(ctx, c, rest[0], stderr)
}

func approveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("approve", flag.ContinueOnError)
	var cn conn
	cn.flags(fs)
	reject := fs.Bool("reject", false, "reject the milestone: the run ends escalated")
	note := fs.String("note", "", "a note for the audit")
	by := fs.String("by", envOr("USER", ""), "who decides")
	rest, err := parse(fs, args, stderr, 1)
	if err != nil {
		return err
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	cl, err := temporal.WaitingChecklist(ctx, c, rest[0])
	if err != nil {
		return err
	}
	if cl == nil {
		return fmt.Errorf("run %s waits at no milestone gate", rest[0])
	}
	v := policy.Approve
	if *reject {
		v = policy.Reject
	}
	if err := temporal.Approve(ctx, c, rest[0], temporal.Approval{Phase: cl.Phase, Verdict: v, By: *by, Note: *note}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s the milestone after phase %s of run %s\n%s\n", map[bool]string{true: "rejected", false: "approved"}[*reject], cl.Phase, rest[0], cl.Summary)
	return nil
}

func statusCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var cn conn
	cn.flags(fs)
	asJSON := fs.Bool("json", false, "print the state as JSON, as harnish status --json does")
	rest, err := parse(fs, args, stderr, 1)
	if err != nil {
		return err
	}
	c, err := cn.dial(stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	st, err := temporal.Status(ctx, c, rest[0])
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	word := string(st.Outcome)
	switch {
	case word != "":
	case st.AwaitingGate != "":
		word = "waiting at the milestone after phase " + st.AwaitingGate
	default:
		word = "running"
	}
	fmt.Fprintf(stdout, "run %s of plan %s: %s\n", st.Run, st.Plan, word)
	if st.Reason != "" {
		fmt.Fprintf(stdout, "  %s\n", st.Reason)
	}
	fmt.Fprintf(stdout, "spent: %d attempts, %s, %d tokens, $%.2f\n", st.Cycles, st.Elapsed.Round(time.Second), st.Tokens, st.CostUSD)
	if st.AwaitingGate != "" {
		if cl, err := temporal.WaitingChecklist(ctx, c, rest[0]); err == nil && cl != nil {
			fmt.Fprintf(stdout, "%s\n", strings.TrimSpace(cl.Summary))
		}
	}
	return nil
}
