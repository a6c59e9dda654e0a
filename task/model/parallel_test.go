package model_test

import (
	"strings"
	"testing"

	"github.com/harnish/harnish/task/model"
)

// TestParallelValidation: parallel is bounded, and two tasks that may run at
// once must not declare the same file (or one a directory of the other's);
// a dependency between them, direct or not, orders them and makes it fine.
func TestParallelValidation(t *testing.T) {
	task := func(id string, files []string, deps ...string) model.Task {
		return model.Task{ID: id, Title: id, Files: files, DependsOn: deps, Acceptance: []model.Check{{Run: []string{"true"}}}}
	}
	tests := []struct {
		name        string
		plan, phase int
		tasks       []model.Task
		want        string // "" means valid
	}{
		{"serial phases may share files", 0, 0, []model.Task{task("A", []string{"a.go"}), task("B", []string{"a.go"})}, ""},
		{"parallel, disjoint files", 4, 0, []model.Task{task("A", []string{"a.go"}), task("B", []string{"b.go"})}, ""},
		{"parallel, the same file", 4, 0, []model.Task{task("A", []string{"a.go"}), task("B", []string{"./a.go"})},
			"phases[0].tasks[1].files: task B may run at the same time as task A (phase P runs 4 at once), and both declare"},
		{"the phase's own parallel", 0, 2, []model.Task{task("A", []string{"pkg/"}), task("B", []string{"pkg/x.go"})},
			"phases[0].tasks[1].files: task B may run at the same time as task A (phase P runs 2 at once)"},
		{"a phase may opt out", 8, 1, []model.Task{task("A", []string{"a.go"}), task("B", []string{"a.go"})}, ""},
		{"ordered by a dependency", 4, 0, []model.Task{task("A", []string{"a.go"}), task("B", []string{"a.go"}, "A")}, ""},
		{"ordered through another task", 4, 0, []model.Task{task("A", []string{"a.go"}), task("M", nil, "A"), task("B", []string{"a.go"}, "M")}, ""},
		{"out of range", model.MaxParallel + 1, 0, []model.Task{task("A", nil)}, "parallel: 65 is out of range"},
		{"negative", 0, -1, []model.Task{task("A", nil)}, "phases[0].parallel: -1 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &model.Plan{Version: "1", Name: "p", Parallel: tt.plan, Phases: []model.Phase{{ID: "P", Parallel: tt.phase, Tasks: tt.tasks}}}
			err := p.Validate().Err()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
}
