package guardrail_test

import (
	"slices"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/guardrail/internal/shell"
)

// BenchmarkCommandCorpus judges every command of the corpora and, in the
// same loop, interleaved command by command, parses it (the top level
// only), so the ratio of judging to parsing does not drift with the
// machine. It reports the medians per command over the iterations and
// their ratio (x-parse); run it with -cpu 1:
//
//	go test -run '^$' -bench CommandCorpus -cpu 1 ./guardrail/
func BenchmarkCommandCorpus(b *testing.B) {
	g := corpusGuard(b)
	corpus := loadCorpus(b)
	ctx := b.Context()
	var decide, parse []float64
	b.ReportAllocs()
	for b.Loop() {
		var dt, pt time.Duration
		for _, c := range corpus {
			t0 := time.Now()
			guardrail.Evaluate(ctx, g, guardrail.Action{Kind: guardrail.KindCommand, Shell: c.shell, Command: c.command})
			t1 := time.Now()
			switch c.shell {
			case guardrail.ShellPowerShell:
				shell.ParsePowerShell(c.command)
			case guardrail.ShellCmd:
				shell.ParseCmd(c.command)
			default:
				shell.ParseBash(c.command)
			}
			dt += t1.Sub(t0)
			pt += time.Since(t1)
		}
		decide = append(decide, float64(dt.Nanoseconds())/float64(len(corpus)))
		parse = append(parse, float64(pt.Nanoseconds())/float64(len(corpus)))
	}
	d, p := median(decide), median(parse)
	b.ReportMetric(d, "ns/decision")
	b.ReportMetric(p, "ns/parse")
	b.ReportMetric(d/p, "x-parse")
}

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
