package executor

import (
	"time"

	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

// Request is one attempt at a task. The loop builds a new Request for every
// attempt; an Executor treats it as read-only.
//
// Every field is set by the loop. For code that builds a Request by hand (a
// test, an embedding host), the zero value of each field says what it means.
type Request struct {
	// Task is the task to carry out. It must not be nil.
	Task *task.Task
	// PhaseID is the ID of the phase that holds the task.
	PhaseID string
	// Attempt numbers the attempts of this task from 1, over every kind of
	// attempt (a failed check, a Critical review sent back, a timeout, a
	// blocked claim, a debugger-guided retry). It is what HARNISH_ATTEMPT
	// carries. Zero is not a valid attempt number.
	Attempt int
	// WorkDir is the absolute path of the working tree's root, where the agent
	// runs and makes its changes. Empty means the process's current directory.
	WorkDir string
	// Prompt is the prompt assembled from Parts, ready to hand to an agent.
	// An executor that renders its own prompt may use Parts instead.
	Prompt string
	// Parts are the structured inputs Prompt was assembled from.
	Parts PromptParts
	// Limits bounds the attempt. The zero value sets no limit beyond ctx.
	Limits Limits
	// Watch, when set, is told what the agent does as it goes, by the
	// executors that read the agent's event stream: each command it ran to
	// its end and each of its turns. The loop watches for an agent going
	// round in circles and ends the attempt (through ctx) when it is. It is
	// safe to call from any goroutine and returns at once.
	Watch func(Activity)
	// Env holds variables the host adds to the agent's environment for this
	// attempt, such as TRACEPARENT and TRACESTATE naming the attempt's span
	// (see package telemetry), so a host that traces its agent sees one
	// trace. They win over the executor's own Env and lose to the HARNISH_*
	// variables. Nil: none.
	Env map[string]string
	// Transcript is the file the host wants the attempt's transcript in:
	// JSON lines, the agent's own stream line by line (a line that is not
	// JSON wrapped as {"harnish":"stdout","line":...}), bounded in size,
	// and a last line {"harnish":"exit","exit_code":N,"stderr":...}. An
	// executor that keeps transcripts writes there (and names it in
	// Result.Transcript) in place of its own directory; one that keeps none
	// ignores it. Empty: the executor's own setting.
	Transcript string
}

// Activity is one thing an agent did within an attempt, as its executor
// reads it from the agent's event stream.
type Activity struct {
	// Command is a command the agent ran to its end, and Result what came
	// of it: its exit status and output, in any form that is the same for
	// the same outcome. Empty for a turn.
	Command, Result string
	// Turn marks the end of one of the agent's turns (a model response);
	// Acted says it called a tool.
	Turn, Acted bool
}

// Tell passes a to r.Watch, when it is set.
func (r *Request) Tell(a Activity) {
	if r.Watch != nil {
		r.Watch(a)
	}
}

// Limits bounds one attempt. The context passed to Execute carries the same
// deadline and is what enforces it; these fields exist so an executor can tell
// an agent or a child process what it has left, across boundaries a context
// does not cross.
type Limits struct {
	// Deadline is when the attempt must be over: the earlier of the task's and
	// the run's time left. The zero value means no deadline beyond ctx.
	Deadline time.Time
	// Tokens is the number of tokens left in the run's budget. Zero means no cap.
	Tokens int64
	// CostUSD is the spend left in the run's budget, in US dollars. Zero means
	// no cap.
	CostUSD float64
}

// PromptParts are the inputs of a prompt, kept apart so an executor can render
// them its own way and a test can check them without parsing text. Every field
// is optional; the zero value is the first attempt of a task with nothing to
// carry over.
type PromptParts struct {
	// Spec is the task rendered as text by [Spec]: title, objective, scope
	// and acceptance checks.
	Spec string
	// Prohibitions are what the agent must not do, one line each, as
	// [Prohibitions] words a plan's guardrails.
	Prohibitions []string
	// Handoffs are notes left by the tasks this one depends on, in plan order.
	Handoffs []Handoff
	// Failures are the previous failed attempts of this task, oldest first.
	Failures []Failure
	// Findings are the reviewer findings that sent the last attempt back.
	Findings []Finding
	// Diagnosis is the debugger's root cause and fix, for the one attempt that
	// follows a two-strike failure; nil otherwise.
	Diagnosis *Diagnosis
	// Advice is the advisor's PLAN or CORRECTION for this attempt, when it
	// was consulted just before; nil otherwise. A PLAN opens the prompt.
	Advice *Advice
	// Warnings are the soft guardrail decisions of earlier attempts, so the
	// agent can avoid what triggered them.
	Warnings []Violation
	// Assets are the experience records injected for the task's tags.
	Assets []Asset
	// Context are the project's context files the plan names (see
	// [ReadContext]), read at each attempt.
	Context []ContextFile
	// Progress says where the task stands in the plan: "Task 3 of 12, in
	// phase p1 (API)".
	Progress string
	// Done are the tasks done before this one in the run, in plan order,
	// each with its summary's first line.
	Done []TaskSummary
}

// TaskSummary is one line about a task done.
type TaskSummary struct {
	TaskID string
	Title  string
	// Line is the first line of what the task's agent said it did.
	Line string
}

// Handoff is what a finished task left for the tasks after it.
type Handoff struct {
	// TaskID is the ID of the task that wrote the handoff.
	TaskID string
	// Text is the handoff itself: what was done and what to know.
	Text string
}

// Failure is one failed attempt, as the loop keeps it and the prompt and the
// [Debugger] see it; see [schema.Failure]. Its JSON form is what a command
// debugger reads.
type Failure = schema.Failure

// Finding is one reviewer finding; see [schema.Finding].
type Finding = schema.Finding

// Asset is an experience record injected into the prompt.
type Asset struct {
	// Type is an asset.Type name: "failure", "pattern", "guardrail",
	// "decision" or "snippet".
	Type  string
	Slug  string
	Title string
	// Text is the asset rendered for the prompt.
	Text string
}
