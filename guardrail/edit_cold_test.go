package guardrail_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail"
)

// coldEnv names what a re-executed test binary does instead of its tests:
// one of the coldTasks, as the first work of a fresh process.
const coldEnv = "HARNISH_GUARDRAIL_COLD"

// smallEdit is one small edit as the hook judges it: a few lines added to
// a Go file, one of them naming a credential read from the environment.
const smallEdit = "diff --git a/internal/store/store.go b/internal/store/store.go\n" +
	"--- a/internal/store/store.go\n+++ b/internal/store/store.go\n" +
	"@@ -10,2 +10,5 @@ func Open() {\n" +
	" \tdsn := os.Getenv(\"DSN\")\n" +
	"+\tpassword := os.Getenv(\"DB_PASSWORD\")\n" +
	"+\tif password == \"\" {\n" +
	"+\t\treturn nil, errors.New(\"store: DB_PASSWORD is not set\")\n" +
	" \treturn open(dsn)\n"

// coldTasks are what a fresh process may do first: nothing, judge the
// small edit, judge the 2,000-line diff, or only parse it.
var coldTasks = map[string]func() error{
	"nothing": func() error { return nil },
	"small": func() error {
		g, err := guardrail.NewEditGuard(guardrail.EditConfig{})
		if err != nil {
			return err
		}
		_, err = g.CheckEdit(context.Background(), guardrail.Action{Kind: guardrail.KindEdit, Diff: smallEdit})
		return err
	},
	"decide": func() error {
		g, err := guardrail.NewEditGuard(benchConfig)
		if err != nil {
			return err
		}
		_, err = g.CheckEdit(context.Background(), guardrail.Action{Kind: guardrail.KindEdit, Diff: coldDiff, Task: "T1"})
		return err
	},
	"parse": func() error {
		_, err := guardrail.ParseDiff(coldDiff)
		return err
	},
}

// coldDiff is the 2,000-line diff a cold process judges, made before the
// clock starts.
var coldDiff string

// TestMain runs one coldTask instead of the tests when the environment
// asks (see BenchmarkEditGuardCold), and prints the CPU and wall time it
// took in nanoseconds.
func TestMain(m *testing.M) {
	task := os.Getenv(coldEnv)
	if task == "" {
		os.Exit(m.Run())
	}
	f, ok := coldTasks[task]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s=%q: no such task\n", coldEnv, task)
		os.Exit(2)
	}
	if task == "decide" || task == "parse" {
		coldDiff = benchDiff()
	}
	c0, t0 := cpuTime(), time.Now()
	if err := f(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c1, t1 := cpuTime(), time.Now()
	fmt.Printf("%d %d\n", c1-c0, t1.Sub(t0).Nanoseconds())
	os.Exit(0)
}

// coldRun re-executes the test binary to do task as the first work of a
// fresh process. It returns the CPU time the task took, as the process
// measured it; its wall time; and the CPU time of the whole process
// (start-up, the task and exit), as the system measured it.
func coldRun(tb testing.TB, task string) (cpu, wall, proc float64) {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), coldEnv+"="+task, "GOMAXPROCS=1")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s=%s: %v: %s", coldEnv, task, err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		tb.Fatalf("%s=%s printed %q", coldEnv, task, out)
	}
	c, err1 := strconv.ParseFloat(f[0], 64)
	w, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		tb.Fatalf("%s=%s printed %q", coldEnv, task, out)
	}
	ps := cmd.ProcessState
	return c, w, float64((ps.UserTime() + ps.SystemTime()).Nanoseconds())
}

// BenchmarkEditGuardCold measures the edit guard as the hook runs it: in a
// fresh process, where nothing the guard builds on first use (the secret
// rules, their keyword automaton, the regexps) exists yet. Each iteration
// re-executes the test binary four times, in an order that rotates: to do
// nothing (the floor), to judge one small edit, to judge the 2,000-line
// diff of BenchmarkEditGuard, and to parse it alone. It reports medians
// over the iterations:
//
//   - first-check-cpu-ns: the CPU time of the small edit's check, as the
//     process measured it around the call;
//   - first-check-proc-cpu-ns: the whole process's CPU time less the
//     nothing process's in the same iteration, which also counts what the
//     check makes the runtime do after it (a GC, exit);
//   - cold-cpu-ns/decision and cold-cpu-ns/parse, and x-parse-cold-cpu
//     (the ratio of those medians) and x-parse-cold-cpu-iter (the median of
//     the per-iteration ratios): the 2,000-line diff judged and parsed cold;
//   - x-parse-cold-wall: the same ratio by wall clock.
//
// The children run with GOMAXPROCS=1. Run it with a fixed count:
//
//	go test -run '^$' -bench EditGuardCold -benchtime 20x ./guardrail/
func BenchmarkEditGuardCold(b *testing.B) {
	tasks := []string{"nothing", "small", "decide", "parse"}
	var small, smallProc, decide, parse, ratio, wallDecide, wallParse []float64
	n := 0
	for b.Loop() {
		var cpu, wall, proc [4]float64
		for k := range tasks {
			i := (k + n) % len(tasks)
			cpu[i], wall[i], proc[i] = coldRun(b, tasks[i])
		}
		n++
		small = append(small, cpu[1])
		smallProc = append(smallProc, proc[1]-proc[0])
		decide, parse = append(decide, cpu[2]), append(parse, cpu[3])
		if cpu[3] > 0 {
			ratio = append(ratio, cpu[2]/cpu[3])
		}
		wallDecide, wallParse = append(wallDecide, wall[2]), append(wallParse, wall[3])
	}
	b.ReportMetric(median(small), "first-check-cpu-ns")
	b.ReportMetric(median(smallProc), "first-check-proc-cpu-ns")
	d, p := median(decide), median(parse)
	b.ReportMetric(d, "cold-cpu-ns/decision")
	b.ReportMetric(p, "cold-cpu-ns/parse")
	if p > 0 {
		b.ReportMetric(d/p, "x-parse-cold-cpu")
	}
	b.ReportMetric(median(ratio), "x-parse-cold-cpu-iter")
	b.ReportMetric(median(wallDecide)/median(wallParse), "x-parse-cold-wall")
}
