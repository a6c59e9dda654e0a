package task_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

// TestParseReportsEverything: a field that does not decode hides neither the
// validation problems of the rest of the plan nor its other decode problems,
// and adds no problem that only repeats it.
func TestParseReportsEverything(t *testing.T) {
	tests := []struct {
		name string
		file string // default plan.yaml
		src  string
		want []string
		is   []error
	}{
		{
			name: "decode and validation problems",
			src: head + `owner: me
budget: {attempts: 0}
phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: One
        depends_on: [T2]
        acceptance: [{run: [make]}]
      - id: T2
        title: Two
        depends_on: [T1]
        acceptance: [{run: [make]}]
        timeout: 5m
      - id: T2
        title: 3
      - id: T4
        title: Four
`,
			want: []string{
				`plan.yaml:3:1: owner: unknown field (valid fields: advisor, budget, context, debugger, executor, guardrails, name, pacing, parallel, phases, reviewer, stuck, version)`,
				`plan.yaml:4:20: budget.attempts: 0 is out of range 1..100`,
				`plan.yaml:11:21: phases[0].tasks[0].depends_on: dependency cycle: T1 -> T2 -> T1`,
				`plan.yaml:17:9: phases[0].tasks[1].timeout: unknown field (valid fields: acceptance, budget, depends_on, files, id, objective, risk, status, tags, title)`,
				`plan.yaml:18:13: phases[0].tasks[2].id: duplicate task ID "T2" (first at line 13)`,
				`plan.yaml:19:16: phases[0].tasks[2].title: expected a string, got integer 3 (quote it)`,
				`plan.yaml:20:9: warning: phases[0].tasks[3].acceptance: task "T4" has no acceptance criteria; the loop will escalate it instead of starting it`,
			},
			is: []error{task.ErrSchema, task.ErrCycle, task.ErrNoAcceptance},
		},
		{
			name: "no echo of a misspelled or mistyped field",
			src: `nmae: p
version: 1
executor: {knid: codex}
budget: {task_timeout: 30, attempts: x}
phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: 2024
        acceptence: [{run: [make]}]
      - id: T2
        title: Two
        acceptance: [{cmd: make}]
`,
			want: []string{
				`plan.yaml:1:1: nmae: unknown field (did you mean "name"?)`,
				`plan.yaml:3:12: executor.knid: unknown field (did you mean "kind"?)`,
				`plan.yaml:4:24: budget.task_timeout: expected a duration such as "30m", got integer 30`,
				`plan.yaml:4:38: budget.attempts: expected an integer, got string "x"`,
				`plan.yaml:10:16: phases[0].tasks[0].title: expected a string, got integer 2024 (quote it)`,
				`plan.yaml:11:9: phases[0].tasks[0].acceptence: unknown field (did you mean "acceptance"?)`,
				`plan.yaml:14:23: phases[0].tasks[1].acceptance[0].cmd: unknown field (valid fields: cmake, dir, gotest, manual, plugin, run, sh, timeout)`,
			},
			is: []error{task.ErrSchema},
		},
		{
			name: "a bad key leaves the rest of its mapping",
			src: head + `budget: {1: x, attempts: 500}
` + oneTask,
			want: []string{
				`plan.yaml:3:10: budget: expected a string key, got integer 1`,
				`plan.yaml:3:26: budget.attempts: 500 is out of range 1..100`,
			},
			is: []error{task.ErrSchema},
		},
		{
			name: "JSON",
			file: "plan.json",
			src: `{"version": 1, "name": "p", "owner": "me",
 "phases": [{"id": "p1", "title": "First", "tasks": [
   {"id": "T1", "title": "One", "depends_on": ["T1", "T9"], "acceptance": [{"run": ["make"], "dir": "/abs"}]},
   {"id": "T2", "title": true}]}]}`,
			want: []string{
				`plan.json:1:29: owner: unknown field (valid fields: advisor, budget, context, debugger, executor, guardrails, name, pacing, parallel, phases, reviewer, stuck, version)`,
				`plan.json:3:48: phases[0].tasks[0].depends_on[0]: task "T1" depends on itself`,
				`plan.json:3:54: phases[0].tasks[0].depends_on[1]: no task "T9" in the plan`,
				`plan.json:3:101: phases[0].tasks[0].acceptance[0].dir: "/abs" is absolute; paths are relative to the working tree's root`,
				`plan.json:4:26: phases[0].tasks[1].title: expected a string, got boolean true (quote it)`,
			},
			is: []error{task.ErrSchema},
		},
		{
			name: "only the decode problem when nothing decoded",
			src:  "[1, 2]\n",
			want: []string{`plan.yaml:1:1: expected a mapping, got a list`},
			is:   []error{task.ErrSchema},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "plan.yaml"
			}
			p, err := task.Parse(file, []byte(tt.src))
			if p != nil {
				t.Errorf("Parse returned a plan with an error")
			}
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, class := range tt.is {
				if !errors.Is(err, class) {
					t.Errorf("errors.Is(err, %v) = false", class)
				}
			}
		})
	}
}
