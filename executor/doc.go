// Package executor defines how the loop hands a task to a coding agent and
// what it gets back: the [Executor] that carries out one attempt, and the
// [Debugger] that investigates a failure that repeated.
//
// An executor is anything that can change a working tree towards a task's
// objective: an agent CLI (Codex, Claude Code), a program given in the plan
// (kind "command"), a plugin, or plain Go code in an embedding host. The loop
// calls it once per attempt with a [Request] that carries the task, the
// attempt number, the working directory, the assembled prompt and its
// structured [PromptParts] (the task's spec, handoffs from earlier tasks,
// previous failures with their fingerprints, reviewer findings, a debugger
// diagnosis, soft guardrail warnings and injected assets), and the limits left.
//
// The [Result] is a claim, not a verdict. [StatusDone] asks the loop to verify
// the change; the loop then runs the task's acceptance checks itself, and only
// they decide that the task is done. [StatusBlocked] says the agent needs a
// person, with a reason. An error from Execute means the attempt itself failed
// to run (the agent crashed, timed out, or answered something that does not
// parse); it counts as a failed attempt, and its [*Error] says whether another
// attempt may help.
//
// Where it fits:
//
//	loop ─ Request ─> Executor ─ Result (claim) ─> verify ─> review ─> done
//	                     ^                            │ same fingerprint twice
//	                     └── Diagnosis <─ Debugger <──┘
//
// This package holds only the contracts and their data; the executors that
// run programs and agent CLIs are built on them. It imports task and nothing
// else of harnish, so an executor can be written, tested and shipped as a
// plugin without pulling in the loop or the verifiers. For the same reason
// the failures and findings in a prompt are plain data here rather than the
// verify package's types: the loop converts them.
package executor
