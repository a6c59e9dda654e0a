package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/task"
)

var validateCommand = &command{
	name:    "validate",
	args:    "FILE [--strict] [--json]",
	summary: "check a plan file and print its problems",
	help: `Validate checks the plan in FILE (YAML, or JSON when FILE ends in .json)
and prints every problem, errors and warnings, one per line:

	file:line:col: [warning: ]field: message

then "FILE: ok (N phases, M tasks)" when the plan may run, or
"FILE: N errors, M warnings" when it may not.

Flags:
  --strict  treat warnings as errors
  --json    print the problems as a JSON array of objects with file, line,
            column, field, message and severity ("error" or "warning")

Exit status 0 when the plan has no errors (with --strict, no warnings
either), 1 otherwise.
`,
	run: runValidate,
}

func runValidate(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	strict := fs.Bool("strict", false, "treat warnings as errors")
	asJSON := fs.Bool("json", false, "print the problems as JSON")
	files, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	if err == nil && len(files) != 1 {
		err = errors.New("want exactly one FILE")
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish validate: %v\nUsage: harnish %s %s\n", err, c.name, c.args)
		return exitError
	}
	file := files[0]

	var problems task.Problems
	plan, err := task.Load(file)
	if err != nil && !errors.As(err, &problems) {
		fmt.Fprintf(stderr, "harnish validate: %v\n", err) // could not read the file
		return exitError
	}
	if plan != nil {
		problems = plan.Validate() // warnings only: Load fails on errors
	}
	errs, warns := len(problems.Errors()), len(problems.Warnings())
	ok := errs == 0 && (!*strict || warns == 0)

	if *asJSON {
		if err := writeJSON(stdout, problems); err != nil {
			fmt.Fprintf(stderr, "harnish validate: %v\n", err)
			return exitError
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(stdout, p.Error())
		}
		if ok {
			fmt.Fprintf(stdout, "%s: ok (%s, %s)\n", file,
				plural(len(plan.Phases), "phase"), plural(len(plan.Tasks()), "task"))
		} else {
			fmt.Fprintf(stdout, "%s: %s, %s\n", file, plural(errs, "error"), plural(warns, "warning"))
		}
	}
	if !ok {
		return exitError
	}
	return exitOK
}

// jsonProblem is a problem as --json prints it.
type jsonProblem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Field    string `json:"field"`
	Message  string `json:"message"`
	Severity string `json:"severity"` // "error" or "warning"
}

func writeJSON(w io.Writer, problems task.Problems) error {
	out := make([]jsonProblem, 0, len(problems))
	for _, p := range problems {
		severity := "error"
		if p.Warning {
			severity = "warning"
		}
		out = append(out, jsonProblem{File: p.File, Line: p.Line, Column: p.Column,
			Field: p.Field, Message: p.Message, Severity: severity})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
