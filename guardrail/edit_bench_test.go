package guardrail_test

import (
	"fmt"
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
func benchDiff() string {
	exts := []string{".go", ".ts", ".py", ".yaml"}
	var b strings.Builder
	n := 0
	for f := range 20 {
		name := fmt.Sprintf("pkg%d/file%d%s", f%5, f, exts[f%len(exts)])
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

// BenchmarkEditGuard judges a realistic 2,000-line diff with every edit
// rule on (a decision is one CheckEdit of the whole diff) and, in the same
// loop, interleaved, parses it alone, so the ratio of the two does not
// drift with the machine. It reports the medians and their ratio
// (x-parse):
//
//	go test -run '^$' -bench EditGuard -cpu 1 ./guardrail/
func BenchmarkEditGuard(b *testing.B) {
	diff := benchDiff()
	lines := strings.Count(diff, "\n")
	g, err := guardrail.NewEditGuard(guardrail.EditConfig{
		Scope: map[string][]string{"T1": {"pkg0/", "pkg1/", "pkg2/*", "pkg3", "pkg4/"}},
		TDD:   guardrail.TDDConfig{Level: guardrail.Soft},
	})
	if err != nil {
		b.Fatal(err)
	}
	a := guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: "T1"}
	if ds, err := g.CheckEdit(b.Context(), a); err != nil || len(ds) == 0 {
		b.Fatalf("CheckEdit = %d decisions, %v; want the TDD and size warnings", len(ds), err)
	}
	var decide, parse []float64
	b.SetBytes(int64(len(diff)))
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := g.CheckEdit(b.Context(), a); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := guardrail.ParseDiff(diff); err != nil {
			b.Fatal(err)
		}
		decide = append(decide, float64(t1.Sub(t0).Nanoseconds()))
		parse = append(parse, float64(time.Since(t1).Nanoseconds()))
	}
	d, p := median(decide), median(parse)
	b.ReportMetric(d, "ns/decision")
	b.ReportMetric(p, "ns/parse")
	b.ReportMetric(d/p, "x-parse")
	b.ReportMetric(float64(lines)/(d/1e9), "lines/s")
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
