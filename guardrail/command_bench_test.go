package guardrail_test

import (
	"testing"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/guardrail/internal/shell"
)

// BenchmarkCommandCorpus judges every command of the corpus once per
// iteration; decisions/s is per core (run with -cpu 1).
func BenchmarkCommandCorpus(b *testing.B) {
	g := corpusGuard(b)
	corpus := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range corpus {
			guardrail.Evaluate(b.Context(), g, guardrail.Action{Kind: guardrail.KindCommand, Shell: c.shell, Command: c.command})
		}
	}
	b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(corpus)), "ns/decision")
}

// BenchmarkCommandCorpusParseOnly parses every command of the corpus, the
// top level only, for the ratio of judging to parsing.
func BenchmarkCommandCorpusParseOnly(b *testing.B) {
	corpus := loadCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range corpus {
			switch c.shell {
			case guardrail.ShellPowerShell:
				shell.ParsePowerShell(c.command)
			case guardrail.ShellCmd:
				shell.ParseCmd(c.command)
			default:
				shell.ParseBash(c.command)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(corpus))/b.Elapsed().Seconds(), "parses/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(corpus)), "ns/parse")
}
