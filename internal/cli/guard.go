package cli

import (
	"fmt"
	"io/fs"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
)

// PluginManifest is the plugin manifest a working tree keeps at its root,
// beside its plan.
const PluginManifest = "harnish-plugins.yaml"

// ProtectedPaths are the paths no action may delete, move or overwrite,
// besides the state directory: the plan's, and the plugin manifest, since
// an agent that rewrote it would choose the code the next run starts.
func ProtectedPaths(plan *task.Plan) []string {
	var paths []string
	if plan != nil {
		paths = append(paths, plan.Guardrails.Protected...)
	}
	return append(paths, PluginManifest)
}

// CommandConfig turns a plan's guardrail settings (nil: the defaults) into
// the command guard's configuration for the working tree at root.
func CommandConfig(plan *task.Plan, root string) guardrail.CommandConfig {
	cfg := guardrail.CommandConfig{Root: root, Protected: guardrail.NewProtected(ProtectedPaths(plan)...)}
	if plan != nil {
		cfg.Packages = plan.Guardrails.Packages
	}
	return cfg
}

// EditConfig is the plan's edit-rule configuration (see
// guardrail.PlanEditConfig), with the scope of taskID alone when it is set.
func EditConfig(plan *task.Plan, taskID string, tree fs.FS) (guardrail.EditConfig, error) {
	cfg := guardrail.PlanEditConfig(plan, tree)
	cfg.Protected = guardrail.NewProtected(ProtectedPaths(plan)...)
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
