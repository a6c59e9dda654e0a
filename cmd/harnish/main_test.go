package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const usageText = `Usage: harnish <command> [arguments]

Commands:
  run [--plan FILE] [--dir DIR] [--yes] [--json] [flags]         carry a plan out in a working tree
  resume [--dir DIR] [--plan FILE] [--yes] [--approve] [--json]  continue the run recorded in a working tree
  status [--dir DIR] [--json] [--watch]                          show where the recorded run stands
  stop [--dir DIR] [--wait DURATION]                             stop the run going on in a working tree, to resume later
  serve [--dir DIR] [--addr 127.0.0.1:PORT] [--approve]          serve a live status page of the run in a working tree
  validate FILE [--strict] [--json]                              check a plan file and print its problems
  import [flags] PATH                                            convert a peer tool's plan or progress into a harnish plan
  plan --prd FILE [flags]                                        draft a plan from a PRD with an agent, validate it, write it once approved
  preflight [--plan FILE] [--dir DIR] [--json]                   check a plan and a working tree before a run
  assets query|record|export|check|compress|purge|stats|import   query and record the experience the loop learns from
  guard check|diff [flags]                                       judge a command or a diff by the guardrails
  hook pre-tool-use|stop --agent claude|codex                    answer an agent's hook: guardrails before a tool call, checks before a stop
  plugins list|check [--manifest FILE] [--dir DIR] [--json]      show the plugins of the manifest, or start them and check each

run, resume and status take --temporal ADDR to work on a Temporal server, with approve and
worker; harnish-temporal (the contrib/temporal module) carries them out.

Run "harnish help <command>" for more about a command.
`

