// Package claude is the executor that runs Claude Code, Anthropic's coding
// agent CLI, for one attempt at a task.
//
// [Executor] starts `claude -p --output-format stream-json --verbose` in the
// task's working tree with the prompt on standard input, and Claude Code's
// hooks (given with --settings) pointing back at harnish: every tool call
// passes `harnish hook pre-tool-use --agent claude`, which judges it by the
// plan's guardrails and blocks what must not run; every stop passes `harnish
// hook stop --agent claude`, which runs the task's acceptance checks and
// sends the agent back to work while they fail. It reads Claude Code's event
// stream into an [executor.Result]: the final message as the summary, the
// claim (done, or blocked with "HARNISH-BLOCKED: <reason>"), the files the
// edit tools changed, and the tokens and cost the session reports.
//
// A hook that does not run is not a guard. Each hook call is logged, and a
// command or an edit in the stream that the log does not show is reported as
// a hard violation, "hook.unguarded", which stops the run; what the hooks
// blocked or warned about is reported too. The loop's audit of the diff
// stays as the second line.
//
// A crash, a session that ends in error, a stream that does not parse and a
// hang past the attempt's deadline (the whole process tree is ended) are
// each an [*executor.Error] of the matching kind, with the end of the
// stream and the usage so far; a missing claude or harnish program is
// [executor.KindUnavailable].
//
// Tests drive the real CLI against the scripted Messages API server in
// package claudetest; no test needs a model.
package claude
