package hook

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// Command is the word the executors' hook command lines put before the
// event: "PROGRAM hook pre-tool-use|stop --agent claude|codex [--plan FILE]".
// A program that answers hooks passes what follows it to [Handler.Run].
const Command = "hook"

// The exit statuses of a hook, as Claude Code and Codex read them.
const (
	// ExitAllow lets the tool call run, or the agent stop.
	ExitAllow = 0
	// ExitError is a stop hook called with arguments it does not take.
	ExitError = 1
	// ExitBlock refuses the tool call, or the stop; the agent hands the
	// model the standard error as the reason.
	ExitBlock = 2
)

// MaxInput bounds the hook payload read from standard input, in bytes.
const MaxInput = 16 << 20

// Agent is the agent CLI whose hook is answered.
type Agent string

// The agents whose hooks harnish answers. They send the same payloads and
// read the same answers; they differ in what a tool call can do later.
const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
)

// Valid reports whether a is [Claude] or [Codex].
func (a Agent) Valid() bool { return a == Claude || a == Codex }

// Request is one hook call: the payload the agent wrote and what its hook
// command line and environment say. [Handler.Run] fills it from the
// arguments and the HARNISH_* variables the executors set.
type Request struct {
	// Agent is the agent whose hook it is (--agent). Any other value is
	// refused: a pre-tool-use call is blocked, a stop answers [ExitError].
	Agent Agent
	// Input is the hook's JSON payload, at most [MaxInput] bytes. Nil is
	// a payload that does not decode.
	Input io.Reader
	// PlanFile is the plan the call is judged by (--plan). Empty leaves it
	// to [Handler.Plan].
	PlanFile string
	// TaskID is the task of the call (--task, else $HARNISH_TASK_ID): the
	// task a stop holds the agent to, and the Task of the actions a
	// pre-tool-use call judges. Empty leaves the stop to [Handler.Task].
	TaskID string
	// WorkDir is the working tree the call is judged in
	// ($HARNISH_WORKDIR), when it is absolute; else the payload's cwd when
	// that is absolute; else the current directory.
	WorkDir string
	// HookLog is the hook log every answer is appended to
	// ($HARNISH_HOOK_LOG), so the executor that started the agent can tell
	// what was blocked and that the hook ran at all. Empty keeps none.
	HookLog string
}

// Answer is a hook's answer in the protocol Claude Code and Codex share: an
// exit status and text on standard error.
type Answer struct {
	// Code is the exit status: [ExitAllow], [ExitBlock] or [ExitError].
	Code int
	// Message is what goes to standard error: the reason of a block or a
	// refused stop, which the agent shows the model; the warnings of an
	// allowed call. Empty for a plain allow.
	Message string
	// Record is the call's hook log record, whether or not Request.HookLog
	// names a log. Its Event is empty when the call got no record: a stop
	// refused before it was judged (arguments or a payload that do not
	// decode).
	Record guardrail.HookRecord
}

// Call is a hook call as a [Handler] resolved it, handed to its Plan,
// Guardrail and Task funcs. They must not modify it.
type Call struct {
	// Event is [guardrail.HookPreToolUse] or [guardrail.HookStop].
	Event string
	// Agent is the agent whose hook it is.
	Agent Agent
	// Root is the working tree the call is judged in: an absolute path.
	// Paths are protected, and edits judged, relative to it.
	Root string
	// PlanFile and TaskID are the request's.
	PlanFile, TaskID string
	// Plan is the plan the call is judged by: nil when there is none, and
	// while the Plan func runs.
	Plan *task.Plan
	// Tool is the tool call of a pre-tool-use call; nil on a stop.
	Tool *ToolCall
}

// Handler answers the agents' hooks: before each tool call, it judges what
// the call would do with a [guardrail.Guardrail]; when the agent wants to
// stop, it runs the task's checks and refuses the stop while they fail.
//
// The zero Handler answers as harnish hook does: the built-in rules with the
// plan in the working tree, the task's acceptance checks. A Handler is safe
// for concurrent use when its funcs and Verifier are. A panic in any of them
// is recovered and fails closed: the call is blocked, the stop refused.
type Handler struct {
	// Plan finds the plan a call is judged by: its guardrail settings, and
	// on a stop its tasks. A nil plan means none: the default guardrails,
	// and any stop goes. An error blocks the call or refuses the stop. Nil
	// means [FindPlan].
	Plan func(ctx context.Context, c *Call) (*task.Plan, error)
	// Guardrail returns the guardrail that judges the actions of a
	// pre-tool-use call; it is called through [guardrail.EvaluateAll] for
	// each, so a guardrail that errs or panics blocks the call. An error, or
	// a nil guardrail, blocks the call. Nil means [Builtin]; to add rules
	// (a plugin's, say), combine Builtin's guardrail with them in
	// [guardrail.All].
	Guardrail func(ctx context.Context, c *Call) (guardrail.Guardrail, error)
	// Task returns the task a stop holds the agent to, from c.Plan and
	// c.TaskID; nil lets the agent stop. An error refuses the stop. Nil
	// means [FindTask].
	Task func(ctx context.Context, c *Call) (*task.Task, error)
	// Verifier runs the task's checks on a stop. Nil means
	// [verify.Acceptance]: the task's acceptance checks.
	Verifier verify.Verifier
}

// root returns the working tree a hook guards: workDir, which harnish's
// executors set, when it is absolute; else the hook's cwd when it is
// absolute; else the current directory.
func root(workDir, cwd string) (string, error) {
	if workDir != "" && filepath.IsAbs(workDir) {
		return filepath.Clean(workDir), nil
	}
	if cwd != "" && filepath.IsAbs(cwd) {
		return filepath.Clean(cwd), nil
	}
	return os.Getwd()
}

// protect runs f, a call of user code, and returns a panic in it as an
// error.
func protect(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("hook: %s: panic: %v", what, r)
		}
	}()
	return f()
}
