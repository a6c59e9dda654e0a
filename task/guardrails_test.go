package task_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

func TestGuardrailsEditSettings(t *testing.T) {
	tests := []struct {
		name string
		src  string // the guardrails mapping, indented by two spaces
		want []string
	}{
		{name: "absent"},
		{name: "all set", src: "  max_changed_lines: 250\n  tdd:\n    level: hard\n" +
			"    patterns: {.py: ['test_{stem}.py'], .rs: []}\n    roots: [spec]\n    exempt: [tools/, scripts/*.py, '*_mock.go']\n"},
		{name: "levels", src: "  tdd: {level: off}\n"},
		{name: "out of range", src: "  max_changed_lines: 0\n  tdd: {level: strict}\n",
			want: []string{
				`plan.yaml:4:22: guardrails.max_changed_lines: 0 is out of range 1..1000000`,
				`plan.yaml:5:16: guardrails.tdd.level: "strict" is not one of off, soft, hard`,
			}},
		{name: "negative and too large", src: "  max_changed_lines: 1000001\n",
			want: []string{`plan.yaml:4:22: guardrails.max_changed_lines: 1000001 is out of range 1..1000000`}},
		{name: "bad patterns, roots and exemptions", src: "  tdd:\n" +
			"    patterns: {go: ['{stem}_test.go'], .py: [tests.py, 'sub/test_{stem}.py', '[{stem}.py']}\n" +
			"    roots: ['', a/b]\n    exempt: ['[x', ' ']\n",
			want: []string{
				`plan.yaml:5:20: guardrails.tdd.patterns.go: "go" is not a file extension such as .go`,
				`plan.yaml:5:46: guardrails.tdd.patterns..py[0]: "tests.py" is not a test file name with {stem}, such as {stem}_test.go`,
				`plan.yaml:5:56: guardrails.tdd.patterns..py[1]: "sub/test_{stem}.py" is not a test file name with {stem}, such as {stem}_test.go`,
				`plan.yaml:5:78: guardrails.tdd.patterns..py[2]: "[{stem}.py" is not a test file name with {stem}, such as {stem}_test.go`,
				`plan.yaml:6:13: guardrails.tdd.roots[0]: "" is not a directory name such as tests`,
				`plan.yaml:6:17: guardrails.tdd.roots[1]: "a/b" is not a directory name such as tests`,
				`plan.yaml:7:14: guardrails.tdd.exempt[0]: "[x" is not a valid pattern`,
				`plan.yaml:7:20: guardrails.tdd.exempt[1]: " " is not a valid pattern`,
			}},
		{name: "unknown field", src: "  tdd: {level: soft, tests: x}\n",
			want: []string{`plan.yaml:4:22: guardrails.tdd.tests: unknown field (valid fields: exempt, level, patterns, roots)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "guardrails:\n" + tt.src + oneTask
			if tt.src == "" {
				src = head + oneTask
			}
			_, err := task.Parse("plan.yaml", []byte(src))
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// The settings decode into the fields the loop and harnish guard diff read,
// the same from YAML and JSON.
func TestGuardrailsEditSettingsDecode(t *testing.T) {
	want := task.Guardrails{
		Protected:       []string{"go.mod"},
		MaxChangedLines: 250,
		TDD: &task.TDD{Level: task.TDDHard, Patterns: map[string][]string{".py": {"test_{stem}.py"}},
			Roots: []string{"spec"}, Exempt: []string{"tools/"}},
	}
	yaml := head + "guardrails:\n  protected: [go.mod]\n  max_changed_lines: 250\n" +
		"  tdd: {level: hard, patterns: {.py: ['test_{stem}.py']}, roots: [spec], exempt: [tools/]}\n" + oneTask
	json := `{"version": 1, "name": "p", "guardrails": {"protected": ["go.mod"], "max_changed_lines": 250,
		"tdd": {"level": "hard", "patterns": {".py": ["test_{stem}.py"]}, "roots": ["spec"], "exempt": ["tools/"]}},
		"phases": [{"id": "p1", "title": "First", "tasks": [{"id": "T1", "title": "One", "acceptance": [{"run": ["make"]}]}]}]}`
	for name, src := range map[string]string{"plan.yaml": yaml, "plan.json": json} {
		p, err := task.Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, p.Guardrails); diff != "" {
			t.Errorf("%s: guardrails (-want +got):\n%s", name, diff)
		}
	}
}

// A plan built in code is validated the same way; an unset
// max_changed_lines is the default, not an error.
func TestGuardrailsEditSettingsInCode(t *testing.T) {
	p := &task.Plan{Version: "1", Name: "p", Phases: []task.Phase{{ID: "p1", Tasks: []task.Task{
		{ID: "T1", Title: "One", Acceptance: []task.Check{{Run: []string{"make"}}}}}}}}
	if ps := p.Validate(); len(ps) != 0 {
		t.Fatalf("Validate = %v, want no problems", ps)
	}
	p.Guardrails = task.Guardrails{MaxChangedLines: -1, TDD: &task.TDD{Level: "Hard"}}
	var got []string
	for _, pr := range p.Validate() {
		got = append(got, pr.Error())
	}
	want := []string{
		`guardrails.max_changed_lines: -1 is out of range 1..1000000`,
		`guardrails.tdd.level: "Hard" is not one of off, soft, hard`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
