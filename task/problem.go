package task

import (
	"errors"

	"github.com/harnish/harnish/task/model"
)

// Sentinel causes carried by a [Problem], for errors.Is. ErrSyntax and
// ErrTooLarge are problems of reading a file; the others are the plan
// model's, the same values as [model.ErrSchema] and its siblings.
var (
	// ErrSyntax: the file is not well-formed YAML or JSON.
	ErrSyntax = errors.New("task: syntax error")
	// ErrSchema: a field is unknown, missing or of the wrong type or value.
	ErrSchema = model.ErrSchema
	// ErrUnsupportedVersion: the plan's schema major is not one this package reads.
	ErrUnsupportedVersion = model.ErrUnsupportedVersion
	// ErrCycle: tasks depend on each other in a cycle.
	ErrCycle = model.ErrCycle
	// ErrNoAcceptance: a task has no acceptance criteria. It is a warning: the
	// plan loads, and the loop escalates the task instead of starting it.
	ErrNoAcceptance = model.ErrNoAcceptance
	// ErrTooLarge: the plan is larger than [MaxPlanSize].
	ErrTooLarge = errors.New("task: plan too large")
)

// Problem is one thing wrong with a plan, located in its source: file, line,
// column and field path. See [model.Problem].
type Problem = model.Problem

// Problems is the error [Parse], [Load] and [Plan.Validate] report: every
// problem found, in source order. See [model.Problems].
type Problems = model.Problems
