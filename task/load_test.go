package task_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/task"
)

// head is the start of a valid YAML plan; tests append to or replace parts of it.
const head = "version: 1\nname: p\n"

// oneTask is a valid phase with one task, indented for the phases list.
const oneTask = `phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: One
        acceptance: [{run: [make]}]
`

// messages returns the problems of err, one string each, or nil.
func messages(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ps task.Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T, not task.Problems: %v", err, err)
	}
	var out []string
	for _, p := range ps {
		if p.Message == "" {
			t.Errorf("problem without a message: %#v", p)
		}
		out = append(out, p.Error())
	}
	return out
}

func TestParseSchemaErrors(t *testing.T) {
	tests := []struct {
		name string
		file string // default plan.yaml
		src  string
		want []string
		is   error // every problem wraps it, when set
	}{
		{
			name: "unknown top-level field",
			src:  head + "nmae: x\n" + oneTask,
			want: []string{`plan.yaml:3:1: nmae: unknown field (did you mean "name"?)`},
			is:   task.ErrSchema,
		},
		{
			name: "unknown field in a task",
			src: head + `phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: One
        dependson: [T0]
        acceptance: [{run: [make]}]
`,
			want: []string{`plan.yaml:9:9: phases[0].tasks[0].dependson: unknown field (did you mean "depends_on"?)`},
		},
		{
			name: "unknown field in a check",
			src: head + `phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: One
        acceptance:
          - run: [make]
            cwd: sub
`,
			want: []string{`plan.yaml:11:13: phases[0].tasks[0].acceptance[0].cwd: unknown field (valid fields: cmake, dir, gotest, manual, plugin, run, sh, timeout)`},
		},
		{
			name: "unknown field in budget",
			src:  head + "budget: {attempts: 3, retries: 2}\n" + oneTask,
			want: []string{`plan.yaml:3:23: budget.retries: unknown field (valid fields: attempts, cost_usd, cycles, run_timeout, task_timeout, tokens)`},
		},
		{
			name: "string where a list belongs",
			src:  head + "guardrails: {protected: go.mod}\n" + oneTask,
			want: []string{`plan.yaml:3:25: guardrails.protected: expected a list, got string "go.mod"`},
		},
		{
			name: "int where a string belongs",
			src: head + `phases:
  - id: 1
    title: First
    tasks:
      - id: T1
        title: 2024
        acceptance: [{run: [make]}]
`,
			want: []string{
				`plan.yaml:4:9: phases[0].id: expected a string, got integer 1 (quote it)`,
				`plan.yaml:8:16: phases[0].tasks[0].title: expected a string, got integer 2024 (quote it)`,
			},
		},
		{
			name: "list where a mapping belongs",
			src:  head + "executor: [codex]\n" + oneTask,
			want: []string{`plan.yaml:3:11: executor: expected a mapping, got a list`},
		},
		{
			name: "string where an integer belongs",
			src:  head + "budget: {attempts: three}\n" + oneTask,
			want: []string{`plan.yaml:3:20: budget.attempts: expected an integer, got string "three"`},
		},
		{
			name: "integer out of range",
			src:  head + "budget: {tokens: 9223372036854775808}\n" + oneTask,
			want: []string{`plan.yaml:3:18: budget.tokens: integer 9223372036854775808 out of range`},
		},
		{
			name: "bad boolean",
			src: head + `phases:
  - id: p1
    title: First
    milestone: {gate: "no"}
    tasks: [{id: T1, title: One, acceptance: [{run: [make]}]}]
`,
			want: []string{`plan.yaml:6:23: phases[0].milestone.gate: expected true or false, got string "no"`},
		},
		{
			name: "bad durations",
			src:  head + "budget: {task_timeout: 30, run_timeout: 2 hours}\n" + oneTask,
			want: []string{
				`plan.yaml:3:24: budget.task_timeout: expected a duration such as "30m", got integer 30`,
				`plan.yaml:3:41: budget.run_timeout: invalid duration "2 hours" (use Go syntax such as 90s, 30m, 1h30m)`,
			},
		},
		{
			name: "duplicate keys",
			src:  head + "name: q\nexecutor: {kind: command, argv: [a], env: {A: x, A: y}}\n" + oneTask,
			want: []string{
				`plan.yaml:3:1: name: duplicate field (first at line 2)`,
				`plan.yaml:4:50: executor.env.A: duplicate key (first at line 4)`,
			},
		},
		{
			name: "merge key",
			src:  head + "b: &b {attempts: 2}\n" + oneTask,
			want: []string{`plan.yaml:3:1: b: unknown field (valid fields: advisor, budget, context, debugger, executor, guardrails, name, pacing, parallel, phases, reviewer, stuck, version)`},
		},
		{
			name: "alias is reported where it is used",
			src: head + `phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: &t One
        acceptance: [{run: [make]}]
      - id: T2
        title: Two
        files: *t
        acceptance: [{run: [make]}]
`,
			want: []string{`plan.yaml:12:16: phases[0].tasks[1].files: expected a list, got string "One"`},
		},
		{
			name: "several problems at once",
			src: head + `budget: {attempts: x, tokens: y}
phases:
  - id: p1
    title: First
    owner: me
    tasks: {}
`,
			want: []string{
				`plan.yaml:3:20: budget.attempts: expected an integer, got string "x"`,
				`plan.yaml:3:31: budget.tokens: expected an integer, got string "y"`,
				`plan.yaml:7:5: phases[0].owner: unknown field (valid fields: id, milestone, parallel, tasks, title)`,
				`plan.yaml:8:12: phases[0].tasks: expected a list, got a mapping`,
			},
		},
		{
			name: "top level is not a mapping",
			src:  "- version: 1\n",
			want: []string{`plan.yaml:1:1: expected a mapping, got a list`},
		},
		{
			name: "JSON type errors",
			file: "plan.json",
			src:  `{"version": 1, "name": "p", "budget": {"attempts": "3", "cost_usd": 1e400}, "phases": []}`,
			want: []string{
				`plan.json:1:52: budget.attempts: expected an integer, got string "3"`,
				`plan.json:1:69: budget.cost_usd: invalid number 1e400`,
				`plan.json:1:87: phases: required: a plan has at least one phase`,
			},
		},
		{
			name: "JSON duplicate keys",
			file: "plan.json",
			src:  "{\n  \"version\": 1,\n  \"name\": \"p\",\n  \"name\": \"q\"\n}",
			want: []string{`plan.json:4:3: name: duplicate field (first at line 3)`},
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
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		src  string
		want []string
		is   error
	}{
		{
			name: "YAML syntax error",
			file: "plan.yaml",
			src:  "version: 1\nname: [p\n",
			want: []string{`plan.yaml:2: did not find expected ',' or ']'`},
			is:   task.ErrSyntax,
		},
		{
			name: "YAML block mapping error",
			file: "plan.yaml",
			src:  "version: 1\nphases:\n  - id: p1\n  title: x\n",
			want: []string{`plan.yaml:3: did not find expected '-' indicator`},
			is:   task.ErrSyntax,
		},
		{
			name: "YAML mapping value in the wrong place",
			file: "plan.yaml",
			src:  "version: 1\nname: p: q\n",
			want: []string{`plan.yaml:2: mapping values are not allowed in this context`},
			is:   task.ErrSyntax,
		},
		{
			name: "YAML tab indentation",
			file: "plan.yml",
			src:  "version: 1\nphases:\n\t- id: p1\n",
			want: []string{`plan.yml:3: found character that cannot start any token`},
			is:   task.ErrSyntax,
		},
		{
			name: "unknown anchor",
			file: "plan.yaml",
			src:  "version: 1\nname: *n\n",
			want: []string{`plan.yaml: unknown anchor 'n' referenced`},
			is:   task.ErrSyntax,
		},
		{
			name: "JSON syntax error",
			file: "plan.json",
			src:  "{\n  \"version\": 1,\n  \"name\": \"p\",\n}",
			want: []string{`plan.json:4:1: invalid character '}' looking for beginning of object key string`},
			is:   task.ErrSyntax,
		},
		{
			name: "JSON missing colon",
			file: "PLAN.JSON",
			src:  `{"version" 1}`,
			want: []string{`PLAN.JSON:1:12: invalid character '1' after object key`},
			is:   task.ErrSyntax,
		},
		{
			name: "JSON cut short",
			file: "plan.json",
			src:  "{\"version\": 1,\n \"name\": ",
			want: []string{`plan.json:2:10: unexpected end of JSON input`},
			is:   task.ErrSyntax,
		},
		{
			name: "JSON is not read as YAML",
			file: "plan.json",
			src:  "version: 1\n",
			want: []string{`plan.json:1:1: invalid character 'v' looking for beginning of value`},
			is:   task.ErrSyntax,
		},
		{
			name: "trailing data after JSON",
			file: "plan.json",
			src:  "{\"version\": 1}\n\n  {\"name\": \"p\"}\n",
			want: []string{`plan.json:3:3: unexpected data after the JSON value; a plan is one JSON object`},
			is:   task.ErrSyntax,
		},
		{
			name: "multiple YAML documents",
			file: "plan.yaml",
			src:  "version: 1\nname: p\n---\nname: q\n",
			want: []string{`plan.yaml:3:1: more than one YAML document; a plan is one document`},
			is:   task.ErrSyntax,
		},
		{
			name: "empty YAML file",
			file: "plan.yaml",
			src:  "",
			want: []string{`plan.yaml: empty plan`},
			is:   task.ErrSchema,
		},
		{
			name: "YAML file with only comments",
			file: "plan.yaml",
			src:  "# nothing yet\n",
			want: []string{`plan.yaml: empty plan`},
		},
		{
			name: "YAML document marker only",
			file: "plan.yaml",
			src:  "---\n",
			want: []string{`plan.yaml: empty plan`},
		},
		{
			name: "empty JSON file",
			file: "plan.json",
			src:  " \n",
			want: []string{`plan.json: empty plan`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := task.Parse(tt.file, []byte(tt.src))
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
		is   error
	}{
		{
			name: "missing",
			src:  "name: p\n" + oneTask,
			want: []string{`plan.yaml:1:1: version: required (this harnish reads version 1)`},
			is:   task.ErrSchema,
		},
		{
			name: "newer major, with fields this version does not know",
			src:  "version: 2.1\nname: p\nworkflow: {steps: []}\n",
			want: []string{`plan.yaml:1:10: version: plan schema version 2.1 is newer than this harnish reads (1.x); upgrade harnish`},
			is:   task.ErrUnsupportedVersion,
		},
		{
			name: "older major",
			src:  "version: \"0.9\"\nname: p\n" + oneTask,
			want: []string{`plan.yaml:1:10: version: plan schema version 0.9 is older than this harnish reads (1.x); write version: 1`},
			is:   task.ErrUnsupportedVersion,
		},
		{
			name: "not a version",
			src:  "version: one\nname: p\n" + oneTask,
			want: []string{`plan.yaml:1:10: version: invalid version "one": want a semantic version such as 1`},
			is:   task.ErrSchema,
		},
		{
			name: "wrong type",
			src:  "version: [1]\nname: p\n" + oneTask,
			want: []string{`plan.yaml:1:10: version: expected a version such as 1, got a list`},
			is:   task.ErrSchema,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := task.Parse("plan.yaml", []byte(tt.src))
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
	for _, v := range []string{"1", `"1"`, "1.0", `"1.2.3"`, `"v1"`} {
		if _, err := task.Parse("plan.yaml", []byte("version: "+v+"\nname: p\n"+oneTask)); err != nil {
			t.Errorf("version %s: %v", v, err)
		}
	}
}

// TestYAMLAndJSONAgree decodes the same plan written in both forms.
func TestYAMLAndJSONAgree(t *testing.T) {
	fromYAML, err := task.Load("testdata/valid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := task.Load("testdata/valid.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromYAML, fromJSON, cmpopts.IgnoreUnexported(task.Plan{})); diff != "" {
		t.Errorf("YAML and JSON plans differ (-yaml +json):\n%s", diff)
	}
	gate := false
	want := &task.Plan{
		Version:  "1",
		Name:     "add-division",
		Budget:   task.Budget{Attempts: 3, TaskTimeout: task.Duration(30 * time.Minute), Cycles: 50, RunTimeout: task.Duration(4 * time.Hour), Tokens: 2000000, CostUSD: 20.5},
		Executor: &task.Component{Kind: "codex", Model: "gpt-5"},
		Debugger: &task.Component{Kind: "command", Argv: []string{"./tools/debug.sh"}},
		Reviewer: &task.Component{Kind: "plugin", Plugin: "strict-review", Env: map[string]string{"REVIEW_LEVEL": "high"}},
		Guardrails: task.Guardrails{
			Packages:  map[string][]string{"go": {"github.com/google/go-cmp"}, "npm": {"zod"}},
			Protected: []string{".harnish/", "go.mod"},
		},
		Phases: []task.Phase{
			{
				ID: "api", Title: "Division API",
				Milestone: &task.Milestone{Manual: []string{"README example renders"}},
				Tasks: []task.Task{
					{
						ID: "T1", Title: "divide() with zero check",
						Objective: "Return an error when dividing by zero.",
						Files:     []string{"calc/calc.go", "calc/calc_test.go"},
						Acceptance: []task.Check{
							{Run: []string{"go", "test", "./calc/..."}},
							{Sh: "go vet ./... && test -f calc/calc.go", Dir: "calc", Timeout: task.Duration(2 * time.Minute)},
						},
						Tags:   []string{"calc"},
						Budget: task.Budget{Attempts: 5, TaskTimeout: task.Duration(10 * time.Minute)},
					},
					{
						ID: "T2", Title: "Document divide()", DependsOn: []string{"T1"},
						Acceptance: []task.Check{{Manual: "The doc comment names the zero case."}},
						Status:     task.StatusDone,
					},
				},
			},
			{
				ID: "cli", Title: "Command line",
				Milestone: &task.Milestone{Gate: &gate},
				Tasks: []task.Task{{
					ID: "T3", Title: "calc divide subcommand", DependsOn: []string{"T1", "T2"},
					Acceptance: []task.Check{{Run: []string{"go", "test", "./cmd/calc/..."}}},
				}},
			},
		},
	}
	if diff := cmp.Diff(want, fromYAML, cmpopts.IgnoreUnexported(task.Plan{})); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
}

// TestJSONBeyondYAML holds JSON plans to JSON: input YAML would misread.
func TestJSONBeyondYAML(t *testing.T) {
	src := "{\"version\": 1, \"name\"\n: \"p\", \"phases\": [{\"id\": \"p1\", \"title\": \"\\ud83d\\ude00 First\",\n" +
		"\t\"tasks\": [{\"id\": \"T1\", \"title\": \"One\", \"acceptance\": [{\"run\": [\"make\"]}]}]}]}"
	p, err := task.Parse("plan.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Phases[0].Title, "\U0001F600 First"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
}

func TestLoad(t *testing.T) {
	_, err := task.Load(filepath.Join(t.TempDir(), "missing.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want os.ErrNotExist", err)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "task: ") {
		t.Errorf("Load(missing) error %q lacks the package prefix", err)
	}
}

// TestPathologicalYAML makes sure hostile input costs little: aliases that
// expand exponentially, recursive anchors and deep nesting.
func TestPathologicalYAML(t *testing.T) {
	// Billion laughs: each list holds ten aliases of the one before.
	laughs := "version: 1\nname: p\nguardrails:\n  packages:\n    l0: &l0 [a, b, c, d, e, f, g, h, i, j]\n"
	for i := 1; i <= 9; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		laughs += fmt.Sprintf("    l%d: &l%d [%s%s]\n", i, i, strings.Repeat(prev+", ", 9), prev)
	}
	laughs += oneTask
	// The same with mappings that fit the schema: 1000 phases of 100 tasks
	// of 100 checks.
	phases := head + "phases:\n  - &p {id: p1, title: First, tasks: [&t {id: T1, title: One, acceptance: [&c {run: [make]}" +
		strings.Repeat(", *c", 99) + "]}" + strings.Repeat(", *t", 99) + "]}\n" + strings.Repeat("  - *p\n", 999)
	tests := []struct {
		name string
		src  string
		want []string // the first problems
	}{
		{
			name: "billion laughs in a map of lists",
			src:  laughs,
			want: []string{`plan.yaml:6:14: guardrails.packages.l1[0]: expected a string, got a list`},
		},
		{
			name: "alias bomb of phases",
			src:  phases,
			want: []string{`plan.yaml:4:414: phases[0].tasks[65].acceptance[81]: plan expands to more than 20000 values through aliases`},
		},
		{
			name: "recursive anchor",
			src:  "version: 1\nname: p\nphases: &p [{id: p1, title: x, tasks: *p}]\n",
			want: []string{`plan.yaml:3:32: phases[0].tasks[0].tasks: unknown field (did you mean "tags"?)`},
		},
		{
			name: "deep flow nesting",
			src:  "version: 1\nphases: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
			want: []string{`plan.yaml:2: exceeded max depth of 10000`},
		},
		{
			name: "deep block nesting",
			src:  head + "phases:\n" + deepBlock(1000),
			want: []string{`plan.yaml:5:2: phases[0]: expected a mapping, got a list`},
		},
		{
			name: "deep JSON nesting",
			src:  `{"phases": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}",
			want: []string{`plan.json:1:10011: invalid character '[' exceeded max depth`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := "plan.yaml"
			if strings.HasPrefix(tt.src, "{") {
				file = "plan.json"
			}
			start := time.Now()
			_, err := task.Parse(file, []byte(tt.src))
			got := messages(t, err)
			if len(got) > 201 {
				t.Errorf("%d problems; want them capped at 200 and one more", len(got))
			}
			if diff := cmp.Diff(tt.want, got[:min(len(got), len(tt.want))]); diff != "" {
				t.Errorf("first problems (-want +got):\n%s", diff)
			}
			if d := time.Since(start); d > 30*time.Second { // a hang, not a slow machine
				t.Errorf("Parse took %s", d)
			}
		})
	}
}

func deepBlock(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "- \n")
	}
	return b.String()
}
