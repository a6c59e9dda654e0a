package task

import "github.com/harnish/harnish/task/model"

// The plan model is defined in package [model], which does no I/O, so that
// the decision core can use it without package task's readers. These names
// are the same types, constants and methods under the names users write.

// Plan is a whole implementation plan: phases of tasks, run in order, with
// the budgets and components that carry them out. See [model.Plan].
type Plan = model.Plan

// Phase is a group of tasks ending at a milestone. See [model.Phase].
type Phase = model.Phase

// Milestone configures the gate at the end of a phase. See [model.Milestone].
type Milestone = model.Milestone

// Task is one unit of work with acceptance criteria. See [model.Task].
type Task = model.Task

// PhaseTask is a task with the phase that holds it. See [model.PhaseTask].
type PhaseTask = model.PhaseTask

// Status is a task's progress as a plan records it. See [model.Status].
type Status = model.Status

// The statuses a plan may record.
const (
	StatusTodo  = model.StatusTodo
	StatusDoing = model.StatusDoing
	StatusDone  = model.StatusDone
)

// Check is one acceptance criterion. See [model.Check].
type Check = model.Check

// GoTestCheck configures a check that runs "go test -json". See
// [model.GoTestCheck].
type GoTestCheck = model.GoTestCheck

// MaxMinTests bounds [GoTestCheck.MinTests].
const MaxMinTests = model.MaxMinTests

// CMakeCheck configures a check that builds a CMake project and runs its
// CTest tests. See [model.CMakeCheck].
type CMakeCheck = model.CMakeCheck

// Advisor configures the advisor and when it is consulted. See
// [model.Advisor].
type Advisor = model.Advisor

// The advisor's points, its stances at a repeated failure, and the task
// risks.
const (
	AdviseAtHighRisk = model.AdviseAtHighRisk
	AdviseAtRepeat   = model.AdviseAtRepeat
	AdviseAtPlateau  = model.AdviseAtPlateau
	RepeatAlongside  = model.RepeatAlongside
	RepeatInstead    = model.RepeatInstead
	RiskLow          = model.RiskLow
	RiskHigh         = model.RiskHigh
)

// Stuck sets the thresholds of the stuck rules. See [model.Stuck].
type Stuck = model.Stuck

// Component configures an executor, debugger or reviewer. See
// [model.Component].
type Component = model.Component

// The component kinds.
const (
	KindCommand = model.KindCommand
	KindPlugin  = model.KindPlugin
	KindCodex   = model.KindCodex
	KindClaude  = model.KindClaude
	KindACP     = model.KindACP
)

// Guardrails holds the plan's guardrail settings. See [model.Guardrails].
type Guardrails = model.Guardrails

// MaxChangedLinesLimit bounds [Guardrails.MaxChangedLines].
const MaxChangedLinesLimit = model.MaxChangedLinesLimit

// TDD configures the test-first rule. See [model.TDD].
type TDD = model.TDD

// The levels of the test-first rule.
const (
	TDDOff  = model.TDDOff
	TDDSoft = model.TDDSoft
	TDDHard = model.TDDHard
)

// Budget limits a task or a run. See [model.Budget].
type Budget = model.Budget

// Budget defaults and bounds.
const (
	DefaultAttempts    = model.DefaultAttempts
	DefaultTaskTimeout = model.DefaultTaskTimeout
	DefaultCycles      = model.DefaultCycles

	MaxAttempts    = model.MaxAttempts
	MaxCycles      = model.MaxCycles
	MinDuration    = model.MinDuration
	MaxTaskTimeout = model.MaxTaskTimeout
	MaxRunTimeout  = model.MaxRunTimeout
)

// Duration is a time.Duration written as a Go duration string ("90s",
// "30m", "1h30m") in plans. See [model.Duration].
type Duration = model.Duration

// SchemaMajor is the plan schema major this package reads.
const SchemaMajor = model.SchemaMajor
