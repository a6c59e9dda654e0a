package guardrail_test

import (
	"math/rand/v2"
	"path"
	"testing"

	"github.com/harnish/harnish/guardrail"
)

// TestGlobMatch compares globMatch with path.Match on random patterns and
// names of the shapes the TDD rule's patterns have.
func TestGlobMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pick := func(parts ...string) string { return parts[r.IntN(len(parts))] }
	for range 5000 {
		p := pick("", "*", "a", "main") + pick("", ".go", "_test", ".", "*", "/") + pick("", "go", "*", ".d.ts", "x")
		n := pick("", "a", "main", "x") + pick("", ".go", "_test", "/", ".d.ts") + pick("", "go", "x", ".ts")
		want, err := path.Match(p, n)
		if err != nil {
			continue
		}
		if got := guardrail.GlobMatch(p, n); got != want {
			t.Fatalf("globMatch(%q, %q) = %v, path.Match says %v", p, n, got, want)
		}
	}
}
