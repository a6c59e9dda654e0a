package guardrail_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail"
)

// benchLines are typical changed lines: code, configuration, comments, and
// some that wake the secret filters without being secrets.
var benchLines = []string{
	`	if err := s.store.Save(ctx, key, value); err != nil {`,
	`		return fmt.Errorf("save %s: %w", key, err)`,
	`	password := os.Getenv("DB_PASSWORD")`,
	`	// The token is refreshed by the caller; see auth.Refresh.`,
	`	url := "https://api.example.com/v1/users?page=" + strconv.Itoa(page)`,
	`	for i, item := range items {`,
	`  max_tokens: 4096`,
	`  database_url: postgres://app:${DB_PASSWORD}@db:5432/app`,
	`export const handler = async (event: APIGatewayEvent): Promise<Result> => {`,
	`    const apiKey = process.env.API_KEY;`,
	`	}`,
	`	return &Result{Status: "ok", Count: len(items)}, nil`,
	`	secretName := "billing-credentials"`,
	`def parse(data: bytes) -> dict[str, Any]:`,
	`        raise ValueError(f"bad header {header!r}")`,
	``,
}

// benchDiff returns a git diff of 20 files, each a 100-line hunk, about
// 2,000 lines in all.
func benchDiff() string { return benchDiffIn("") }

// benchDiffIn is benchDiff with its files under the directory dir (none
// when ""): a new dir names paths no cache has seen.
func benchDiffIn(dir string) string {
	exts := []string{".go", ".ts", ".py", ".yaml"}
	var b strings.Builder
	n := 0
	for f := range 20 {
		name := fmt.Sprintf("%spkg%d/file%d%s", dir, f%5, f, exts[f%len(exts)])
		fmt.Fprintf(&b, "diff --git a/%s b/%[1]s\nindex 1111111..2222222 100644\n--- a/%[1]s\n+++ b/%[1]s\n", name)
		fmt.Fprintf(&b, "@@ -10,52 +10,54 @@ func section() {\n")
		for i := range 3 {
			fmt.Fprintf(&b, " %s\n", benchLines[(n+i)%len(benchLines)])
		}
		for i := range 46 {
			fmt.Fprintf(&b, "-%s\n", benchLines[(n+i+3)%len(benchLines)])
		}
		for i := range 48 {
			fmt.Fprintf(&b, "+%s\n", benchLines[(n+i+5)%len(benchLines)])
		}
		for i := range 3 {
			fmt.Fprintf(&b, " %s\n", benchLines[(n+i+7)%len(benchLines)])
		}
		n++
	}
	return b.String()
}

// benchConfig is the edit guard's configuration in the benchmarks: a task
// scope that holds the diff's files, and the TDD rule on.
var benchConfig = guardrail.EditConfig{
	Scope: map[string][]string{"T1": {"pkg0/", "pkg1/", "pkg2/*", "pkg3", "pkg4/"}},
	TDD:   guardrail.TDDConfig{Level: guardrail.Soft},
}

