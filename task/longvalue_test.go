package task_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
)

// TestLongValues makes sure a problem repeats only the start of a long value,
// wherever the value is.
func TestLongValues(t *testing.T) {
	// A long value, and how problems quote it.
	long := strings.Repeat("x", 1<<20)
	longDigit := strings.Repeat("9", 1<<20)
	longBare := strings.Repeat("x", 80) + "… (1048576 bytes)"
	longQuote := `"` + strings.Repeat("x", 80) + `"… (1048576 bytes)`
	x79 := strings.Repeat("x", 79)
	L := func(s string) string { return strings.ReplaceAll(s, "LONG", long) }
	task1 := func(fields string) string {
		return "phases:\n  - id: p1\n    title: First\n    tasks:\n      - {id: T1, title: One, acceptance: [{run: [make]}], " + fields + "}\n"
	}
	tests := []struct {
		name string
		file string // default plan.yaml
		src  string
		want []string
	}{
		{
			name: "unknown kind",
			src:  L(head + "executor: {kind: LONG}\n" + oneTask),
			want: []string{`plan.yaml:3:18: executor.kind: ` + longQuote + ` is not one of command, plugin, codex, claude, acp`},
		},
		{
			name: "bad duration",
			src:  L(head + "budget: {task_timeout: LONG}\n" + oneTask),
			want: []string{`plan.yaml:3:24: budget.task_timeout: invalid duration ` + longQuote + ` (use Go syntax such as 90s, 30m, 1h30m)`},
		},
		{
			name: "bad ID",
			src:  L("version: 1\nname: LONG\n" + oneTask),
			want: []string{`plan.yaml:2:7: name: ` + longQuote + ` is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`},
		},
		{
			name: "unknown field",
			src:  L(head + "? LONG\n: 1\n" + oneTask),
			want: []string{`plan.yaml:3:3: ` + longBare + `: unknown field (valid fields: advisor, budget, context, debugger, executor, guardrails, name, pacing, parallel, phases, reviewer, stuck, version)`},
		},
		{
			name: "string for an integer",
			src:  L(head + "budget: {attempts: LONG}\n" + oneTask),
			want: []string{`plan.yaml:3:20: budget.attempts: expected an integer, got string ` + longQuote},
		},
		{
			name: "long integer",
			src:  head + "budget: {tokens: " + longDigit + "}\n" + oneTask,
			want: []string{`plan.yaml:3:18: budget.tokens: expected an integer, got string "` + strings.Repeat("9", 80) + `"… (1048576 bytes)`},
		},
		{
			name: "integer out of range",
			file: "plan.json",
			src:  `{"version": 1, "name": "p", "budget": {"tokens": ` + longDigit + `}}`,
			want: []string{
				`plan.json:1:1: phases: required: a plan has at least one phase`,
				`plan.json:1:50: budget.tokens: integer ` + strings.Repeat("9", 80) + `… (1048576 bytes) out of range`,
			},
		},
		{
			name: "tag",
			src:  L(head + "phases:\n  - id: !LONG p1\n    title: First\n    tasks: [{id: T1, title: One, acceptance: [{run: [make]}]}]\n"),
			want: []string{`plan.yaml:4:9: phases[0].id: expected a string, got !` + x79 + `… (1048577 bytes) "p1" (quote it)`},
		},
		{
			name: "variable name",
			src:  L(head + "executor: {kind: codex, env: {? =LONG : v}}\n" + oneTask),
			want: []string{`plan.yaml:3:1048613: executor.env.=` + x79 + `… (1048577 bytes): invalid variable name "=` + x79 + `"… (1048577 bytes)`},
		},
		{
			name: "task fields",
			src:  L(head + task1("status: LONG, depends_on: [LONG], files: [/LONG]")),
			want: []string{
				`plan.yaml:7:67: phases[0].tasks[0].status: ` + longQuote + ` is not one of todo, doing, done`,
				`plan.yaml:7:1048658: phases[0].tasks[0].depends_on[0]: no task ` + longQuote + ` in the plan`,
				`plan.yaml:7:2097245: phases[0].tasks[0].files[0]: "/` + x79 + `"… (1048577 bytes) is absolute; paths are relative to the working tree's root`,
			},
		},
		{
			name: "cycle",
			src: strings.ReplaceAll(head+"phases:\n  - id: p1\n    title: First\n    tasks:\n"+
				"      - {id: aLONG, title: A, acceptance: [{run: [make]}], depends_on: [bLONG]}\n"+
				"      - {id: bLONG, title: B, acceptance: [{run: [make]}], depends_on: [aLONG]}\n", "LONG", long[:100_000]),
			want: []string{
				`plan.yaml:7:14: phases[0].tasks[0].id: "a` + x79 + `"… (100001 bytes) is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.yaml:7:100068: phases[0].tasks[0].depends_on: dependency cycle: a` + x79 + `… (100001 bytes) -> b` + x79 + `… (100001 bytes) -> a` + x79 + `… (100001 bytes)`,
				`plan.yaml:8:14: phases[0].tasks[1].id: "b` + x79 + `"… (100001 bytes) is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
			},
		},
		{
			name: "version",
			src:  L("version: 2.0.0-LONG\nname: p\n" + oneTask),
			want: []string{`plan.yaml:1:10: version: invalid version "2.0.0-` + strings.Repeat("x", 74) + `"… (1048582 bytes): want a semantic version such as 1`},
		},
		{
			name: "unknown anchor",
			src:  L("version: 1\nname: *LONG\n"),
			want: []string{`plan.yaml: unknown anchor '` + strings.Repeat("x", 304) + `… (1048604 bytes)`},
		},
		{
			name: "JSON",
			file: "plan.json",
			src:  L(`{"version": 1, "name": "LONG", "phases": []}`),
			want: []string{
				`plan.json:1:24: name: ` + longQuote + ` is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters`,
				`plan.json:1:1048614: phases: required: a plan has at least one phase`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "plan.yaml"
			}
			start := time.Now()
			_, err := task.Parse(file, []byte(tt.src))
			if diff := cmp.Diff(tt.want, messages(t, err)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if n := len(err.Error()); n > 1024 {
				t.Errorf("error of %d bytes", n)
			}
			if d := time.Since(start); d > 10*time.Second { // a hang, not a slow machine
				t.Errorf("Parse took %s", d)
			}
		})
	}
	var d task.Duration
	want := `task: invalid duration ` + longQuote
	if err := d.UnmarshalText([]byte(long)); err == nil || err.Error() != want {
		t.Errorf("UnmarshalText(long) = %v, want %s", err, want)
	}
}
