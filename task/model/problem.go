package model

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel causes carried by a [Problem] that [Plan.Validate] reports, for
// errors.Is. Package task adds the classes of problems reading a file:
// task.ErrSyntax and task.ErrTooLarge. The messages keep the "task:" prefix,
// since package task is where users meet them.
var (
	// ErrSchema: a field is unknown, missing or of the wrong type or value.
	ErrSchema = errors.New("task: schema error")
	// ErrUnsupportedVersion: the plan's schema major is not one this package reads.
	ErrUnsupportedVersion = errors.New("task: unsupported plan version")
	// ErrCycle: tasks depend on each other in a cycle.
	ErrCycle = errors.New("task: dependency cycle")
	// ErrNoAcceptance: a task has no acceptance criteria. It is a warning: the
	// plan loads, and the loop escalates the task instead of starting it.
	ErrNoAcceptance = errors.New("task: no acceptance criteria")
)

// Problem is one thing wrong with a plan, located in its source.
type Problem struct {
	File   string // the plan's file name; empty for a plan built in code
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based; 0 when unknown
	// Field is the path of the field, e.g. "phases[0].tasks[1].budget.attempts";
	// empty for a problem of the whole file.
	Field   string
	Message string
	// Warning marks a problem the plan still runs with.
	Warning bool
	// Err is the class of the problem: one of the sentinel errors above, or
	// task.ErrSyntax or task.ErrTooLarge.
	Err error
}

// Error formats the problem as "file:line:col: field: message".
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
	}
	if p.Line > 0 {
		if p.File != "" {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%d", p.Line)
		if p.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Warning {
		b.WriteString("warning: ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Unwrap returns the problem's class.
func (p Problem) Unwrap() error { return p.Err }

// Problems is the error [Plan.Validate], and package task's Parse and Load,
// report: every problem found, in source order.
type Problems []Problem

// Error lists the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, so errors.Is and errors.As see each one.
func (ps Problems) Unwrap() []error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errs
}

// Errors returns the problems that are not warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the problems that are warnings.
func (ps Problems) Warnings() Problems {
	var out Problems
	for _, p := range ps {
		if p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Err returns ps.Errors() as an error, or nil when there are none.
func (ps Problems) Err() error {
	if errs := ps.Errors(); len(errs) > 0 {
		return errs
	}
	return nil
}
