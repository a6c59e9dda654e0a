package guardrail

import (
	"io/fs"
	"maps"

	"github.com/harnish/harnish/task"
)

// PlanEditConfig returns the edit rules a plan asks for: its protected paths,
// the declared files of every task as scopes, its size limit and its TDD
// settings (soft when the plan says nothing). A nil plan gets the defaults.
// tree is the working tree, for the files that exist already.
func PlanEditConfig(plan *task.Plan, tree fs.FS) EditConfig {
	cfg := EditConfig{Tree: tree, TDD: TDDConfig{Level: Soft}}
	if plan == nil {
		return cfg
	}
	g := plan.Guardrails
	cfg.Protected = NewProtected(g.Protected...)
	cfg.MaxChangedLines = g.MaxChangedLines
	cfg.Scope = map[string][]string{}
	for _, pt := range plan.Tasks() {
		cfg.Scope[pt.Task.ID] = pt.Task.Files
	}
	if t := g.TDD; t != nil {
		switch t.Level {
		case task.TDDOff:
			cfg.TDD.Level = Allow
		case task.TDDHard:
			cfg.TDD.Level = Hard
		}
		if t.Patterns != nil {
			cfg.TDD.Patterns = DefaultTestPatterns()
			maps.Copy(cfg.TDD.Patterns, t.Patterns)
		}
		cfg.TDD.Roots = t.Roots
		if t.Exempt != nil {
			cfg.TDD.Exempt = append(DefaultTDDExempt(), t.Exempt...)
		}
	}
	return cfg
}
