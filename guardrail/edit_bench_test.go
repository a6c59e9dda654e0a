package guardrail_test

import (
	"fmt"
	"strings"
	"testing"

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

// BenchmarkEditGuard measures judging a realistic 2,000-line diff with every
// edit rule on (a decision is one CheckEdit of the whole diff), and parsing
// the diff alone, for the ratio:
//
//	go test -run '^$' -bench 'EditGuard|ParseDiff' -benchmem ./guardrail/
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
	b.SetBytes(int64(len(diff)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := g.CheckEdit(b.Context(), a); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(b.N*lines)/b.Elapsed().Seconds(), "lines/s")
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
