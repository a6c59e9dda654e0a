package main

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

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// BenchmarkBigRun is issue 21's bar for the CLI on a finished run of 10,000
// tasks: "harnish status --json" and "harnish resume" (which loads the run
// and its kept plan, finds it completed and ends) as whole processes,
// against the floor of reading the state files: cat of every file in
// .harnish/, as a process too. Each iteration runs the floor and both
// commands, the order rotating; the benchmark reports the medians and the
// median of the per-iteration ratios (target ≤ 10).
//
//	go test ./cmd/harnish -run '^$' -bench BigRun -benchtime 20x
func BenchmarkBigRun(b *testing.B) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		b.Skip("needs cat")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "harnish")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	tree := filepath.Join(dir, "tree")
	finishedRun(b, tree, 10_000)
	// A first resume writes the records (handoffs, audit logs) a run that
	// finished leaves; the state files alone do not hold them.
	if out, err := exec.Command(bin, "resume", "--dir", tree, "--yes").CombinedOutput(); err != nil {
		b.Fatalf("harnish resume: %v\n%s", err, out)
	}
	stateDir := filepath.Join(tree, loop.StateDir)
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		b.Fatal(err)
	}
	var files []string
	var size int64
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, filepath.Join(stateDir, e.Name()))
			if fi, err := e.Info(); err == nil {
				size += fi.Size()
			}
		}
	}
	b.Logf("%d state files, %d bytes", len(files), size)

	type command struct {
		name string
		argv []string
		want int // exit status
	}
	commands := []command{
		{"cat", append([]string{cat}, files...), 0},
		{"status", []string{bin, "status", "--json", "--dir", tree}, 0},
		{"resume", []string{bin, "resume", "--dir", tree, "--yes"}, 0},
	}
	times := make([][]time.Duration, len(commands))
	ratios := make([][]float64, len(commands))
	i := 0
	for b.Loop() {
		got := make([]time.Duration, len(commands))
		for k := range commands {
			c := commands[(k+i)%len(commands)]
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			start := time.Now()
			out, err := cmd.Output()
			d := time.Since(start)
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				b.Fatal(err)
			}
			if code != c.want || len(out) == 0 && c.name != "resume" {
				b.Fatalf("%s: exit %d, %d bytes of output; %v", strings.Join(c.argv, " "), code, len(out), err)
			}
			got[(k+i)%len(commands)] = d
		}
		for k := range commands {
			times[k] = append(times[k], got[k])
			ratios[k] = append(ratios[k], float64(got[k])/float64(got[0]))
		}
		i++
	}
	for k, c := range commands {
		b.ReportMetric(float64(medianOf(times[k]))/1e6, c.name+"-ms")
		if k > 0 {
			b.ReportMetric(medianOf(ratios[k]), c.name+"/cat")
		}
	}
}

func medianOf[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// finishedRun writes into tree a plan of n tasks, kept as "harnish run"
// keeps it, and the state of its run completed: each task started, one
// attempt, done; snapshots as the store takes them.
func finishedRun(b *testing.B, tree string, n int) {
	b.Helper()
	var plan strings.Builder
	plan.WriteString("version: 1\nname: big\nexecutor: {kind: command, argv: [\"true\"]}\nbudget: {cycles: 100000}\nphases:\n  - id: p1\n    tasks:\n")
	for i := range n {
		fmt.Fprintf(&plan, "      - id: T%d\n        title: task %d\n        files: [f%d.txt]\n        acceptance: [{run: [\"true\"]}]\n", i, i, i)
	}
	if err := os.MkdirAll(tree, 0o755); err != nil {
		b.Fatal(err)
	}
	planFile := filepath.Join(tree, "harnish.yaml")
	if err := os.WriteFile(planFile, []byte(plan.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := task.Load(planFile)
	if err != nil {
		b.Fatal(err)
	}
	stateDir := filepath.Join(tree, loop.StateDir)
	if err := loop.KeepPlan(stateDir, planFile); err != nil {
		b.Fatal(err)
	}
	s, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := []policy.Transition{{Kind: policy.TransRunStarted, Time: t0, Run: "big", Plan: p.Name, PlanDigest: policy.PlanDigest(p)}}
	for i := range n {
		id, at := fmt.Sprintf("T%d", i), t0.Add(time.Duration(i)*time.Second)
		ts = append(ts,
			policy.Transition{Kind: policy.TransTaskStarted, Time: at, Phase: "p1", Task: id},
			policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 1},
			policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 1, Elapsed: time.Second, Tokens: 100, CostUSD: 0.01},
			policy.Transition{Kind: policy.TransTaskFinished, Time: at, Task: id, Status: policy.StatusDone})
	}
	ts = append(ts, policy.Transition{Kind: policy.TransRunFinished, Time: t0.Add(time.Duration(n) * time.Second), Outcome: policy.Completed})
	ctx := context.Background()
	for i := 0; i < len(ts); i += 5000 {
		if err := s.Commit(ctx, ts[i:min(i+5000, len(ts))]...); err != nil {
			b.Fatal(err)
		}
	}
}
