package codex_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

const benchCheck = `test "$(cat a.txt)" = hello`

const benchPlan = `version: 1
name: bench
phases:
  - id: p1
    title: P
    tasks:
      - id: T1
        title: hello
        objective: a.txt holds hello
        files: [a.txt]
        acceptance:
          - sh: '` + benchCheck + `'
`

// timed wraps an executor and adds up the time spent in Execute.
type timed struct {
	executor.Executor
	d time.Duration
}

func (x *timed) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	start := time.Now()
	defer func() { x.d += time.Since(start) }()
	return x.Executor.Execute(ctx, req)
}

func benchScript(tb testing.TB) *codextest.Server {
	return codextest.NewServer(tb, codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addA)}},
		codextest.Turn{Items: []codextest.Item{codextest.Message("Wrote a.txt.")}})
}

// byHand runs codex exec with the command line codex.Executor uses (see its
// doc), in a fresh CODEX_HOME with a TMPDIR beside it (as the executor lays
// them out, which a system bubblewrap needs), then the acceptance check
// with sh; with
// hooks, CODEX_HOME holds the same hooks.json harnish writes; with commit,
// the change is committed with git add and git commit, as a person would.
func byHand(b *testing.B, work, planFile string, hooks, commit bool) time.Duration {
	srv := benchScript(b)
	dir := b.TempDir()
	home, tmp := filepath.Join(dir, "home"), filepath.Join(dir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	hookLog := filepath.Join(b.TempDir(), "hooks.jsonl")
	env := append(os.Environ(), "CODEX_HOME="+home, "TMPDIR="+tmp, "HOME="+b.TempDir())
	if hooks {
		settings := agent.Settings(agent.Hooks{
			PreToolUse: agent.HookCommand(harnishBin, "pre-tool-use", "codex", planFile),
			Stop:       agent.HookCommand(harnishBin, "stop", "codex", planFile),
		})
		if err := os.WriteFile(filepath.Join(home, "hooks.json"), settings, 0o600); err != nil {
			b.Fatal(err)
		}
		env = append(env, agent.Env(&executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 1, WorkDir: work}, hookLog)...)
	}
	p := srv.Provider()
	argv := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--color", "never",
		"-C", work, "-s", "workspace-write", "-c", `approval_policy="never"`,
		"-c", `model_provider="codextest"`, "-c", `model_providers.codextest.name="codextest"`,
		"-c", fmt.Sprintf("model_providers.codextest.base_url=%q", p.BaseURL),
		"-c", `model_providers.codextest.wire_api="responses"`,
		"-c", "model_providers.codextest.request_max_retries=0", "-c", "model_providers.codextest.stream_max_retries=0",
		"-m", codextest.Model, "-"}
	start := time.Now()
	cmd := exec.Command("codex", argv...)
	cmd.Dir, cmd.Env = work, env
	cmd.Stdin = strings.NewReader(agent.WithBlockedInstruction("Write hello to a.txt."))
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("codex by hand: %v\n%s", err, out)
	}
	check := exec.Command("sh", "-c", benchCheck)
	check.Dir = work
	if out, err := check.CombinedOutput(); err != nil {
		b.Fatalf("check by hand: %v\n%s", err, out)
	}
	if commit {
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "feat(p1): T1 — hello"}} {
			git := exec.Command("git", args...)
			git.Dir = work
			if out, err := git.CombinedOutput(); err != nil {
				b.Fatalf("git %v by hand: %v\n%s", args, err, out)
			}
		}
	}
	return time.Since(start)
}

// viaHarnish runs the one-task plan through loop.Loop with codex.Executor,
// a DirStore, records and a commit, and returns the whole run's time, the
// part spent in Execute, and the task's own part: from its start to the
// run's end, which leaves out what a run costs once however many tasks it
// has (opening the store, recording the run's start, its summary and the
// commit of its records).
func viaHarnish(b *testing.B, work, planFile string) (total, execute, taskTime time.Duration) {
	plan, err := task.Load(planFile)
	if err != nil {
		b.Fatal(err)
	}
	srv := benchScript(b)
	cx := newExecutor(b, srv)
	cx.PlanFile = planFile
	ex := &timed{Executor: cx}
	start := time.Now()
	state := filepath.Join(work, loop.StateDir)
	store, err := loop.OpenDir(state, nil)
	if err != nil {
		b.Fatal(err)
	}
	var taskStart, runEnd time.Time
	observe := loop.ObserverFunc(func(e loop.Event) {
		switch e.Type {
		case loop.TaskStarted:
			taskStart = time.Now()
		case loop.RunFinished:
			runEnd = time.Now()
		}
	})
	l, err := loop.New(loop.Config{Plan: plan, WorkDir: work, Executor: ex, Verifier: verify.Acceptance{},
		Store: store, RecordsDir: state, CommitTasks: true, RunID: "bench", Observer: observe})
	if err != nil {
		b.Fatal(err)
	}
	res, err := l.Run(context.Background())
	if err != nil || res.Outcome != policy.Completed {
		b.Fatalf("run: %v", err)
	}
	return time.Since(start), ex.d, runEnd.Sub(taskStart)
}

