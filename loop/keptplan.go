package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/task"
)

// KeepPlan copies the plan in file into a run's state directory, as
// plan.yaml or plan.json, so a resume and the agents' hooks carry out the
// plan the run started with, whatever happens to the file.
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

// LoadKeptPlan loads the plan a run keeps in stateDir.
func LoadKeptPlan(stateDir string) (*task.Plan, error) {
	if path := KeptPlanFile(stateDir); path != "" {
		return task.Load(path)
	}
	return nil, fmt.Errorf("loop: no plan.yaml or plan.json in %s: start a run with \"harnish run\"", stateDir)
}

// KeptPlanFile returns the path of the plan a run keeps in stateDir, or ""
// when it keeps none.
func KeptPlanFile(stateDir string) string {
	for _, name := range []string{"plan.yaml", "plan.json"} {
		path := filepath.Join(stateDir, name)
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}
