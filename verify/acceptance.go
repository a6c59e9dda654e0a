package verify

import (
	"context"
	"fmt"

	"github.com/harnish/harnish/task"
)

// Acceptance is the [Verifier] that runs a task's acceptance checks: the
// request's Checks, or when those are nil the task's Acceptance, each built
// by [FromCheck], in order, stopping at the first that fails. Manual checks
// are skipped; a request with nothing else to run is an error wrapping
// [ErrNoChecks]. The zero value is ready to use and safe for concurrent use.
type Acceptance struct{}

// Verify runs the request's checks.
func (Acceptance) Verify(ctx context.Context, req *Request) (*Report, error) {
	checks := req.Checks
	if checks == nil && req.Task != nil {
		checks = req.Task.Acceptance
	}
	var seq Sequence
	for _, c := range checks {
		if c.Kind() == "manual" {
			continue
		}
		v, err := FromCheck(c)
		if err != nil {
			return nil, err
		}
		seq = append(seq, v)
	}
	if len(seq) == 0 {
		id := ""
		if req.Task != nil {
			id = req.Task.ID
		}
		return nil, fmt.Errorf("%w: task %q has no check that runs", ErrNoChecks, id)
	}
	return seq.Verify(ctx, req)
}

// FromCheck returns the verifier for one plan check: a [Command] for run and
// sh, a [GoTest] for gotest, a [CMake] for cmake. A manual check never runs:
// it is an error wrapping [ErrNoChecks]; a check of no known kind is an
// [*Error] of [KindUnavailable].
func FromCheck(c task.Check) (Verifier, error) {
	timeout := c.Timeout.Std()
	switch c.Kind() {
	case "run":
		return &Command{Argv: c.Run, Dir: c.Dir, Timeout: timeout}, nil
	case "sh":
		return &Command{Script: c.Sh, Dir: c.Dir, Timeout: timeout}, nil
	case "gotest":
		g := c.GoTest
		return &GoTest{Packages: g.Packages, Flags: g.Flags, MinTests: g.MinTests, Dir: c.Dir, Timeout: timeout}, nil
	case "cmake":
		m := c.CMake
		return &CMake{Preset: m.Preset, BuildDir: m.BuildDir, Config: m.Config, CompilerID: m.CompilerID,
			Dir: c.Dir, Timeout: timeout}, nil
	case "manual":
		return nil, fmt.Errorf("%w: a manual check is for a person", ErrNoChecks)
	}
	return nil, &Error{Kind: KindUnavailable, Err: fmt.Errorf("a check with none of run, sh, gotest, cmake, manual")}
}