// BenchmarkEditGuard judges a realistic 2,000-line diff with every edit
// rule on (a decision is one CheckEdit of the whole diff) and, in the same
// loop, interleaved, parses it alone, so the ratio of the two does not
// drift with the machine. It is the cold guard of the hook, where every
// call is a new process: each iteration's diff has its files under a
// directory of its own, so no per-path cache (the TDD rule's test
// candidates, the secret rules' per-file selection) has seen them, and the
// guard is made anew. It reports the wall-clock medians, the median of the
// per-iteration ratios (x-parse) and the ratio of the medians
// (x-parse-medians); and, where the system gives the process's CPU time,
// the same in CPU time (cpu-ns/decision, cpu-ns/parse, x-parse-cpu), which
// a loaded machine's waits for a core do not inflate (run it with -cpu 1,
// so nothing else of the process runs meanwhile):
//
//	go test -run '^$' -bench EditGuard -cpu 1 ./guardrail/
func BenchmarkEditGuard(b *testing.B) {
	cfg := benchConfig
	g, err := guardrail.NewEditGuard(cfg)
	if err != nil {
		b.Fatal(err)
	}
	diff := benchDiff()
	lines := strings.Count(diff, "\n")
	a := guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: "T1"}
	if ds, err := g.CheckEdit(b.Context(), a); err != nil || len(ds) == 0 {
		b.Fatalf("CheckEdit = %d decisions, %v; want the TDD and size warnings", len(ds), err)
	}
	var decide, parse, ratio, cpuDecide, cpuParse, cpuRatio []float64
	b.SetBytes(int64(len(diff)))
	template := benchDiffIn("\x00/")
	b.ResetTimer()
	n := 0
	for b.Loop() {
		// A new process starts with an empty heap: the garbage of earlier
		// work is collected outside the timed parts, before each of them,
		// and the two take turns going first, so neither runs on a heap
		// the other just grew.
		b.StopTimer()
		n++
		a.Diff = strings.ReplaceAll(template, "\x00/", fmt.Sprintf("i%d/", n))
		var d, p, cd, cp float64
		decideOnce := func() {
			runtime.GC()
			c0, t0 := cpuTime(), time.Now()
			g, err := guardrail.NewEditGuard(cfg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := g.CheckEdit(b.Context(), a); err != nil {
				b.Fatal(err)
			}
			c1, t1 := cpuTime(), time.Now()
			d, cd = float64(t1.Sub(t0).Nanoseconds()), float64(c1-c0)
		}
		parseOnce := func() {
			runtime.GC()
			c0, t0 := cpuTime(), time.Now()
			if _, err := guardrail.ParseDiff(a.Diff); err != nil {
				b.Fatal(err)
			}
			c1, t1 := cpuTime(), time.Now()
			p, cp = float64(t1.Sub(t0).Nanoseconds()), float64(c1-c0)
		}
		b.StartTimer()
		if n%2 == 0 {
			decideOnce()
			parseOnce()
		} else {
			parseOnce()
			decideOnce()
		}
		decide, parse, ratio = append(decide, d), append(parse, p), append(ratio, d/p)
		if cd > 0 && cp > 0 {
			cpuDecide, cpuParse, cpuRatio = append(cpuDecide, cd), append(cpuParse, cp), append(cpuRatio, cd/cp)
		}
	}
	d, p := median(decide), median(parse)
	b.ReportMetric(d, "ns/decision")
	b.ReportMetric(p, "ns/parse")
	b.ReportMetric(median(ratio), "x-parse")
	b.ReportMetric(d/p, "x-parse-medians")
	b.ReportMetric(float64(lines)/(d/1e9), "lines/s")
	if len(cpuRatio) > 0 {
		b.ReportMetric(median(cpuDecide), "cpu-ns/decision")
		b.ReportMetric(median(cpuParse), "cpu-ns/parse")
		b.ReportMetric(median(cpuRatio), "x-parse-cpu")
	}
}

func BenchmarkParseDiff(b *testing.B) {
	diff := benchDiff()
	b.SetBytes(int64(len(diff)))
	for b.Loop() {
		if _, err := guardrail.ParseDiff(diff); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditGuardFloor puts BenchmarkEditGuard's decision beside what
// any content scan of the same diff must at least do, measured in the
// same loop and taking turns going first: parse the diff (parse), read
// every added byte once through a 256-entry table (pass: the least a
// scan that looks at each byte can do), and run the secret scan's keyword
// pass over the added lines (keywords: the one part every added line
// takes). It reports each as a multiple of the parse, and the decision as
// a multiple of the pass (x-pass): how far the rules are from a single
// look at every byte.
//
//	go test -run '^$' -bench EditGuardFloor -cpu 1 ./guardrail/
func BenchmarkEditGuardFloor(b *testing.B) {
	template := benchDiffIn("\x00/")
	var table [256]uint8
	for c := range table {
		table[c] = uint8(c*7 + 1)
	}
	sink := 0
	tasks := []string{"parse", "pass", "keywords", "decision"}
	times := make([][]float64, len(tasks))
	n := 0
	for b.Loop() {
		n++
		diff := strings.ReplaceAll(template, "\x00/", fmt.Sprintf("i%d/", n))
		files, err := guardrail.ParseDiff(diff)
		if err != nil {
			b.Fatal(err)
		}
		var added []string
		for _, f := range files {
			for _, l := range f.Added() {
				added = append(added, l.Text)
			}
		}
		for k := range tasks {
			i := (k + n) % len(tasks)
			runtime.GC()
			t0 := time.Now()
			switch tasks[i] {
			case "parse":
				if _, err := guardrail.ParseDiff(diff); err != nil {
					b.Fatal(err)
				}
			case "pass":
				var x uint8
				for _, l := range added {
					for j := 0; j < len(l); j++ {
						x += table[l[j]]
					}
				}
				sink += int(x)
			case "keywords":
				for _, l := range added {
					sink += guardrail.ScanKeywords(l)
				}
			case "decision":
				g, err := guardrail.NewEditGuard(benchConfig)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := g.CheckEdit(b.Context(), guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: "T1"}); err != nil {
					b.Fatal(err)
				}
			}
			times[i] = append(times[i], float64(time.Since(t0).Nanoseconds()))
		}
	}
	if sink == 42 {
		b.Log("unlikely") // sink is used, so the passes are not optimized away
	}
	med := make([]float64, len(tasks))
	for i, t := range tasks {
		med[i] = median(times[i])
		b.ReportMetric(med[i], "ns/"+t)
	}
	for i, t := range tasks[1:] {
		b.ReportMetric(med[i+1]/med[0], "x-parse-"+t)
	}
	b.ReportMetric(med[3]/med[1], "x-pass")
}
