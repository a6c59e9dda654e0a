package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/preflight"
	"github.com/harnish/harnish/task"
)

var preflightCommand = &command{
	name:    "preflight",
	args:    "[--plan FILE] [--dir DIR] [--json]",
	summary: "check a plan and a working tree before a run",
	help: `Preflight checks what would stop a run half-way or leave the agent to
improvise, before it starts: the plan loads and every task to do has a check
that runs; the working tree is clean; the budget caps the run's tokens, cost
or time; the files the tasks say exist do, and no task's objective or scope
contradicts the tree, which is asked as

	Expected: ...
	Found: ...
	How should I proceed?

and the programs the checks run are on PATH (their versions are listed).
--plan is found as "harnish run" finds it, a peer tool's file included.
"harnish run" runs the same checks first and does not start on a blocking
one.

Exit status: 0 nothing found; 2 something found (a person should look);
1 usage or error.
`,
	run: runPreflight,
}

func runPreflight(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preflight", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	planFile := fs.String("plan", "", "the plan file")
	dir := fs.String("dir", ".", "the working tree")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, ok := c.parse(fs, args, stdout, stderr, nil); !ok {
		return code
	}
	imported, _, peer, err := peerPlan(*planFile, "", io.Discard)
	var plan *task.Plan
	file := *planFile
	if peer && err == nil {
		plan = imported.Plan
	} else if !peer {
		plan, file, err = task.Locate(*planFile, *dir)
	}
	if err == nil && plan == nil {
		err = fmt.Errorf("no plan: give --plan FILE or put one of %v in %s", task.DefaultFiles, *dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish preflight: %v\n", err)
		return exitError
	}
	r, err := preflight.Run(cmdContext(), preflight.Config{Plan: plan, Dir: *dir, Skip: preflightSkip(*dir, file),
		DirtyBlocks: true, BudgetBlocks: true})
	if err != nil {
		fmt.Fprintf(stderr, "harnish preflight: %v\n", err)
		return exitError
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintf(stderr, "harnish preflight: %v\n", err)
			return exitError
		}
	} else {
		for _, f := range r.Findings {
			fmt.Fprintln(stdout, f)
		}
		for _, t := range r.Tools {
			if t.Path != "" {
				fmt.Fprintf(stdout, "tool %s: %s (%s)\n", t.Name, t.Path, orDash(t.Version))
			}
		}
		if len(r.Findings) == 0 {
			fmt.Fprintf(stdout, "ready: %s, %s\n", plural(len(plan.Phases), "phase"), plural(len(plan.Tasks()), "task"))
		}
	}
	if len(r.Findings) > 0 {
		return 2
	}
	return exitOK
}

// preflightSkip lists what does not make the tree dirty: the state and the
// plan file.
func preflightSkip(dir, file string) []string {
	skip := []string{loop.StateDir}
	if rel, err := filepath.Rel(dir, file); err == nil && file != "" {
		skip = append(skip, filepath.ToSlash(rel))
	}
	return skip
}

// runPreflight runs the checks at the start of a run: blocking findings
// stop it before anything happens; the others are said.
func preflightRun(name string, plan *task.Plan, dir, file string, stderr io.Writer) bool {
	r, err := preflight.Run(cmdContext(), preflight.Config{Plan: plan, Dir: dir, Skip: preflightSkip(dir, file)})
	if err != nil {
		fmt.Fprintf(stderr, "harnish %s: preflight: %v\n", name, err)
		return false
	}
	for _, f := range r.Findings {
		if f.Kind == preflight.KindTree {
			continue // run's own check decides
		}
		fmt.Fprintf(stderr, "harnish %s: preflight: %s\n", name, strings.ReplaceAll(f.String(), "\n", "\n  "))
	}
	return !r.Blocking()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