// BenchmarkOverhead measures what harnish adds to one task run through the
// real Codex CLI against the scripted server: the whole loop.Loop.Run of a
// one-task plan (DirStore, records, git commit, hooks and their checks)
// against the same codex exec command line and the same acceptance check
// run by hand, interleaved, in the same iteration (the order alternates).
// A third run by hand with harnish's hooks tells the hooks' share. Run it
// with
//
//	go test -run '^$' -bench Overhead -benchtime 15x ./executor/codex/
//
// It reports medians over the iterations: ratio (harnish total / by hand),
// task-ratio (the task's own part of the run / by hand: a run's fixed
// costs, run-ms, are paid once however many tasks it has),
// hooks-ratio (by hand with hooks / by hand), harnish-ms and hand-ms (the
// two totals), hooks-ms (what the hooks added to the run by hand),
// loop-ms (the loop's time outside Execute: the check, records, the
// commits), alike-ratio (harnish total / by hand with the same hooks and a
// git commit of the change: what the person gets from harnish, done by
// hand) and spawn-ms (starting and waiting for /bin/true: what every
// process harnish or git starts costs on this machine).
func BenchmarkOverhead(b *testing.B) {
	needCodex(b)
	planFile := filepath.Join(b.TempDir(), "harnish.yaml")
	if err := os.WriteFile(planFile, []byte(benchPlan), 0o644); err != nil {
		b.Fatal(err)
	}
	var ratio, taskRatio, runMs, hooksRatio, harnishMs, handMs, hooksMs, loopMs, alikeRatio, spawnMs []float64
	i := 0
	for b.Loop() {
		var total, execute, taskTime, hand, withHooks, alike, spawn time.Duration
		runs := []func(){
			func() { total, execute, taskTime = viaHarnish(b, testkit.GitTree(b), planFile) },
			func() { hand = byHand(b, testkit.GitTree(b), planFile, false, false) },
			func() { withHooks = byHand(b, testkit.GitTree(b), planFile, true, false) },
			func() { alike = byHand(b, testkit.GitTree(b), planFile, true, true) },
			func() {
				start := time.Now()
				if err := exec.Command("true").Run(); err != nil {
					b.Fatal(err)
				}
				spawn = time.Since(start)
			},
		}
		if i%2 == 1 {
			slices.Reverse(runs)
		}
		for _, run := range runs {
			run()
		}
		i++
		ratio = append(ratio, total.Seconds()/hand.Seconds())
		taskRatio = append(taskRatio, taskTime.Seconds()/hand.Seconds())
		runMs = append(runMs, ms(total-taskTime))
		hooksRatio = append(hooksRatio, withHooks.Seconds()/hand.Seconds())
		harnishMs = append(harnishMs, ms(total))
		handMs = append(handMs, ms(hand))
		hooksMs = append(hooksMs, ms(withHooks-hand))
		loopMs = append(loopMs, ms(total-execute))
		alikeRatio = append(alikeRatio, total.Seconds()/alike.Seconds())
		spawnMs = append(spawnMs, ms(spawn))
	}
	b.ReportMetric(median(ratio), "ratio")
	b.ReportMetric(median(taskRatio), "task-ratio")
	b.ReportMetric(median(runMs), "run-ms")
	b.ReportMetric(median(hooksRatio), "hooks-ratio")
	b.ReportMetric(median(harnishMs), "harnish-ms")
	b.ReportMetric(median(handMs), "hand-ms")
	b.ReportMetric(median(hooksMs), "hooks-ms")
	b.ReportMetric(median(loopMs), "loop-ms")
	b.ReportMetric(median(alikeRatio), "alike-ratio")
	b.ReportMetric(median(spawnMs), "spawn-ms")
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
