package task_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

// phase wraps task entries (each a YAML flow mapping) in a one-phase plan.
func phase(tasks ...string) string {
	s := head + "phases:\n  - id: p1\n    title: First\n    tasks:\n"
	for _, t := range tasks {
		s += "      - " + t + "\n"
	}
	return s
}

func TestParseValidationErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
		is   error
	}{
		{
			name: "invalid IDs",
			src: "version: 1\nname: my plan\nphases:\n  - id: -p\n    title: First\n    tasks:\n" +
				"      - {id: T/1, title: One, acceptance: [{run: [make]}]}\n" +
				"      - {id: '', title: Two, acceptance: [{run: [make]}]}\n",
			want: []string{
				`plan.yaml:2:7: name: "my plan" is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.yaml:4:9: phases[0].id: "-p" is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.yaml:7:14: phases[0].tasks[0].id: "T/1" is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.yaml:8:14: phases[0].tasks[1].id: required`,
			},
			is: task.ErrSchema,
		},
		{
			name: "duplicate phase and task IDs",
			src: head + "phases:\n" +
				"  - {id: p1, title: One, tasks: [{id: T1, title: One, acceptance: [{run: [make]}]}]}\n" +
				"  - {id: p1, title: Two, tasks: [{id: T1, title: Two, acceptance: [{run: [make]}]}]}\n",
			want: []string{
				`plan.yaml:5:10: phases[1].id: duplicate phase ID "p1" (first at line 4)`,
				`plan.yaml:5:39: phases[1].tasks[0].id: duplicate task ID "T1" (first at line 4)`,
			},
		},
		{
			name: "depends_on unknown, self, duplicate and later phase",
			src: head + "phases:\n" +
				"  - id: p1\n    title: One\n    tasks:\n" +
				"      - {id: T1, title: One, depends_on: [T1, T9, T2, T2, T3], acceptance: [{run: [make]}]}\n" +
				"      - {id: T2, title: Two, acceptance: [{run: [make]}]}\n" +
				"  - id: p2\n    title: Two\n    tasks:\n" +
				"      - {id: T3, title: Three, acceptance: [{run: [make]}]}\n",
			want: []string{
				`plan.yaml:7:43: phases[0].tasks[0].depends_on[0]: task "T1" depends on itself`,
				`plan.yaml:7:47: phases[0].tasks[0].depends_on[1]: no task "T9" in the plan`,
				`plan.yaml:7:55: phases[0].tasks[0].depends_on[3]: "T2" is listed twice`,
				`plan.yaml:7:59: phases[0].tasks[0].depends_on[4]: task "T3" is in a later phase (p2); a task may depend only on tasks of its own or earlier phases`,
			},
		},
		{
			name: "two-task cycle",
			src: phase(
				"{id: T1, title: One, depends_on: [T3], acceptance: [{run: [make]}]}",
				"{id: T2, title: Two, acceptance: [{run: [make]}]}",
				"{id: T3, title: Three, depends_on: [T1], acceptance: [{run: [make]}]}",
			),
			want: []string{`plan.yaml:7:42: phases[0].tasks[0].depends_on: dependency cycle: T1 -> T3 -> T1`},
			is:   task.ErrCycle,
		},
		{
			name: "three-task cycle",
			src: phase(
				"{id: T1, title: One, depends_on: [T2], acceptance: [{run: [make]}]}",
				"{id: T2, title: Two, depends_on: [T3], acceptance: [{run: [make]}]}",
				"{id: T3, title: Three, depends_on: [T1], acceptance: [{run: [make]}]}",
			),
			want: []string{`plan.yaml:7:42: phases[0].tasks[0].depends_on: dependency cycle: T1 -> T2 -> T3 -> T1`},
			is:   task.ErrCycle,
		},
		{
			name: "two separate cycles",
			src:  mustRead(t, "testdata/cycles.yaml"),
			want: []string{
				`plan.yaml:7:42: phases[0].tasks[0].depends_on: dependency cycle: T1 -> T3 -> T1`,
				`plan.yaml:8:42: phases[0].tasks[1].depends_on: dependency cycle: T2 -> T4 -> T5 -> T2`,
			},
			is: task.ErrCycle,
		},
		{
			name: "checks with none and two of run, sh, manual",
			src:  phase(`{id: T1, title: One, acceptance: [{dir: x}, {run: [make], sh: make}, {sh: make, manual: looks right}, {run: []}, {sh: "  "}, {manual: ok, timeout: 1m}]}`),
			want: []string{
				`plan.yaml:7:43: phases[0].tasks[0].acceptance[0]: a check needs one of run, sh, manual, gotest, cmake, plugin`,
				`plan.yaml:7:53: phases[0].tasks[0].acceptance[1]: a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has run and sh`,
				`plan.yaml:7:78: phases[0].tasks[0].acceptance[2]: a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has sh and manual`,
				`plan.yaml:7:117: phases[0].tasks[0].acceptance[3].run: needs a program: an argv such as [go, test, ./...]`,
				`plan.yaml:7:127: phases[0].tasks[0].acceptance[4].sh: empty script`,
				`plan.yaml:7:134: phases[0].tasks[0].acceptance[5]: a manual check never runs; dir and timeout do not apply`,
			},
		},
		{
			name: "plan budget out of bounds",
			src: head + "budget: {attempts: 101, task_timeout: 500ms, cycles: 0, run_timeout: 800h, tokens: -5, cost_usd: -0.5}\n" +
				oneTask,
			want: []string{
				`plan.yaml:3:20: budget.attempts: 101 is out of range 1..100`,
				`plan.yaml:3:39: budget.task_timeout: 500ms is out of range 1s..24h`,
				`plan.yaml:3:54: budget.cycles: 0 is out of range 1..100000`,
				`plan.yaml:3:70: budget.run_timeout: 800h0m0s is out of range 1s..720h`,
				`plan.yaml:3:84: budget.tokens: -5 is negative`,
				`plan.yaml:3:98: budget.cost_usd: -0.5 is negative`,
			},
		},
		{
			name: "task budget out of bounds and run-wide fields on a task",
			src:  phase(`{id: T1, title: One, acceptance: [{run: [make], timeout: 0s}], budget: {attempts: 0, task_timeout: -1m, cycles: 5, tokens: 0}}`),
			want: []string{
				`plan.yaml:7:66: phases[0].tasks[0].acceptance[0].timeout: 0s is out of range 1s..24h`,
				`plan.yaml:7:91: phases[0].tasks[0].budget.attempts: 0 is out of range 1..100`,
				`plan.yaml:7:108: phases[0].tasks[0].budget.task_timeout: -1m0s is out of range 1s..24h`,
				`plan.yaml:7:121: phases[0].tasks[0].budget.cycles: run-wide: set it in the plan's budget; a task's budget sets only attempts and task_timeout`,
				`plan.yaml:7:132: phases[0].tasks[0].budget.tokens: run-wide: set it in the plan's budget; a task's budget sets only attempts and task_timeout`,
			},
		},
		{
			name: "component rules",
			src:  head + "executor: {kind: command, model: o3}\ndebugger: {kind: codex}\nreviewer: {kind: plugin, argv: [x]}\n" + oneTask,
			want: []string{
				`plan.yaml:3:11: executor.argv: required for kind "command": the program and its arguments`,
				`plan.yaml:3:34: executor.model: only for kinds "codex", "claude" and "acp"`,
				`plan.yaml:4:18: debugger.kind: "codex" is not one of command, plugin`,
				`plan.yaml:5:11: reviewer.plugin: required for kind "plugin": a plugin name from the manifest`,
				`plan.yaml:5:32: reviewer.argv: only for kind "command"`,
			},
		},
		{
			name: "advisor rules, a task's risk",
			src:  head + "executor: {kind: command, argv: [x]}\nadvisor: {kind: codex, when: [high-risk, often], repeat: sometimes}\n" + phase(`{id: T1, title: One, risk: medium, acceptance: [{run: [make]}]}`)[len(head):],
			want: []string{
				`plan.yaml:4:17: advisor.kind: "codex" is not one of command, plugin`,
				`plan.yaml:4:42: advisor.when[1]: "often" is not one of high-risk, repeat, plateau`,
				`plan.yaml:4:58: advisor.repeat: "sometimes" is not one of alongside, instead`,
				`plan.yaml:9:36: phases[0].tasks[0].risk: "medium" is not one of low, high`,
			},
		},
		{
			name: "agent settings, each for its kind",
			src: head + "executor: {kind: codex, sandbox: read-write, permission_mode: plan, args: [--full-auto, --dangerously-bypass-approvals-and-sandbox]}\n" +
				"reviewer: {kind: command, argv: [r], allowed_tools: [Edit], args: [x]}\n" + phase(`{id: T1, title: One, acceptance: [{run: [make]}]}`)[len(head):],
			want: []string{
				`plan.yaml:3:34: executor.sandbox: "read-write" is not one of workspace-write, danger-full-access`,
				`plan.yaml:3:63: executor.permission_mode: only for kind "claude"`,
				`plan.yaml:3:89: executor.args[1]: "--dangerously-bypass-approvals-and-sandbox" turns the agent's guards off; harnish keeps them (a host that is a sandbox sets it in code)`,
				`plan.yaml:4:53: reviewer.allowed_tools: only for kind "claude"`,
				`plan.yaml:4:67: reviewer.args: only for kinds "codex", "claude" and "acp"`,
			},
		},
		{
			name: "stuck thresholds out of range",
			src:  head + "executor: {kind: command, argv: [x]}\nstuck: {no_progress: 1, alternation: 2, repeated_command: 5000, silent_turns: 3}\n" + phase(`{id: T1, title: One, acceptance: [{run: [make]}]}`)[len(head):],
			want: []string{
				`plan.yaml:4:22: stuck.no_progress: 1 is out of range 2..1000`,
				`plan.yaml:4:38: stuck.alternation: 2 is out of range 3..1000`,
				`plan.yaml:4:59: stuck.repeated_command: 5000 is out of range 2..1000`,
			},
		},
		{
			name: "component without kind, bad env name",
			src:  head + "executor: {argv: [x], env: {\"A=B\": x}}\n" + oneTask,
			want: []string{
				`plan.yaml:3:11: executor.kind: required: one of command, plugin, codex, claude, acp`,
			},
		},
		{
			name: "paths, statuses, titles, checklist",
			src: head + "guardrails: {protected: [/etc, ../up], packages: {npm: [\"\"]}}\nphases:\n  - id: p1\n    title: First\n    milestone: {manual: [\" \"]}\n    tasks:\n" +
				"      - {id: T1, title: \"\", files: [a/../../b, 'C:\\x'], status: blocked, acceptance: [{run: [make], dir: /tmp}]}\n",
			want: []string{
				`plan.yaml:3:26: guardrails.protected[0]: "/etc" is absolute; paths are relative to the working tree's root`,
				`plan.yaml:3:32: guardrails.protected[1]: "../up" leaves the working tree`,
				`plan.yaml:3:57: guardrails.packages.npm[0]: empty package name`,
				`plan.yaml:7:25: warning: phases[0].milestone.manual: no gate follows this phase (it is the last phase), so nobody is shown its checklist`,
				`plan.yaml:7:26: phases[0].milestone.manual[0]: empty checklist item`,
				`plan.yaml:9:25: phases[0].tasks[0].title: required`,
				`plan.yaml:9:37: phases[0].tasks[0].files[0]: "a/../../b" leaves the working tree`,
				`plan.yaml:9:48: phases[0].tasks[0].files[1]: "C:\\x" is absolute; paths are relative to the working tree's root`,
				`plan.yaml:9:65: phases[0].tasks[0].status: "blocked" is not one of todo, doing, done`,
				`plan.yaml:9:106: phases[0].tasks[0].acceptance[0].dir: "/tmp" is absolute; paths are relative to the working tree's root`,
			},
		},
		{
			name: "no phases, empty phase",
			src:  head + "phases: []\n",
			want: []string{`plan.yaml:3:9: phases: required: a plan has at least one phase`},
		},
		{
			name: "several problems in one file",
			src:  mustRead(t, "testdata/many.yaml"),
			want: []string{
				`plan.yaml:2:7: name: "many problems" is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.yaml:3:20: budget.attempts: 0 is out of range 1..100`,
				`plan.yaml:3:37: budget.task_timeout: 0s is out of range 1s..24h`,
				`plan.yaml:3:49: budget.tokens: -1 is negative`,
				`plan.yaml:10:22: phases[0].tasks[0].depends_on[0]: no task "T9" in the plan`,
				`plan.yaml:11:22: phases[0].tasks[0].acceptance[0]: a check needs one of run, sh, manual, gotest, cmake, plugin`,
				`plan.yaml:12:13: phases[0].tasks[1].id: duplicate task ID "T1" (first at line 8)`,
				`plan.yaml:14:22: phases[0].tasks[1].acceptance[0]: a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has run and sh`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := task.Parse("plan.yaml", []byte(tt.src))
			if p != nil {
				t.Errorf("Parse returned a plan with an error")
			}
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNoAcceptanceIsAWarning(t *testing.T) {
	p, err := task.Load("testdata/noacceptance.yaml")
	if err != nil {
		t.Fatalf("Parse failed on a warning: %v", err)
	}
	ps := p.Validate()
	want := []string{`testdata/noacceptance.yaml:7:9: warning: phases[0].tasks[0].acceptance: task "T1" has no acceptance criteria; the loop will escalate it instead of starting it`}
	if diff := cmp.Diff(want, messages(t, ps)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if !errors.Is(ps, task.ErrNoAcceptance) {
		t.Error("errors.Is(problems, ErrNoAcceptance) = false")
	}
	if ps.Err() != nil || len(ps.Errors()) != 0 || len(ps.Warnings()) != 1 || !ps[0].Warning {
		t.Errorf("Err() = %v, Errors() = %v, Warnings() = %v", ps.Err(), ps.Errors(), ps.Warnings())
	}
}

// TestValidateBuiltPlan validates a plan built in code: no positions, and zero
// budget fields mean "inherit".
func TestValidateBuiltPlan(t *testing.T) {
	p := &task.Plan{
		Version: "1",
		Name:    "built",
		Phases: []task.Phase{{ID: "p", Title: "P", Tasks: []task.Task{
			{ID: "a", Title: "A", DependsOn: []string{"b"}, Acceptance: []task.Check{{Sh: "true"}}},
			{ID: "b", Title: "B", DependsOn: []string{"a"}},
		}}},
		Executor: &task.Component{Kind: task.KindCommand, Argv: []string{"x"}, Env: map[string]string{"B=": "", "A=": ""}},
	}
	want := []string{
		`executor.env.A=: invalid variable name "A="`,
		`executor.env.B=: invalid variable name "B="`,
		`warning: phases[0].tasks[1].acceptance: task "b" has no acceptance criteria; the loop will escalate it instead of starting it`,
		`phases[0].tasks[0].depends_on: dependency cycle: a -> b -> a`,
	}
	if diff := cmp.Diff(want, messages(t, p.Validate())); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestBudget(t *testing.T) {
	minutes := func(n int) task.Duration { return task.Duration(time.Duration(n) * time.Minute) }
	defaults := task.Budget{Attempts: 3, TaskTimeout: minutes(30), Cycles: 100}
	tests := []struct {
		name      string
		plan, own task.Budget
		want      task.Budget
	}{
		{"defaults", task.Budget{}, task.Budget{}, defaults},
		{
			name: "plan overrides defaults",
			plan: task.Budget{Attempts: 5, Tokens: 1000, CostUSD: 2.5},
			want: task.Budget{Attempts: 5, TaskTimeout: minutes(30), Cycles: 100, Tokens: 1000, CostUSD: 2.5},
		},
		{
			name: "task overrides plan field by field",
			plan: task.Budget{Attempts: 5, TaskTimeout: minutes(60), RunTimeout: minutes(240)},
			own:  task.Budget{TaskTimeout: minutes(10)},
			want: task.Budget{Attempts: 5, TaskTimeout: minutes(10), Cycles: 100, RunTimeout: minutes(240)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &task.Plan{Budget: tt.plan}
			got := p.TaskBudget(&task.Task{Budget: tt.own})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TaskBudget (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.plan.Resolve().Over(tt.own), got); diff != "" {
				t.Errorf("Resolve().Over() disagrees (-want +got):\n%s", diff)
			}
		})
	}
	if got := (task.Budget{Cycles: 7}).Over(task.Budget{}); got != (task.Budget{Cycles: 7}) {
		t.Errorf("Over(zero) = %+v, want b unchanged", got)
	}
	if got := (task.Budget{}).Resolve(); got != defaults {
		t.Errorf("Resolve() = %+v, want %+v", got, defaults)
	}
}

func TestMilestoneGated(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		m    *task.Milestone
		i, n int
		want bool
	}{
		{"nil milestone, not last", nil, 0, 2, true},
		{"nil milestone, last", nil, 1, 2, false},
		{"only phase", nil, 0, 1, false},
		{"gate unset", &task.Milestone{Manual: []string{"x"}}, 0, 3, true},
		{"gate true", &task.Milestone{Gate: &yes}, 1, 3, true},
		{"gate false", &task.Milestone{Gate: &no}, 0, 3, false},
		{"gate true on the last phase", &task.Milestone{Gate: &yes}, 2, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.m.Gated(tt.i, tt.n); got != tt.want {
				t.Errorf("Gated(%d, %d) = %v, want %v", tt.i, tt.n, got, tt.want)
			}
		})
	}
}

func TestCheckKind(t *testing.T) {
	for want, c := range map[string]task.Check{
		"run": {Run: []string{"make"}}, "sh": {Sh: "make"}, "manual": {Manual: "ok"}, "": {},
	} {
		if got := c.Kind(); got != want {
			t.Errorf("%+v.Kind() = %q, want %q", c, got, want)
		}
	}
}

// TestChecklistWithoutGate: a checklist nobody will be shown is a warning.
func TestChecklistWithoutGate(t *testing.T) {
	src := `version: 1
name: p
phases:
  - id: a
    title: A
    milestone: {gate: false, manual: [check the docs]}
    tasks: [{id: T1, title: t, acceptance: [{run: ["true"]}]}]
  - id: b
    title: B
    milestone: {manual: [ship it]}
    tasks: [{id: T2, title: t, acceptance: [{run: ["true"]}]}]
`
	p, err := task.Parse("plan.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.Validate().Warnings() {
		got = append(got, w.Error())
	}
	want := []string{
		"plan.yaml:6:38: warning: phases[0].milestone.manual: no gate follows this phase (gate: false), so nobody is shown its checklist",
		"plan.yaml:10:25: warning: phases[1].milestone.manual: no gate follows this phase (it is the last phase), so nobody is shown its checklist",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