func TestRun(t *testing.T) {
	warning := `testdata/warn.yaml:7:9: warning: phases[0].tasks[0].acceptance: task "T1" has no acceptance criteria; the loop will escalate it instead of starting it` + "\n"
	tests := []struct {
		args       []string
		wantOut    string
		wantErr    string // "" means nothing
		wantStatus int
	}{
		{
			args:    []string{"validate", "testdata/ok.yaml"},
			wantOut: "testdata/ok.yaml: ok (1 phase, 2 tasks)\n",
		},
		{
			args:    []string{"validate", "testdata/warn.yaml"},
			wantOut: warning + "testdata/warn.yaml: ok (1 phase, 1 task)\n",
		},
		{
			args:       []string{"validate", "testdata/warn.yaml", "--strict"},
			wantOut:    warning + "testdata/warn.yaml: 0 errors, 1 warning\n",
			wantStatus: 1,
		},
		{
			args: []string{"validate", "testdata/bad.yaml"},
			wantOut: `testdata/bad.yaml:3:20: budget.attempts: 0 is out of range 1..100
testdata/bad.yaml:8:9: warning: phases[0].tasks[0].acceptance: task "T1" has no acceptance criteria; the loop will escalate it instead of starting it
testdata/bad.yaml:10:21: phases[0].tasks[0].depends_on: dependency cycle: T1 -> T2 -> T1
testdata/bad.yaml: 2 errors, 1 warning
`,
			wantStatus: 1,
		},
		{
			args: []string{"validate", "testdata/bad.json"},
			wantOut: `testdata/bad.json:4:80: phases[0].tasks[0].title: expected a string, got integer 1 (quote it)
testdata/bad.json:5:3: owner: unknown field (valid fields: advisor, budget, context, debugger, executor, guardrails, name, pacing, parallel, phases, reviewer, stuck, version)
testdata/bad.json: 2 errors, 0 warnings
`,
			wantStatus: 1,
		},
		{
			args: []string{"validate", "testdata/future.yaml"},
			wantOut: `testdata/future.yaml:1:10: version: plan schema version 2 is newer than this harnish reads (1.x); upgrade harnish
testdata/future.yaml: 1 error, 0 warnings
`,
			wantStatus: 1,
		},
		{
			args: []string{"validate", "--json", "testdata/warn.yaml"},
			wantOut: `[
  {
    "file": "testdata/warn.yaml",
    "line": 7,
    "column": 9,
    "field": "phases[0].tasks[0].acceptance",
    "message": "task \"T1\" has no acceptance criteria; the loop will escalate it instead of starting it",
    "severity": "warning"
  }
]
`,
		},
		{
			args: []string{"validate", "testdata/future.yaml", "--json"},
			wantOut: `[
  {
    "file": "testdata/future.yaml",
    "line": 1,
    "column": 10,
    "field": "version",
    "message": "plan schema version 2 is newer than this harnish reads (1.x); upgrade harnish",
    "severity": "error"
  }
]
`,
			wantStatus: 1,
		},
		{
			args:    []string{"validate", "--json", "--strict", "testdata/ok.yaml"},
			wantOut: "[]\n",
		},
		{
			args:    []string{"validate", "--", "testdata/ok.yaml"},
			wantOut: "testdata/ok.yaml: ok (1 phase, 2 tasks)\n",
		},
		{
			args:       []string{"validate", "testdata/missing.yaml"},
			wantErr:    "harnish validate: task: open testdata/missing.yaml: no such file or directory\n",
			wantStatus: 1,
		},
		{
			args:       []string{"validate"},
			wantErr:    "harnish validate: want exactly one FILE\nUsage: harnish validate FILE [--strict] [--json]\n",
			wantStatus: 1,
		},
		{
			args:       []string{"validate", "a.yaml", "b.yaml"},
			wantErr:    "harnish validate: want exactly one FILE\nUsage: harnish validate FILE [--strict] [--json]\n",
			wantStatus: 1,
		},
		{
			args:       []string{"validate", "--quiet", "testdata/ok.yaml"},
			wantErr:    "harnish validate: flag provided but not defined: -quiet\nUsage: harnish validate FILE [--strict] [--json]\n",
			wantStatus: 1,
		},
		{args: nil, wantErr: usageText, wantStatus: 1},
		{args: []string{"frob"}, wantErr: "harnish: unknown command \"frob\"\n" + usageText, wantStatus: 1},
		{args: []string{"run", "--dir", "testdata/none"}, wantErr: "harnish run: no plan: give --plan FILE or put one of [harnish.yaml harnish.yml harnish.json plan.yaml plan.yml plan.json] in testdata/none\n", wantStatus: 1},
		{args: []string{"help"}, wantOut: usageText},
		{args: []string{"-h"}, wantOut: usageText},
		{args: []string{"--help"}, wantOut: usageText},
		{args: []string{"help", "frob"}, wantErr: "harnish help: unknown command \"frob\"\n" + usageText, wantStatus: 1},
		{args: []string{"help", "validate"}, wantOut: "Usage: harnish validate FILE [--strict] [--json]\n\n" + validateCommand.help},
		{args: []string{"validate", "-h"}, wantOut: "Usage: harnish validate FILE [--strict] [--json]\n\n" + validateCommand.help},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(tt.args, &stdout, &stderr)
			if status != tt.wantStatus {
				t.Errorf("exit status %d, want %d", status, tt.wantStatus)
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

// TestExamplePlan keeps the quickstart plan valid.
func TestExamplePlan(t *testing.T) {
	var stdout, stderr bytes.Buffer
	file := filepath.Join("..", "..", "examples", "quickstart", "testdata", "project", "plan.yaml")
	if status := run([]string{"validate", "--strict", file}, &stdout, &stderr); status != 0 {
		t.Errorf("validate %s: exit status %d\n%s%s", file, status, stdout.String(), stderr.String())
	}
	if want := file + ": ok (2 phases, 4 tasks)\n"; stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
}

// TestBinary builds the command and runs it for real once.
func TestBinary(t *testing.T) {
	bin := harnishBinary(t)
	cmd := exec.Command(bin, "validate", "testdata/bad.yaml")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != 1 {
		t.Fatalf("harnish validate testdata/bad.yaml: %v, want exit status 1", err)
	}
	if want := "testdata/bad.yaml: 2 errors, 1 warning\n"; !strings.HasSuffix(stdout.String(), want) || stderr.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want stdout ending %q and no stderr", stdout.String(), stderr.String(), want)
	}
}
