// Package acp is the executor for any coding agent that speaks the Agent
// Client Protocol (ACP: JSON-RPC 2.0 over the agent's stdio): Gemini CLI
// natively, Claude Code and Codex through Zed's adapters (claude-code-acp,
// codex-acp), or any other agent given by its command.
//
// Where the CLI executors (executor/claude, executor/codex) rely on an
// agent's hooks calling back into harnish, an ACP agent asks its client,
// harnish, before each tool call (session/request_permission), and may hand
// it its file reads and writes (fs/read_text_file, fs/write_text_file) and
// its commands (terminal/*). The [Executor] mediates all of them in
// process:
//
//   - a permission request is judged by the plan's guardrail, as the hooks
//     judge a tool call: a hard decision rejects the call and stops the run,
//     a soft one allows it and is recorded as a warning;
//   - a file write is confined to the working tree and its new content
//     judged (secrets, protected paths) before it reaches the disk; every
//     write is recorded;
//   - a terminal command is judged, then run by harnish's process runner in
//     a process group of its own, bounded in time and output, and killed on
//     release, on cancel and when the attempt ends.
//
// An agent that runs a tool itself without asking (Codex's commands and
// patches, Gemini's shell) is configured to ask; a command or edit seen in
// the session's updates that was neither asked about nor carried out by
// harnish ran unguarded, and is a hard violation ([RuleUnguarded]), as for
// the hook executors. The loop's diff audit after the attempt stays.
//
// Each attempt starts the agent afresh with an empty HOME, opens one
// session in the task's working tree and sends the assembled prompt. When
// the turn ends, or the attempt's context is done (the task's budget,
// harnish stop), the session is cancelled (session/cancel), the agent gets
// SIGTERM and then SIGKILL with its process group, and whatever it left
// behind outside the group (Codex's orphans) is found by a mark in its
// environment and killed.
//
// The profiles for Gemini CLI, claude-code-acp and codex-acp ([Lookup])
// supply the flags, environment and workarounds each needs; a plan says
// executor: {kind: acp, agent: gemini}, or gives the command of any other
// ACP agent as argv.
package acp
