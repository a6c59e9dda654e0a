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
// # The sandbox
//
// Unless [Executor.Bypass] is set, the agent's commands and patches run in
// Codex's sandbox (workspace-write by default, see [Executor.Sandbox]). On
// Linux that is bubblewrap (as of Codex 0.169.0): a system bwrap when one
// is on PATH (Debian's bubblewrap package, which Flatpak brings along), else
// the copy Codex ships. Both work with the layout the executor gives each run: a fresh
// temporary directory holding CODEX_HOME and, beside it, a TMPDIR of the
// run's own (both removed when the run ends). The layout matters: Codex
// will not make its helper links (codex-linux-sandbox, apply_patch) in a
// CODEX_HOME inside its temp directory, and a bubblewrap older than 0.9
// (no --argv0; Debian 12 has 0.8) starts the sandbox's inner stage through
// that helper, so with CODEX_HOME under TMPDIR every sandboxed command
// failed.
//
// Bubblewrap must create user namespaces, which containers and Ubuntu's
// AppArmor rules (kernel.apparmor_restrict_unprivileged_userns) can forbid.
// Then the sandbox cannot start and no command or patch gets through; Codex
// only tells the model. So when a command's output is bubblewrap's own
// error, or a patch failed (Codex says no more), the executor starts the
// sandbox itself ("codex sandbox -- true", about a second) to see. If that
// fails too, it stops Codex and returns an [*executor.Error] of kind
// unavailable (not retried: the loop ends with outcome error) whose cause
// is a [*SandboxError] with what bubblewrap said. On a host that is a
// sandbox itself, set Bypass instead.
//
// The package codextest is a scripted model server that speaks the Responses
// API, for tests that drive the real CLI without a real model.
package codex
