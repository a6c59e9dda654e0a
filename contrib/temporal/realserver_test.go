package temporal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/worker"

	"github.com/harnish/harnish"
	temporal "github.com/harnish/harnish/contrib/temporal"
	"github.com/harnish/harnish/contrib/temporal/internal/host"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// agentScript is the executor of the real-server plans: a real program
// run by harnish's command executor. It logs each attempt, reports ten
// tokens, sleeps $SLEEP, and on the first attempt of $HANG_TASK writes its
// pid to $MARK and hangs, for the test to kill its worker meanwhile.
const agentScript = `echo "$HARNISH_TASK_ID#$HARNISH_ATTEMPT" >> "$LOG"
printf '{"summary":"did %s","usage":{"input_tokens":10}}' "$HARNISH_TASK_ID" > "$HARNISH_RESULT_FILE"
if [ "$HARNISH_TASK_ID" = "$HANG_TASK" ] && [ "$HARNISH_ATTEMPT" = 1 ]; then echo $$ > "$MARK.tmp"; mv "$MARK.tmp" "$MARK"; exec sleep 60; fi
sleep "$SLEEP"
`

// fixture is a plan of n tasks over the agent script, its working tree and
// the files the script writes (outside the tree).
type fixture struct {
	plan            *task.Plan
	tree, log, mark string
}

func newFixture(t *testing.T, n int, sleep, hang string) *fixture {
	t.Helper()
	f := &fixture{tree: t.TempDir()}
	out := t.TempDir()
	f.log, f.mark = filepath.Join(out, "exec.log"), filepath.Join(out, "hanging.pid")
	f.plan = &task.Plan{Version: "1", Name: "fleet",
		Executor: &task.Component{Kind: task.KindCommand, Argv: []string{"sh", "-c", agentScript},
			Env: map[string]string{"LOG": f.log, "MARK": f.mark, "SLEEP": sleep, "HANG_TASK": hang}},
		Phases: []task.Phase{{ID: "p1", Title: "P1"}}}
	for i := range n {
		f.plan.Phases[0].Tasks = append(f.plan.Phases[0].Tasks, task.Task{ID: fmt.Sprintf("T%d", i+1), Title: "task",
			Acceptance: []task.Check{{Run: []string{"true"}}}})
	}
	return f
}

// killHanging ends the agent the script left hanging (its worker is gone).
func (f *fixture) killHanging(t *testing.T) {
	data, err := os.ReadFile(f.mark)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func startRun(t *testing.T, addr, id, queue string, in temporal.RunInput) {
	t.Helper()
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := temporal.Start(context.Background(), c, id, queue, in); err != nil {
		t.Fatal(err)
	}
}

func waitRun(t *testing.T, addr, id string, d time.Duration) *temporal.RunResult {
	t.Helper()
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := temporal.Wait(ctx, c, id)
	if err != nil {
		t.Fatalf("run %s: %v", id, err)
	}
	return res
}

func uniq(t *testing.T) string {
	return fmt.Sprintf("%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
}

// TestServerTwentyTasks: a 20-task plan completes on a real server, with
// harnish's own components in a worker process, continuing as new by
// event count on the way.
func TestServerTwentyTasks(t *testing.T) {
	addr := sharedServer(t)
	f := newFixture(t, 20, "0", "")
	queue := uniq(t)
	startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree, ContinueAfter: 80})
	res := waitRun(t, addr, queue, 5*time.Minute)
	if res.Outcome != policy.Completed || res.State.Cycles != 20 || res.State.Tokens != 200 || countLines(t, f.log, "T") != 20 {
		t.Fatalf("outcome %s (%s), cycles %d, tokens %d, %d executions", res.Outcome, res.Reason, res.State.Cycles, res.State.Tokens, countLines(t, f.log, "T"))
	}
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d, err := c.DescribeWorkflowExecution(context.Background(), queue, "")
	if err != nil {
		t.Fatal(err)
	}
	if info := d.WorkflowExecutionInfo; info.FirstRunId == info.Execution.RunId {
		t.Error("the run never continued as new")
	}
	n, size := historyOf(t, c, queue, "")
	t.Logf("20 tasks: the last of the run's executions has %d events, %d bytes", n, size)
}

