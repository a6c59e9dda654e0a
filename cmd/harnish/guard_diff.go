package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/task"
)

// Exit codes of guard diff (and guard check), see DESIGN.md §8.
const (
	exitGuardHard = 2 // a hard decision: the change must not land
	exitGuardSoft = 3 // soft decisions only: warnings
)

// guardDiffUsage is the help of "harnish guard diff".
const guardDiffUsage = `Usage: harnish guard diff [--plan FILE] [--task ID] [--json] < PATCH

Guard diff judges a unified diff, as git diff prints it, by the edit rules:
secrets in added lines, protected paths (hard); files outside the task's
declared files, files changing too many lines, product files without their
test file (soft, or hard by the plan's tdd.level). Run it at the root of the
working tree: test files that exist already count, and the plan's paths are
relative to it.

It prints one line per decision:

	LEVEL RULE PATH:LINE: REASON

and nothing when the diff is allowed.

Flags:
  --plan FILE  read the guardrail settings from the plan in FILE (default:
               the first of harnish.yaml, harnish.yml, harnish.json,
               plan.yaml, plan.yml, plan.json in the current directory; with
               none, the defaults: only .harnish/ protected, 100 lines, tdd
               soft)
  --task ID    judge the scope against the declared files of task ID (needs
               a plan)
  --json       print the decisions as a JSON array of objects with level,
               rule, reason, match (a masked secret, a protected path),
               path and line

Exit status 0 when the diff is allowed, 2 on a hard decision (a diff that
does not parse is one), 3 on soft decisions only, 1 on a usage error or a
plan that does not load.
`

// guardDiff is "harnish guard diff": it reads a unified diff from stdin and
// judges it with the edit rules of the plan given by --plan.
func guardDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("guard diff", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	planFile := flags.String("plan", "", "plan file")
	taskID := flags.String("task", "", "task ID")
	asJSON := flags.Bool("json", false, "print the decisions as JSON")
	rest, err := flagx.Parse(flags, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, guardDiffUsage)
		return exitOK
	}
	switch {
	case err != nil:
	case len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q: the diff is read from standard input", rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish guard diff: %v\nUsage: harnish guard diff [--plan FILE] [--task ID] [--json] < PATCH\n", err)
		return exitError
	}

	fail := func(err error) int {
		fmt.Fprintf(stderr, "harnish guard diff: %v\n", err)
		return exitError
	}
	plan, _, err := task.Locate(*planFile, ".")
	if err != nil {
		return fail(err)
	}
	if plan == nil && *taskID != "" {
		return fail(errors.New("--task needs a plan: none given with --plan or found in the current directory"))
	}
	cfg, err := guardrail.TaskEditConfig(plan, *taskID, os.DirFS("."))
	if err != nil {
		return fail(err)
	}
	g, err := guardrail.NewEditGuard(cfg)
	if err != nil {
		return fail(err)
	}
	diff, err := io.ReadAll(stdin)
	if err != nil {
		return fail(err)
	}
	return judgeDiff(g, string(diff), *taskID, *asJSON, stdout, stderr)
}

// judgeDiff prints the decisions of g about diff and returns the exit code.
func judgeDiff(g *guardrail.EditGuard, diff, taskID string, asJSON bool, stdout, stderr io.Writer) int {
	ds, err := g.CheckEdit(cmdContext(), guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: taskID})
	if err != nil {
		// Guardrails fail closed: a diff that cannot be judged is blocked,
		// as Evaluate blocks a guardrail's error.
		ds = []guardrail.EditDecision{{Decision: guardrail.Decision{
			Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: err.Error()}}}
	}
	return reportDecisions("diff", ds, func(d guardrail.EditDecision) guardrail.Level { return d.Level },
		guardrail.EditDecision.String, asJSON, stdout, stderr)
}
