package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newFile is a diff adding path with lines.
func newFile(path string, lines ...string) string {
	s := fmt.Sprintf("diff --git a/%s b/%[1]s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%[1]s\n@@ -0,0 +1,%d @@\n",
		path, len(lines))
	for _, l := range lines {
		s += "+" + l + "\n"
	}
	return s
}

func TestGuardDiff(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.yaml")
	writePlan := func(name, guardrails string) string {
		p := filepath.Join(dir, name)
		src := "version: 1\nname: p\nguardrails:\n" + guardrails + `phases:
  - id: p1
    title: First
    tasks:
      - id: T1
        title: One
        files: [calc/]
        acceptance: [{run: [make]}]
`
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	writePlan("plan.yaml", "  protected: [go.mod]\n")
	tddOff := writePlan("tdd-off.yaml", "  tdd: {level: off}\n  max_changed_lines: 2\n")
	tddHard := writePlan("tdd-hard.yaml", "  tdd: {level: hard}\n")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nname: p\nguardrails: {tdd: {level: maybe}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tested := newFile("calc/calc.go", "package calc") + newFile("calc/calc_test.go", "package calc")
	untested := newFile("calc/div.go", "package calc", "func Div() {}", "// x")
	leak := newFile("calc/calc_test.go", `const token = "ghp_R8c2JqP1x9LmZt4VbN7wQs3KdY6hF0aE5uGi"`)

	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{name: "allowed", stdin: tested},
		{name: "empty diff", stdin: ""},
		{name: "secret", stdin: leak, wantStatus: exitGuardHard,
			wantOut: "hard edit.secret.github calc/calc_test.go:1: GitHub token added (ghp_***); read credentials from the environment or a secret store instead\n"},
		{name: "untested product file", stdin: untested, wantStatus: exitGuardSoft,
			wantOut: "soft edit.tdd calc/div.go: product file changed without its test; write the test first (calc/div_test.go, calc/test/div_test.go, calc/tests/div_test.go and 7 more)\n"},
		{name: "tdd hard by the plan", args: []string{"--plan", tddHard}, stdin: untested, wantStatus: exitGuardHard,
			wantOut: "hard edit.tdd calc/div.go: product file changed without its test; write the test first (calc/div_test.go, calc/test/div_test.go, calc/tests/div_test.go and 7 more)\n"},
		{name: "tdd off, size limit by the plan", args: []string{"--plan", tddOff}, stdin: untested, wantStatus: exitGuardSoft,
			wantOut: "soft edit.size calc/div.go: changes 3 lines, more than 2 in one file; prefer smaller steps\n"},
		{name: "protected by the plan, outside the task's scope", args: []string{"--plan", plan, "--task", "T1"},
			stdin: "diff --git a/go.mod b/go.mod\n--- a/go.mod\n+++ b/go.mod\n@@ -1 +1 @@\n-module a\n+module b\n", wantStatus: exitGuardHard,
			wantOut: "hard edit.protected go.mod: go.mod is protected (under \"go.mod\"); no change may modify it\n" +
				"soft edit.scope go.mod: go.mod is outside the declared files of task T1 (calc/)\n"},
		{name: "state directory without a plan", stdin: newFile(".harnish/state.json", "{}"), wantStatus: exitGuardHard,
			wantOut: "hard edit.protected .harnish/state.json: .harnish/state.json is protected (under \".harnish\"); no change may create it\n"},
		{name: "json", args: []string{"--json"}, stdin: leak, wantStatus: exitGuardHard, wantOut: `[
  {
    "level": "hard",
    "rule": "edit.secret.github",
    "reason": "GitHub token added (ghp_***); read credentials from the environment or a secret store instead",
    "match": "ghp_***",
    "path": "calc/calc_test.go",
    "line": 1
  }
]
`},
		{name: "json when allowed", args: []string{"--json"}, stdin: tested, wantOut: "[]\n"},
		{name: "a diff that does not parse is hard", stdin: "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", wantStatus: exitGuardHard,
			wantOut: `hard guardrail.error: guardrail: malformed diff: line 4: hunk "@@ -1,3 +1,3 @@" ends early: 2 old and 2 new lines missing` + "\n"},
		{name: "text that is no diff is hard", stdin: "just words\n", wantStatus: exitGuardHard,
			wantOut: "hard guardrail.error: guardrail: malformed diff: no file header in 11 bytes of diff\n"},
		{name: "help", args: []string{"-h"}, wantOut: guardDiffUsage},
		{name: "task without plan", args: []string{"--task", "T1"}, wantStatus: exitError,
			wantErr: "harnish guard diff: --task needs a plan: none given with --plan or found in the current directory\n"},
		{name: "positional argument", args: []string{"patch.diff"}, wantStatus: exitError,
			wantErr: "harnish guard diff: unexpected argument \"patch.diff\": the diff is read from standard input\nUsage: harnish guard diff [--plan FILE] [--task ID] [--json] < PATCH\n"},
		{name: "unknown task", args: []string{"--plan", plan, "--task", "T9"}, wantStatus: exitError,
			wantErr: "harnish guard diff: no task \"T9\" in the plan\n"},
		{name: "plan that does not load", args: []string{"--plan", bad}, wantStatus: exitError,
			wantErr: "harnish guard diff: " + bad + ":1:1: phases: required: a plan has at least one phase\n" +
				bad + ":3:27: guardrails.tdd.level: \"maybe\" is not one of off, soft, hard\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := guardDiff(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if status != tt.wantStatus {
				t.Errorf("status = %d, want %d (stderr %q)", status, tt.wantStatus, stderr.String())
			}
			if diff := cmp.Diff(tt.wantOut, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// Without --plan, guard diff reads the plan in the current directory, taken
// as the working tree: test files there count.
func TestGuardDiffWorkingTree(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	plan := "version: 1\nname: p\nguardrails: {tdd: {level: hard}}\nphases:\n  - id: p1\n    title: First\n    tasks:\n" +
		"      - {id: T1, title: One, files: [calc/], acceptance: [{run: [make]}]}\n"
	if err := os.WriteFile("harnish.yaml", []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("calc", 0o755); err != nil {
		t.Fatal(err)
	}
	diff := newFile("calc/div.go", "package calc") + newFile("cmd/x/x.go", "package x")
	var stdout, stderr bytes.Buffer
	status := guardDiff([]string{"--task", "T1"}, strings.NewReader(diff), &stdout, &stderr)
	want := "hard edit.tdd calc/div.go: product file changed without its test; write the test first (calc/div_test.go, calc/test/div_test.go, calc/tests/div_test.go and 7 more)\n" +
		"soft edit.scope cmd/x/x.go: cmd/x/x.go is outside the declared files of task T1 (calc/)\n" +
		"hard edit.tdd cmd/x/x.go: product file changed without its test; write the test first (cmd/x/x_test.go, cmd/x/test/x_test.go, cmd/x/tests/x_test.go and 10 more)\n"
	if status != exitGuardHard || stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("guard diff = %d\nstdout:\n%s\nstderr: %s\nwant %d and\n%s", status, stdout.String(), stderr.String(), exitGuardHard, want)
	}

	if err := os.WriteFile(filepath.Join("calc", "div_test.go"), []byte("package calc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	status = guardDiff([]string{"--task", "T1"}, strings.NewReader(newFile("calc/div.go", "package calc")), &stdout, &stderr)
	if status != exitOK || stdout.Len() != 0 {
		t.Errorf("with calc/div_test.go in the tree: guard diff = %d, %q; want 0 and nothing", status, stdout.String())
	}
}
