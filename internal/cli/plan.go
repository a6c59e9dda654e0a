package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/task"
)

// DefaultPlanFiles are the plan files run, guard and the hooks look for in
// the working tree when --plan is not given, in order.
var DefaultPlanFiles = []string{"harnish.yaml", "harnish.yml", "harnish.json", "plan.yaml", "plan.yml", "plan.json"}

// LoadPlan loads the plan in file, or else the first default plan file in
// dir. It returns a nil plan when there is none, and the file it loaded. A
// plan that exists but does not load is an error.
func LoadPlan(file, dir string) (*task.Plan, string, error) {
	if file == "" {
		for _, name := range DefaultPlanFiles {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err == nil {
				file = p
				break
			}
		}
		if file == "" {
			return nil, "", nil
		}
	}
	plan, err := task.Load(file)
	if err != nil {
		return nil, file, err
	}
	return plan, file, nil
}

// KeepPlan copies the plan in file into a run's state directory, as
// plan.yaml or plan.json, so resume and the hooks carry out the plan the run
// started with.
func KeepPlan(stateDir, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	name := "plan.yaml"
	if strings.EqualFold(filepath.Ext(file), ".json") {
		name = "plan.json"
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return err
	}
	return fsx.WriteFile(filepath.Join(stateDir, name), data, 0o644)
}

// LoadKeptPlan loads the plan the run keeps in stateDir.
func LoadKeptPlan(stateDir string) (*task.Plan, error) {
	if path := KeptPlanFile(stateDir); path != "" {
		return task.Load(path)
	}
	return nil, fmt.Errorf("no plan.yaml or plan.json in %s: start a run with \"harnish run\"", stateDir)
}

// KeptPlanFile returns the path of the plan the run keeps in stateDir, or
// "" when it keeps none.
func KeptPlanFile(stateDir string) string {
	for _, name := range []string{"plan.yaml", "plan.json"} {
		path := filepath.Join(stateDir, name)
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}
