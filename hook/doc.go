// Package hook answers the hooks of the agent CLIs harnish runs, Claude Code
// and Codex, in their own protocol. Their executors (executor/claude,
// executor/codex) start the agent with hooks that run
//
//	PROGRAM hook pre-tool-use --agent claude|codex [--plan FILE]
//	PROGRAM hook stop --agent claude|codex [--plan FILE]
//
// where PROGRAM is the executor's Harnish field: harnish, harnish-hook, or
// an embedder's own binary whose main hands those arguments to
// [Handler.Run]. So an embedder answers its agents' hooks with its own
// guardrails, plugins included, and needs no harnish on PATH.
//
// Before each tool call, [Handler.PreToolUse] reads the call
// ([ParseToolCall]), turns it into guardrail actions ([ToolCall.Actions]: a
// shell command with its shell and the packages it installs; an edit per
// file, with the change as a diff where the payload tells it) and judges
// each with the Handler's [guardrail.Guardrail], failing closed: a call it
// cannot judge, and a guardrail that errs or panics, block it. A hard
// decision blocks the call (exit status 2, the reason on standard error,
// which the agent shows the model); soft ones are warnings.
//
// When the agent wants to stop, [Handler.Stop] runs the current task's
// checks and refuses the stop while they fail, a few times per attempt.
//
// Every answer is appended to the hook log ($HARNISH_HOOK_LOG,
// [guardrail.HookRecord]): the executor reads it back to learn what was
// blocked and that the hook ran at all, since an agent can skip a hook
// silently.
//
// The zero [Handler] judges by [Builtin], harnish's own command and edit
// rules with the plan in the working tree ([FindPlan]), and runs the task's
// acceptance checks; that is what harnish hook does. To judge by more,
// give it a Guardrail func that combines Builtin's guardrail with others in
// [guardrail.All].
//
// This package links no plugin host (gRPC, go-plugin): cmd/harnish-hook,
// which an agent starts before every tool call, stays small and fast.
package hook
