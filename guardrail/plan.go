package guardrail

import (
	"fmt"
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

// TaskEditConfig is [PlanEditConfig] for one task: the scope is taskID's
// alone, or none when taskID is empty. A task the plan does not hold is an
// error.
func TaskEditConfig(plan *task.Plan, taskID string, tree fs.FS) (EditConfig, error) {
	cfg := PlanEditConfig(plan, tree)
	if taskID == "" || plan == nil {
		cfg.Scope = nil
		return cfg, nil
	}
	files, ok := cfg.Scope[taskID]
	if !ok {
		return cfg, fmt.Errorf("no task %q in the plan", taskID) // said to a person as it is
	}
	cfg.Scope = map[string][]string{taskID: files}
	return cfg, nil
}

// PlanCommandConfig is the command guard's configuration for the working
// tree at root from a plan's guardrail settings (nil: the defaults).
func PlanCommandConfig(plan *task.Plan, root string) CommandConfig {
	cfg := CommandConfig{Root: root, Protected: NewProtected()}
	if plan != nil {
		cfg.Protected = NewProtected(plan.Guardrails.Protected...)
		cfg.Packages = plan.Guardrails.Packages
	}
	return cfg
}