// TestServerWorkerKilled: the worker is SIGKILLed while an agent works; a
// new worker takes the run on with the attempt counted as cut off, and the
// counts and spend of every task intact.
func TestServerWorkerKilled(t *testing.T) {
	addr := sharedServer(t)
	f := newFixture(t, 3, "0", "T2")
	queue := uniq(t)
	first := startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree, HeartbeatTimeout: 3 * time.Second})
	waitFile(t, f.mark, 2*time.Minute)
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before, err := temporal.Status(context.Background(), c, queue)
	if err != nil {
		t.Fatal(err)
	}
	first.kill()
	f.killHanging(t)
	startWorker(t, addr, queue)
	res := waitRun(t, addr, queue, 3*time.Minute)
	st := res.State
	t2 := st.Tasks["T2"]
	switch {
	case before.Tasks["T1"].Status != policy.StatusDone || before.Tasks["T2"].Attempts != 1 || before.Tokens != 10:
		t.Fatalf("before the kill: T1 %+v, T2 %+v, tokens %d", before.Tasks["T1"], before.Tasks["T2"], before.Tokens)
	case res.Outcome != policy.Completed:
		t.Fatalf("outcome %s: %s", res.Outcome, res.Reason)
	case t2.Attempts != 2 || len(t2.Failures) != 1 || t2.Failures[0].Kind != policy.FailInterrupted:
		t.Fatalf("T2 %+v", t2)
	case st.Cycles != 4 || st.Tokens != 30 || st.Tasks["T1"].Tokens != 10 || st.Tasks["T1"].Attempts != 1:
		t.Fatalf("cycles %d, tokens %d, T1 %+v", st.Cycles, st.Tokens, st.Tasks["T1"])
	case countLines(t, f.log, "T2#") != 2:
		t.Fatalf("T2 ran %d times", countLines(t, f.log, "T2#"))
	}
}

// TestServerAndWorkerKilled: the server and the worker are both SIGKILLed
// while an agent works, and restarted on the same database; the run
// completes without waiting for the dead server's membership to expire.
func TestServerAndWorkerKilled(t *testing.T) {
	bin := devServer(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	srv, err := startServer(bin, dir, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.stop() }()
	f := newFixture(t, 3, "0", "T2")
	queue := uniq(t)
	w := startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree, HeartbeatTimeout: 3 * time.Second})
	waitFile(t, f.mark, 2*time.Minute)
	w.kill()
	srv.kill()
	f.killHanging(t)
	restart := time.Now()
	if srv, err = startServer(bin, dir, addr); err != nil {
		t.Fatal(err)
	}
	up := time.Since(restart)
	startWorker(t, addr, queue)
	res := waitRun(t, addr, queue, 3*time.Minute)
	took := time.Since(restart)
	t.Logf("after the kill: the server answered in %s, the run completed in %s", up.Round(time.Millisecond), took.Round(time.Millisecond))
	if res.Outcome != policy.Completed || res.State.Tasks["T2"].Attempts != 2 || res.State.Cycles != 4 {
		t.Fatalf("outcome %s (%s), T2 %+v", res.Outcome, res.Reason, res.State.Tasks["T2"])
	}
	if took > 45*time.Second {
		t.Fatalf("the run took %s to complete after the restart: the dead server's membership was waited out", took)
	}
}

