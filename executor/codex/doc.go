// Package codex is the executor of kind "codex": it runs the Codex CLI
// (codex exec --json) for one attempt at a task and reads its JSONL event
// stream back into an [executor.Result].
//
// Every call gets a fresh, temporary CODEX_HOME, so no user configuration
// leaks in and no session state leaks out. Codex's hooks are set to call
// harnish back: every tool call passes "harnish hook pre-tool-use --agent
// codex" (the guardrails) and every stop passes "harnish hook stop --agent
// codex" (the task's checks). Codex skips hooks it does not trust without a
// word, so the executor trusts them explicitly and, after the run, checks
// the hooks' log against the commands in the stream: a command the hook never
// judged ran unguarded, and is a hard violation that stops the run.
//
// The package codextest is a scripted model server that speaks the Responses
// API, for tests that drive the real CLI without a real model.
package codex
