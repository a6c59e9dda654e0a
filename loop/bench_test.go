package loop_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// BenchmarkCommit measures one durable transition against its physical floor
// in the same run. Each iteration does both, interleaved so machine noise
// hits them alike: the floor appends the very bytes a transition writes to a
// file and fsyncs it; the commit records one transition in a store whose
// state already holds N finished tasks, snapshots included as they come due.
// It reports the median of each and their ratio (commit/floor):
//
//	go test -run '^$' -bench Commit -benchtime 3000x ./loop
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	for _, tasks := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			line := transitionLine(b)
			floor, err := os.OpenFile(filepath.Join(b.TempDir(), "floor.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer floor.Close()
			s, err := loop.OpenDir(filepath.Join(b.TempDir(), loop.StateDir), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ts := history(1 + 6*tasks)
			for i := 0; i < len(ts); i += 5000 {
				if err := s.Commit(ctx, ts[i:min(i+5000, len(ts))]...); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Commit(ctx, policy.Transition{Kind: policy.TransTaskStarted, Time: t0, Phase: "p", Task: "bench"}); err != nil {
				b.Fatal(err)
			}
			var floors, commits []time.Duration
			attempt := 0
			for b.Loop() {
				start := time.Now()
				if _, err := floor.Write(line); err != nil {
					b.Fatal(err)
				}
				if err := floor.Sync(); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				var tr policy.Transition
				if attempt%2 == 0 {
					tr = policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "bench", Attempt: attempt/2 + 1}
				} else {
					tr = policy.Transition{Kind: policy.TransAttemptFinished, Time: t0, Task: "bench", Attempt: attempt/2 + 1,
						Elapsed: 3 * time.Second, Tokens: 1200, CostUSD: 0.01}
				}
				attempt++
				if err := s.Commit(ctx, tr); err != nil {
					b.Fatal(err)
				}
				end := time.Now()
				floors, commits = append(floors, mid.Sub(start)), append(commits, end.Sub(mid))
			}
			mf, mc := median(floors), median(commits)
			b.ReportMetric(float64(mf.Nanoseconds()), "floor-ns/median")
			b.ReportMetric(float64(mc.Nanoseconds()), "commit-ns/median")
			b.ReportMetric(float64(mc)/float64(mf), "commit/floor")
			b.ReportMetric(float64(mean(commits))/float64(mean(floors)), "mean-commit/floor")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// transitionLine returns the journal line of a typical transition, read
// back from a real store.
func transitionLine(b *testing.B) []byte {
	dir := filepath.Join(b.TempDir(), loop.StateDir)
	s, err := loop.OpenDir(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	ts := history(3)
	ts = append(ts, policy.Transition{Kind: policy.TransAttemptFinished, Time: t0, Task: "T0", Attempt: 1,
		Elapsed: 3 * time.Second, Tokens: 1200, CostUSD: 0.01})
	if err := s.Commit(context.Background(), ts...); err != nil {
		b.Fatal(err)
	}
	s.Close()
	data, err := os.ReadFile(filepath.Join(dir, loop.JournalFile))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	return append(lines[len(lines)-1], '\n')
}

// BenchmarkLoopAttempt measures the loop's own cost per attempt, with no-op
// components (an executor that claims done, checks that pass) and the
// on-disk store, against one durable transition (one Commit to a DirStore)
// measured in the same run. An attempt commits twice (its start before the
// executor runs, its end after), so the floor of the ratio is 2.
//
// "records" also writes the handoffs and audit logs the CLI keeps.
//
//	go test -run '^$' -bench LoopAttempt -benchtime 2000x ./loop
func BenchmarkLoopAttempt(b *testing.B) {
	for _, records := range []bool{false, true} {
		b.Run(fmt.Sprintf("records=%v", records), func(b *testing.B) { benchLoopAttempt(b, records) })
	}
}

func benchLoopAttempt(b *testing.B, records bool) {
	ctx := context.Background()
	n := b.N
	tasks := make([]task.Task, n)
	for i := range tasks {
		tasks[i] = task.Task{ID: fmt.Sprintf("T%d", i), Title: "t", Acceptance: []task.Check{{Run: []string{"true"}}}}
	}
	plan := &task.Plan{Version: "1", Name: "bench", Budget: task.Budget{Cycles: task.MaxCycles},
		Phases: []task.Phase{{ID: "p", Title: "P", Tasks: tasks}}}
	stateDir := filepath.Join(b.TempDir(), loop.StateDir)
	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	recordsDir := ""
	if records {
		recordsDir = stateDir
	}
	var starts []time.Time
	l, err := loop.New(loop.Config{Plan: plan, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Store: store, RecordsDir: recordsDir,
		Observer: loop.ObserverFunc(func(e loop.Event) {
			if e.Type == loop.AttemptStarted {
				starts = append(starts, time.Now())
			}
		})})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	res, err := l.Run(ctx)
	end := time.Now()
	b.StopTimer()
	if err != nil || res.Outcome != policy.Completed {
		b.Fatalf("run: %v", err)
	}
	attempts := make([]time.Duration, 0, len(starts))
	for i := range starts {
		next := end
		if i+1 < len(starts) {
			next = starts[i+1]
		}
		attempts = append(attempts, next.Sub(starts[i]))
	}

	floorStore, err := loop.OpenDir(filepath.Join(b.TempDir(), loop.StateDir), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer floorStore.Close()
	if err := floorStore.Commit(ctx, policy.Transition{Kind: policy.TransRunStarted, Time: t0, Run: "r", Plan: "p"},
		policy.Transition{Kind: policy.TransTaskStarted, Time: t0, Phase: "p", Task: "T"}); err != nil {
		b.Fatal(err)
	}
	floors := make([]time.Duration, 0, n)
	for i := range n {
		tr := policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "T", Attempt: i/2 + 1}
		if i%2 == 1 {
			tr = policy.Transition{Kind: policy.TransAttemptFinished, Time: t0, Task: "T", Attempt: i/2 + 1}
		}
		start := time.Now()
		if err := floorStore.Commit(ctx, tr); err != nil {
			b.Fatal(err)
		}
		floors = append(floors, time.Since(start))
	}
	ma, mf := median(attempts), median(floors)
	b.ReportMetric(float64(ma.Nanoseconds()), "attempt-ns/median")
	b.ReportMetric(float64(mf.Nanoseconds()), "transition-ns/median")
	b.ReportMetric(float64(ma)/float64(mf), "attempt/transition")
}
