package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/task"
)

var guardCommand = &command{
	name:    "guard",
	args:    "check|diff [flags]",
	summary: "judge a command or a diff by the guardrails",
	help: `Guard judges an action by the plan's guardrails, for people, scripts and
pre-commit hooks.

  harnish guard check [--shell bash|powershell|cmd] [--plan FILE] [--json] -- COMMAND
      Judge a command line by the command rules (recursive deletion, force
      push, discarding the working tree, DROP TABLE, protected paths, package
      installs, and what cannot be judged statically). The words after --
      are joined with blanks into the command line.

  harnish guard diff [--plan FILE] [--task ID] [--json] < PATCH
      Judge a unified diff by the edit rules; see "harnish guard diff -h".

guard check flags:
  --shell SHELL  the shell the command is written for: bash (default),
                 powershell or cmd
  --plan FILE    read guardrails.packages and guardrails.protected from the
                 plan in FILE (default: the first of harnish.yaml,
                 harnish.yml, harnish.json, plan.yaml, plan.yml, plan.json
                 in the current directory; with none, the defaults: only
                 .harnish/ is protected and no package may be installed)
  --json         print the decisions as a JSON array of objects with level,
                 rule, reason and match

guard check prints one line per decision, "LEVEL RULE: REASON", followed by
the offending command indented, and nothing when the command is allowed.
Paths are judged relative to the current directory, taken as the working
tree's root.

Exit status 0 when allowed, 2 on a hard decision, 3 on soft decisions only,
1 on a usage error or a plan that does not load.
`,
	run: runGuard,
}

func runGuard(c *command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "harnish guard: want a subcommand: check or diff\nUsage: harnish %s %s\n", c.name, c.args)
		return exitError
	}
	switch args[0] {
	case "check":
		return guardCheck(c, args[1:], stdout, stderr)
	case "diff":
		return guardDiff(args[1:], os.Stdin, stdout, stderr)
	case "-h", "-help", "--help":
		c.usage(stdout)
		return exitOK
	}
	fmt.Fprintf(stderr, "harnish guard: unknown subcommand %q\nUsage: harnish %s %s\n", args[0], c.name, c.args)
	return exitError
}

const guardCheckSynopsis = "harnish guard check [--shell bash|powershell|cmd] [--plan FILE] [--json] -- COMMAND"

// guardCheck is "harnish guard check".
func guardCheck(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guard check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	shell := fs.String("shell", "bash", "bash, powershell or cmd")
	planFile := fs.String("plan", "", "plan file")
	asJSON := fs.Bool("json", false, "print the decisions as JSON")
	words, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	sh := guardrail.Shell(*shell)
	switch {
	case err != nil:
	case len(words) == 0:
		err = errors.New("want a COMMAND after --")
	case sh != guardrail.ShellBash && sh != guardrail.ShellPowerShell && sh != guardrail.ShellCmd:
		err = fmt.Errorf("unknown shell %q: want bash, powershell or cmd", *shell)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish guard check: %v\nUsage: %s\n", err, guardCheckSynopsis)
		return exitError
	}
	root, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "harnish guard check: %v\n", err)
		return exitError
	}
	plan, _, err := task.Locate(*planFile, root)
	if err != nil {
		fmt.Fprintf(stderr, "harnish guard check: %v\n", err)
		return exitError
	}
	g, err := guardrail.NewCommandGuard(guardrail.PlanCommandConfig(plan, root))
	if err != nil {
		fmt.Fprintf(stderr, "harnish guard check: %v\n", err)
		return exitError
	}
	a := guardrail.Action{Kind: guardrail.KindCommand, Shell: sh, Command: strings.Join(words, " ")}
	ds, err := g.CheckCommand(context.Background(), a)
	if err != nil {
		ds = []guardrail.Decision{{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: err.Error()}}
	}
	return printDecisions(ds, *asJSON, stdout, stderr)
}

// printDecisions prints ds as guard check does and returns the exit status
// they call for.
func printDecisions(ds []guardrail.Decision, asJSON bool, stdout, stderr io.Writer) int {
	return reportDecisions("check", ds, func(d guardrail.Decision) guardrail.Level { return d.Level },
		func(d guardrail.Decision) string {
			line := fmt.Sprintf("%s %s: %s", d.Level, d.Rule, d.Reason)
			if d.Match != "" {
				line += "\n    " + strings.ReplaceAll(d.Match, "\n", "\n    ")
			}
			return line
		}, asJSON, stdout, stderr)
}

// reportDecisions prints guard decisions, as a JSON array or one line each,
// and returns the exit status the worst calls for: 2 hard, 3 soft only, 0.
func reportDecisions[D any](sub string, ds []D, level func(D) guardrail.Level, line func(D) string,
	asJSON bool, stdout, stderr io.Writer) int {
	code := exitOK
	for _, d := range ds {
		switch l := level(d); {
		case l == guardrail.Hard:
			code = exitGuardHard
		case l == guardrail.Soft && code == exitOK:
			code = exitGuardSoft
		}
	}
	if asJSON {
		if ds == nil {
			ds = []D{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ds); err != nil {
			fmt.Fprintf(stderr, "harnish guard %s: %v\n", sub, err)
			return exitError
		}
		return code
	}
	for _, d := range ds {
		fmt.Fprintln(stdout, line(d))
	}
	return code
}