// TestServerScale starts 100 runs at once on one server with a sleep-based
// executor and one worker, and reports throughput, history per task, and
// the per-attempt overhead of the workflow against the CLI's loop on the
// same plan, measured interleaved in the same test.
func TestServerScale(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	addr := sharedServer(t)
	const runs, tasks = 100, 3
	const sleep = 100 * time.Millisecond
	f := newFixture(t, tasks, "0.1", "")
	queue := uniq(t)
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a := &temporal.Activities{Build: temporal.Harnish("")}
	a.AddPlan(f.plan)
	w := worker.New(c, queue, worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	temporal.Register(w, a)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, runs)
	for i := range runs {
		wg.Go(func() {
			id := fmt.Sprintf("%s-%d", queue, i)
			tree := filepath.Join(f.tree, strconv.Itoa(i))
			if err := os.MkdirAll(tree, 0o755); err != nil {
				errs <- err
				return
			}
			if _, err := temporal.Start(context.Background(), c, id, queue, temporal.RunInput{Plan: f.plan, Dir: tree}); err != nil {
				errs <- err
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			res, err := temporal.Wait(ctx, c, id)
			if err == nil && res.Outcome != policy.Completed {
				err = fmt.Errorf("run %s: %s: %s", id, res.Outcome, res.Reason)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	var events, bytes []int64
	for i := range runs {
		n, size := historyOf(t, c, fmt.Sprintf("%s-%d", queue, i), "")
		events, bytes = append(events, n), append(bytes, size)
	}
	attempts := runs * tasks
	t.Logf("%d runs of %d tasks at once: %d attempts in %s, %.1f attempts/s; history per task: median %d events, %d bytes",
		runs, tasks, attempts, wall.Round(time.Millisecond), float64(attempts)/wall.Seconds(), median(events)/tasks, median(bytes)/tasks)

	// The same plan, one run at a time: the workflow's and the CLI's loop,
	// interleaved, each attempt's sleep taken off.
	var wf, cli []int64
	for round := range 3 {
		tree := filepath.Join(f.tree, "seq", strconv.Itoa(round))
		os.MkdirAll(filepath.Join(tree, "cli"), 0o755)
		t0 := time.Now()
		id := fmt.Sprintf("%s-seq-%d", queue, round)
		if _, err := temporal.Start(context.Background(), c, id, queue, temporal.RunInput{Plan: f.plan, Dir: tree}); err != nil {
			t.Fatal(err)
		}
		if res, err := temporal.Wait(context.Background(), c, id); err != nil || res.Outcome != policy.Completed {
			t.Fatalf("run %s: %v %+v", id, err, res)
		}
		wf = append(wf, int64(time.Since(t0)-tasks*sleep)/tasks)
		t0 = time.Now()
		r, err := harnish.Open(context.Background(), f.plan, harnish.Options{Dir: filepath.Join(tree, "cli"), Gate: loop.AutoApprove{}, NoAssets: true, Unmarked: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Run(context.Background())
		r.Close()
		if err != nil || res.Outcome != policy.Completed {
			t.Fatalf("the CLI's run: %v", err)
		}
		cli = append(cli, int64(time.Since(t0)-tasks*sleep)/tasks)
	}
	mw, mc := median(wf), median(cli)
	t.Logf("per-attempt overhead, one run at a time (median of 3): workflow %s, CLI loop %s, ratio %.1f",
		time.Duration(mw).Round(time.Millisecond), time.Duration(mc).Round(time.Millisecond), float64(mw)/float64(max(mc, 1)))
}

func median(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestServerGate: a run waits at its milestone gate on a real server; the
// status query answers what harnish status --json prints, the checklist
// query what a person must verify, and the approval signal lets it go on.
func TestServerGate(t *testing.T) {
	addr := sharedServer(t)
	f := newFixture(t, 2, "0", "")
	f.plan.Phases = append(f.plan.Phases, task.Phase{ID: "p2", Title: "P2", Tasks: []task.Task{{ID: "T3", Title: "task",
		Acceptance: []task.Check{{Run: []string{"true"}}}}}})
	f.plan.Phases[0].Milestone = &task.Milestone{Manual: []string{"the page renders"}}
	queue := uniq(t)
	startWorker(t, addr, queue)
	startRun(t, addr, queue, queue, temporal.RunInput{Plan: f.plan, Dir: f.tree})
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var cl *temporal.Checklist
	for deadline := time.Now().Add(2 * time.Minute); cl == nil; time.Sleep(200 * time.Millisecond) {
		if cl, err = temporal.WaitingChecklist(ctx, c, queue); err != nil || time.Now().After(deadline) {
			t.Fatalf("no gate: %v", err)
		}
	}
	st, err := temporal.Status(ctx, c, queue)
	if err != nil {
		t.Fatal(err)
	}
	if st.AwaitingGate != "p1" || st.Tasks["T2"].Status != policy.StatusDone || st.Outcome != "" {
		t.Fatalf("status at the gate: %+v", st)
	}
	want := "Automated passed: T1 (true); T2 (true); please verify: the page renders."
	if cl.Phase != "p1" || !slices.Equal(cl.Manual, []string{"the page renders"}) || cl.Summary != want {
		t.Fatalf("checklist %+v", cl)
	}
	if err := temporal.Approve(ctx, c, queue, temporal.Approval{Phase: "p1", By: "test"}); err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, addr, queue, 2*time.Minute)
	if res.Outcome != policy.Completed || !slices.Equal(res.State.Approved, []string{"p1"}) || res.State.Cycles != 3 {
		t.Fatalf("outcome %s (%s), approved %v", res.Outcome, res.Reason, res.State.Approved)
	}
}

const hostedPlan = `version: 1
name: hosted
executor: {kind: command, argv: [sh, -c, "echo hi > out.txt"]}
phases:
  - id: p1
    title: one
    tasks:
      - id: T1
        title: write out.txt
        files: [out.txt]
        acceptance:
          - run: [test, -f, out.txt]
  - id: p2
    title: two
    tasks:
      - id: T2
        title: fail
        budget: {attempts: 2}
        acceptance:
          - run: ["false"]
`

// TestServerHost: the harnish-temporal command runs a plan file as the CLI
// would (same plan, same exit code), and its status --json prints the
// state the CLI's status prints, field for field where the two runs agree.
func TestServerHost(t *testing.T) {
	addr := sharedServer(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "harnish.yaml")
	if err := os.WriteFile(planFile, []byte(hostedPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, cliTree := filepath.Join(dir, "tree"), filepath.Join(dir, "cli")
	os.MkdirAll(tree, 0o755)
	os.MkdirAll(cliTree, 0o755)
	id := uniq(t)
	var stdout, stderr strings.Builder
	code := host.Main(context.Background(), []string{"run", "--address", addr, "--task-queue", id, "--worker", "--yes",
		"--dir", tree, "--id", id, planFile}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "halted") {
		t.Fatalf("run: exit %d, want 2 (halted)\n%s%s", code, stdout.String(), stderr.String())
	}
	// A query needs a worker; the one of run --worker has stopped.
	startWorker(t, addr, id)
	stdout.Reset()
	if code := host.Main(context.Background(), []string{"status", "--address", addr, "--json", id}, &stdout, &stderr); code != 0 {
		t.Fatalf("status: exit %d\n%s", code, stderr.String())
	}
	var got policy.RunState
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("status --json: %v\n%s", err, stdout.String())
	}
	plan, err := task.Load(planFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := harnish.Open(context.Background(), plan, harnish.Options{Dir: cliTree, Gate: loop.AutoApprove{}, NoAssets: true, Unmarked: true})
	if err != nil {
		t.Fatal(err)
	}
	_, runErr := r.Run(context.Background())
	r.Close()
	if !errors.Is(runErr, policy.ErrHalted) {
		t.Fatalf("the CLI's run: %v", runErr)
	}
	want, err := loop.ReadState(filepath.Join(cliTree, loop.StateDir))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(want), viewOf(&got)); diff != "" {
		t.Errorf("harnish-temporal status --json differs from the CLI's state (-cli +temporal):\n%s", diff)
	}
	if got.Tasks["T2"].Attempts != 2 || !slices.Equal(got.Approved, []string{"p1"}) {
		t.Errorf("T2 %+v, approved %v", got.Tasks["T2"], got.Approved)
	}
}

// BenchmarkServerAttempt measures what an attempt costs on a real server
// against the CLI's loop on the same plan (one task, an agent that does
// nothing but write one file), the two interleaved in each iteration,
// without and with the record in the tree and the commits; it reports the
// medians and their ratio.
//
//	HARNISH_TEMPORAL_DEVSERVER=<binary> go test -run '^$' -bench ServerAttempt -benchtime 20x .
func BenchmarkServerAttempt(b *testing.B) {
	bin := os.Getenv(envDevServer)
	addr := os.Getenv(envAddress)
	if addr == "" && bin == "" {
		b.Skipf("no Temporal server: set %s or %s", envAddress, envDevServer)
	}
	if addr == "" {
		dir := b.TempDir()
		s, err := startServer(bin, dir, freeAddrB(b))
		if err != nil {
			b.Fatal(err)
		}
		defer s.stop()
		addr = s.addr
	}
	plan := &task.Plan{Version: "1", Name: "bench",
		Executor: &task.Component{Kind: task.KindCommand, Argv: []string{"sh", "-c", "echo x > out.txt"}},
		Phases:   []task.Phase{{ID: "p1", Tasks: []task.Task{{ID: "T1", Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}}}}}}
	c, err := dial(addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	queue := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	a := &temporal.Activities{Build: temporal.Harnish("")}
	a.AddPlan(plan)
	w := worker.New(c, queue, worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	temporal.Register(w, a)
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	// plain: no record in the tree; records: the tree's record and the
	// task's and records' commits, on both sides.
	for _, records := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "records"}[records], func(b *testing.B) {
			root := b.TempDir()
			var wf, cli []int64
			for i := range b.N {
				tree := filepath.Join(root, strconv.Itoa(i))
				for _, d := range []string{tree, filepath.Join(tree, "cli")} {
					os.MkdirAll(d, 0o755)
					if records {
						gitBench(b, d)
					}
				}
				t0 := time.Now()
				id := fmt.Sprintf("%s-%v-%d", queue, records, i)
				in := temporal.RunInput{Plan: plan, Dir: tree, Records: records, CommitTasks: records}
				if _, err := temporal.Start(context.Background(), c, id, queue, in); err != nil {
					b.Fatal(err)
				}
				if res, err := temporal.Wait(context.Background(), c, id); err != nil || res.Outcome != policy.Completed {
					b.Fatalf("run %s: %v %+v", id, err, res)
				}
				wf = append(wf, int64(time.Since(t0)))
				t0 = time.Now()
				r, err := harnish.Open(context.Background(), plan, harnish.Options{Dir: filepath.Join(tree, "cli"), Gate: loop.AutoApprove{},
					NoAssets: !records, Unmarked: true, CommitTasks: records})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				r.Close()
				cli = append(cli, int64(time.Since(t0)))
			}
			mw, mc := median(wf), median(cli)
			b.ReportMetric(float64(mw)/1e6, "workflow-ms/attempt")
			b.ReportMetric(float64(mc)/1e6, "cli-ms/attempt")
			b.ReportMetric(float64(mw)/float64(max(mc, 1)), "ratio")
		})
	}
}

// gitBench makes dir a git repository with one commit, outside the timing.
func gitBench(b *testing.B, dir string) {
	b.StopTimer()
	defer b.StartTimer()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func freeAddrB(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestServerHostResume: a run that escalated is resumed with
// harnish-temporal resume, as with harnish resume: a fresh budget, the
// attempts numbered on, and the run completes.
func TestServerHostResume(t *testing.T) {
	addr := sharedServer(t)
	dir := t.TempDir()
	planFile := filepath.Join(dir, "harnish.yaml")
	plan := `version: 1
name: resumed
budget: {attempts: 1}
executor: {kind: command, argv: [sh, -c, 'if [ "$HARNISH_ATTEMPT" -ge 2 ]; then echo ok > ok.txt; fi']}
phases:
  - id: p1
    tasks:
      - id: T1
        title: write ok.txt, at the second attempt
        files: [ok.txt]
        acceptance:
          - run: [test, -f, ok.txt]
`
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(tree, 0o755)
	id := uniq(t)
	common := []string{"--address", addr, "--task-queue", id, "--worker", "--dir", tree}
	var stdout, stderr strings.Builder
	if code := host.Main(context.Background(), append(append([]string{"run"}, common...), "--id", id, planFile), &stdout, &stderr); code != 2 {
		t.Fatalf("run: exit %d, want 2\n%s", code, stderr.String())
	}
	if code := host.Main(context.Background(), append(append([]string{"resume"}, common...), id, planFile), &stdout, &stderr); code != 0 {
		t.Fatalf("resume: exit %d, want 0\n%s", code, stderr.String())
	}
	c, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := temporal.Wait(context.Background(), c, id)
	if err != nil {
		t.Fatal(err)
	}
	if t1 := res.State.Tasks["T1"]; res.Outcome != policy.Completed || t1.Attempts != 2 || t1.Base != 1 {
		t.Fatalf("outcome %s (%s), T1 %+v", res.Outcome, res.Reason, t1)
	}
}
