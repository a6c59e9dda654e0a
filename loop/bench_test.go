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
// in the same loop: the floor appends the very bytes a transition writes to
// a file and fsyncs it; the commit records one transition in a store whose
// state already holds N finished tasks. Each iteration does both, the order
// alternating, so machine noise hits them alike; ratios are medians of the
// per-iteration ratios.
//
//   - each: one commit per iteration; the median is a commit without a
//     snapshot, which comes once per period (see period). It reports how many
//     snapshots the run took.
//   - period: one iteration is a whole snapshot period, from the commit
//     after a snapshot to the commit that writes the next one, so its mean
//     includes exactly one snapshot: the amortized cost. At 10,000 tasks a
//     period is some 11,000 commits.
//
// Run it with:
//
//	go test -run '^$' -bench 'Commit/tasks=100$/each' -benchtime 3000x ./loop
//	go test -run '^$' -bench 'Commit/tasks=100$/period' -benchtime 20x ./loop
//	go test -run '^$' -bench 'Commit/tasks=10000/each' -benchtime 3000x ./loop
//	go test -run '^$' -bench 'Commit/tasks=10000/period' -benchtime 3x ./loop
func BenchmarkCommit(b *testing.B) {
	for _, tasks := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("tasks=%d", tasks), func(b *testing.B) {
			b.Run("each", func(b *testing.B) { benchCommit(b, tasks, false) })
			b.Run("period", func(b *testing.B) { benchCommit(b, tasks, true) })
		})
	}
}

