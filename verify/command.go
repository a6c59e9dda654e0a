package verify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// Command is a [Verifier] that runs one program and passes when it exits 0.
// Exactly one of Argv and Script is set. It runs its own command whatever
// the request's Checks say; the request gives the working tree. It is safe
// for concurrent use.
type Command struct {
	// Argv is the program and its arguments, run without a shell. A
	// relative program path resolves from Dir.
	Argv []string
	// Script is run with "sh -c": the explicit opt-in to a shell of an sh
	// check.
	Script string
	// Dir is the working directory, relative to the working tree's root,
	// which it may not leave. Empty means the root.
	Dir string
	// Timeout bounds the run. Zero means [DefaultTimeout].
	Timeout time.Duration
	// Env adds variables to the environment, as executor.Command.Env does.
	Env map[string]string
}

// Verify runs the command in req.WorkDir.
func (c *Command) Verify(ctx context.Context, req *Request) (*Report, error) {
	argv, name := c.Argv, strings.Join(proc.MaskArgv(c.Argv), " ")
	switch {
	case c.Script != "" && len(c.Argv) > 0:
		return nil, &Error{Kind: KindUnavailable, Check: name, Err: fmt.Errorf("both an argv and a script")}
	case c.Script != "":
		argv, name = []string{"sh", "-c", c.Script}, proc.MaskText(c.Script)
	case len(c.Argv) == 0 || c.Argv[0] == "":
		return nil, fmt.Errorf("%w: a command without a program", ErrNoChecks)
	}
	o, err := runStage(ctx, req.WorkDir, checkDeadline(c.Timeout), stage{check: name, argv: argv, dir: c.Dir, env: envList(c.Env)})
	if err != nil {
		return nil, err
	}
	rep := &Report{Passed: o.result.Passed, Checks: []CheckResult{o.result}}
	if !rep.Passed {
		out := o.result.OutputTail
		summary := fmt.Sprintf("%s: exit status %d", name, o.result.ExitCode)
		if line := summaryLine(out); line != "" {
			summary = name + ": " + line
		}
		rep.Fingerprint = o.fingerprint(Classify(argv, out), req.WorkDir, name+"\n"+out, summary)
	}
	return rep, nil
}
