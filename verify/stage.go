package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// DefaultTimeout bounds a check that sets no timeout of its own.
const DefaultTimeout = 10 * time.Minute

// stage is one process of a check: a command check has one, a CMake check
// four.
type stage struct {
	check  string // the check's name
	stage  string // "" for a single-stage check
	argv   []string
	dir    string // relative to the root
	env    []string
	stdin  io.Reader
	stdout io.Writer // also gets the whole of stdout
}

// outcome is what a stage did.
type outcome struct {
	result CheckResult
	run    *proc.Result
	// class is ClassTimeout or ClassInfra when the run itself decides the
	// class (it ran out of time, it could not start); empty otherwise.
	class FailureClass
}

// runStage runs st in the working tree root, by the deadline. A non-nil
// error means ctx was done: verification stops, and the error wraps
// context.Cause(ctx).
func runStage(ctx context.Context, root string, deadline time.Time, st stage) (outcome, error) {
	timeout := time.Until(deadline)
	if timeout <= 0 {
		timeout = time.Nanosecond // already out of time: a timeout, not "no limit"
	}
	res, err := proc.Run(ctx, proc.Spec{Stage: st.stage, Argv: st.argv, Root: root, Dir: st.dir,
		Env: st.env, Stdin: st.stdin, Stdout: st.stdout, Timeout: timeout})
	name := st.check
	if st.stage != "" {
		name += " (" + st.stage + ")"
	}
	o := outcome{run: res, result: CheckResult{
		Name:       name,
		Stage:      st.stage,
		Argv:       proc.MaskArgv(st.argv),
		Dir:        cleanDir(st.dir),
		ExitCode:   res.ExitCode,
		Duration:   res.Duration,
		OutputTail: res.Output,
		Passed:     err == nil,
	}}
	pe, _ := errors.AsType[*proc.Error](err)
	switch {
	case err == nil:
	case pe == nil:
		return o, fmt.Errorf("verify: check %q: %w", name, err) // not expected of proc.Run
	case pe.Kind == proc.KindCanceled:
		return o, fmt.Errorf("verify: check %q: %w", name, err)
	case pe.Kind == proc.KindTimeout:
		o.class = ClassTimeout
		o.result.OutputTail = appendLine(res.Output, "harnish: "+pe.Error())
	case pe.Kind == proc.KindStart || pe.Kind == proc.KindConfined:
		o.class = ClassInfra
		o.result.OutputTail = appendLine(res.Output, "harnish: "+pe.Error())
	}
	return o, nil
}

// fingerprint identifies the failure of a stage: class (the outcome's own
// if it has one), and a hash of key with the root's path taken out.
func (o outcome) fingerprint(class FailureClass, root, key, summary string) Fingerprint {
	if o.class != "" {
		class = o.class
	}
	return NewFingerprint(class, stripRoot(key, root, o.run.Dir, o.result.Dir), summary)
}

// stripRoot replaces the working tree's path (as given, and as the check's
// directory resolved it) with <root>, so a failure reads the same wherever
// the tree is.
func stripRoot(s, root, absDir, relDir string) string {
	var roots []string
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			roots = append(roots, abs)
		}
	}
	if absDir != "" && relDir != "" {
		if r, ok := strings.CutSuffix(filepath.ToSlash(absDir), "/"+relDir); ok {
			roots = append(roots, filepath.FromSlash(r))
		} else if relDir == "." {
			roots = append(roots, absDir)
		}
	}
	for _, r := range roots {
		if len(r) > 1 {
			s = strings.ReplaceAll(s, r, "<root>")
		}
	}
	return s
}

// summaryLine returns the last line of output that says something, cut to
// a readable length.
func summaryLine(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

func appendLine(s, line string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + line
}

func cleanDir(dir string) string {
	if dir == "" {
		return "."
	}
	return filepath.ToSlash(filepath.Clean(dir))
}

func checkDeadline(timeout time.Duration) time.Time {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return time.Now().Add(timeout)
}

// envList returns m as KEY=VALUE pairs, sorted, so a run is the same each time.
func envList(m map[string]string) []string {
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}