func benchCommit(b *testing.B, tasks int, period bool) {
	ctx := context.Background()
	line := transitionLine(b)
	floor, err := os.OpenFile(filepath.Join(b.TempDir(), "floor.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer floor.Close()
	dir := filepath.Join(b.TempDir(), loop.StateDir)
	// The history, then a snapshot of it (a threshold of one byte), so
	// the store opened next starts a period with an empty journal.
	s, err := loop.OpenDir(dir, &loop.DirOptions{CompactBytes: 1})
	if err != nil {
		b.Fatal(err)
	}
	ts := history(1 + 6*tasks)
	for i := 0; i < len(ts); i += 5000 {
		if err := s.Commit(ctx, ts[i:min(i+5000, len(ts))]...); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Commit(ctx, policy.Transition{Kind: policy.TransTaskStarted, Time: t0, Phase: "p", Task: "bench"}); err != nil {
		b.Fatal(err)
	}
	s.Close()
	if s, err = loop.OpenDir(dir, nil); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	snap := filepath.Join(dir, loop.SnapshotFile)
	snapStat := func() os.FileInfo {
		fi, err := os.Stat(snap)
		if err != nil {
			b.Fatal(err)
		}
		return fi
	}
	attempt := 0
	next := func() policy.Transition {
		attempt++
		if attempt%2 == 1 {
			return policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "bench", Attempt: attempt/2 + 1}
		}
		return policy.Transition{Kind: policy.TransAttemptFinished, Time: t0, Task: "bench", Attempt: attempt / 2,
			Elapsed: 3 * time.Second, Tokens: 1200, CostUSD: 0.01}
	}
	timeFloor := func() time.Duration {
		start := time.Now()
		if _, err := floor.Write(line); err != nil {
			b.Fatal(err)
		}
		if err := floor.Sync(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	timeCommit := func() time.Duration {
		tr := next()
		start := time.Now()
		if err := s.Commit(ctx, tr); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// pair runs one commit and one floor, the order alternating, and
	// reports whether the commit wrote a snapshot.
	n := 0
	pair := func() (c, f time.Duration, snapped bool) {
		before := snapStat()
		if n%2 == 0 {
			c, f = timeCommit(), timeFloor()
		} else {
			f, c = timeFloor(), timeCommit()
		}
		n++
		return c, f, !os.SameFile(before, snapStat())
	}
	var floors, commits []time.Duration
	var ratios []float64
	snapshots, perPeriod := 0, 0
	for b.Loop() {
		if !period {
			c, f, snapped := pair()
			if snapped {
				snapshots++
			}
			floors, commits, ratios = append(floors, f), append(commits, c), append(ratios, float64(c)/float64(f))
			continue
		}
		var sumC, sumF time.Duration
		k := 0
		for done := false; !done; k++ {
			var c, f time.Duration
			c, f, done = pair()
			sumC, sumF = sumC+c, sumF+f
		}
		perPeriod = k
		floors, commits = append(floors, sumF/time.Duration(k)), append(commits, sumC/time.Duration(k))
		ratios = append(ratios, float64(sumC)/float64(sumF))
	}
	b.ReportMetric(float64(median(floors).Nanoseconds()), "floor-ns/median")
	b.ReportMetric(float64(median(commits).Nanoseconds()), "commit-ns/median")
	b.ReportMetric(medianRatio(ratios), "commit/floor")
	if period {
		b.ReportMetric(float64(perPeriod), "commits/period")
	} else {
		b.ReportMetric(float64(snapshots), "snapshots")
	}
}

func medianRatio(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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
// on-disk store, against one durable transition (one Commit to another
// DirStore) measured in the same run, inside each attempt: the observer
// commits the floor's transition when the attempt starts, or when it ends,
// by turns, and its time is taken out of the attempt's. An attempt commits
// twice (its start before the executor runs, its end after), so the floor
// of the ratio is 2; the ratio is the median of the per-attempt ratios.
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
	floorStore, err := loop.OpenDir(filepath.Join(b.TempDir(), loop.StateDir), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer floorStore.Close()
	if err := floorStore.Commit(ctx, policy.Transition{Kind: policy.TransRunStarted, Time: t0, Run: "r", Plan: "p"},
		policy.Transition{Kind: policy.TransTaskStarted, Time: t0, Phase: "p", Task: "T"}); err != nil {
		b.Fatal(err)
	}
	recordsDir := ""
	if records {
		recordsDir = stateDir
	}
	var starts []time.Time
	floors := make([]time.Duration, 0, n)
	var floorErr error
	commitFloor := func() {
		i := len(floors)
		tr := policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "T", Attempt: i/2 + 1}
		if i%2 == 1 {
			tr = policy.Transition{Kind: policy.TransAttemptFinished, Time: t0, Task: "T", Attempt: i/2 + 1}
		}
		start := time.Now()
		if err := floorStore.Commit(ctx, tr); err != nil && floorErr == nil {
			floorErr = err
		}
		floors = append(floors, time.Since(start))
	}
	l, err := loop.New(loop.Config{Plan: plan, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Store: store, RecordsDir: recordsDir,
		Observer: loop.ObserverFunc(func(e loop.Event) {
			switch e.Type {
			case loop.AttemptStarted:
				starts = append(starts, time.Now())
				if len(starts)%2 == 1 {
					commitFloor()
				}
			case loop.AttemptFinished:
				if len(starts)%2 == 0 {
					commitFloor()
				}
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
	if floorErr != nil {
		b.Fatal(floorErr)
	}
	if len(floors) != len(starts) {
		b.Fatalf("%d floor transitions for %d attempts", len(floors), len(starts))
	}
	attempts := make([]time.Duration, 0, len(starts))
	ratios := make([]float64, 0, len(starts))
	for i := range starts {
		next := end
		if i+1 < len(starts) {
			next = starts[i+1]
		}
		a := next.Sub(starts[i]) - floors[i]
		attempts, ratios = append(attempts, a), append(ratios, float64(a)/float64(floors[i]))
	}
	b.ReportMetric(float64(median(attempts).Nanoseconds()), "attempt-ns/median")
	b.ReportMetric(float64(median(floors).Nanoseconds()), "transition-ns/median")
	b.ReportMetric(medianRatio(ratios), "attempt/transition")
}
