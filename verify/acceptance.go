package verify

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/harnish/harnish/task"
)

// Acceptance is the [Verifier] that runs a task's acceptance checks: the
// request's Checks, or when those are nil the task's Acceptance, each built
// by [FromCheck] (a plugin check by its verifier in Plugins), in order,
// stopping at the first that fails. Manual checks are skipped; a request
// with nothing else to run is an error wrapping [ErrNoChecks]. The zero
// value is ready to use and safe for concurrent use.
type Acceptance struct {
	// Plugins are the verifiers of the checks of kind plugin, by the
	// plugin's name; a check naming one not here is an [*Error] of
	// [KindUnavailable]. The host starts them (package plugins).
	Plugins map[string]Verifier
}

// Verify runs the request's checks.
func (a Acceptance) Verify(ctx context.Context, req *Request) (*Report, error) {
	checks := req.Checks
	if checks == nil && req.Task != nil {
		checks = req.Task.Acceptance
	}
	var seq Sequence
	for _, c := range checks {
		if c.Kind() == "manual" {
			continue
		}
		if c.Kind() == "plugin" {
			v, ok := a.Plugins[c.Plugin]
			if !ok {
				return nil, &Error{Kind: KindUnavailable, Check: "plugin " + c.Plugin,
					Err: fmt.Errorf("no verifier plugin %q is started for this run", c.Plugin)}
			}
			seq = append(seq, &pluginCheck{v: v, check: c})
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

// pluginCheck runs a verifier plugin for one check: the request names the
// check alone, in its directory, within its timeout.
type pluginCheck struct {
	v     Verifier
	check task.Check
}

func (p *pluginCheck) Verify(ctx context.Context, req *Request) (*Report, error) {
	r := *req
	r.Checks = []task.Check{p.check}
	if d := p.check.Dir; d != "" {
		r.WorkDir = filepath.Join(cmp.Or(req.WorkDir, "."), filepath.FromSlash(d))
	}
	if t := p.check.Timeout.Std(); t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t, fmt.Errorf("the check's timeout (%s) ran out", t))
		defer cancel()
	}
	return p.v.Verify(ctx, &r)
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
	case "plugin":
		return nil, &Error{Kind: KindUnavailable, Check: "plugin " + c.Plugin,
			Err: fmt.Errorf("a plugin check runs through the host's plugins (Acceptance.Plugins)")}
	}
	return nil, &Error{Kind: KindUnavailable, Err: fmt.Errorf("a check with none of run, sh, gotest, cmake, manual, plugin")}
}
