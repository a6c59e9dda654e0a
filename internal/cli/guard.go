package cli

import (
	"fmt"
	"io/fs"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
)

// CommandConfig turns a plan's guardrail settings (nil: the defaults) into
// the command guard's configuration for the working tree at root.
func CommandConfig(plan *task.Plan, root string) guardrail.CommandConfig {
	cfg := guardrail.CommandConfig{Root: root, Protected: guardrail.NewProtected()}
	if plan != nil {
		cfg.Protected = guardrail.NewProtected(plan.Guardrails.Protected...)
		cfg.Packages = plan.Guardrails.Packages
	}
	return cfg
}

// EditConfig is the plan's edit-rule configuration (see
// guardrail.PlanEditConfig), with the scope of taskID alone when it is set.
func EditConfig(plan *task.Plan, taskID string, tree fs.FS) (guardrail.EditConfig, error) {
	cfg := guardrail.PlanEditConfig(plan, tree)
	if taskID == "" || plan == nil {
		cfg.Scope = nil
		return cfg, nil
	}
	files, ok := cfg.Scope[taskID]
	if !ok {
		return cfg, fmt.Errorf("no task %q in the plan", taskID)
	}
	cfg.Scope = map[string][]string{taskID: files}
	return cfg, nil
}
