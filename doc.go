// Package harnish runs autonomous implementation loops for coding agents.
//
// A plan of phases and tasks goes in. Each task is carried out by a pluggable
// executor (an agent CLI such as Codex or Claude Code, any program, or your
// own code), checked by verifiers that run the acceptance checks themselves,
// held by guardrails and a reviewer, retried within budgets, escalated by
// rule, and paused at milestone gates. The run's state is durable: it
// survives any crash and resumes where it stood.
//
// This root package is the wiring: [Open] builds, from a plan and
// [Options], everything the harnish CLI builds from its flags (the executor,
// reviewer and debugger the plan names, the verifier of the tasks' own
// checks, the edit guardrail, the run's locked state, the experience store,
// the plugins the plan uses) and returns a [Runner] that drives the run and
// owns what it opened. The CLI is a thin layer over it; [Components] is the
// same wiring for a host with a store of its own. The work is in the
// packages:
//
//   - [github.com/harnish/harnish/task]: the plan model, strict YAML/JSON
//     loading and validation (start here).
//   - [github.com/harnish/harnish/loop]: the loop, its outcomes, events,
//     gates and durable run state.
//   - [github.com/harnish/harnish/executor]: the Executor and Debugger
//     interfaces an agent plugs into.
//   - [github.com/harnish/harnish/verify]: Verifier and Reviewer, reports,
//     findings and failure fingerprints.
//   - [github.com/harnish/harnish/guardrail]: the Guardrail interface and its
//     decisions (allow, soft, hard); guardrails fail closed.
//   - [github.com/harnish/harnish/asset]: the experience store the loop
//     queries before an attempt and records to after a task.
//   - [github.com/harnish/harnish/plugins]: out-of-process components over
//     go-plugin.
//   - [github.com/harnish/harnish/telemetry]: OpenTelemetry spans and
//     metrics of a run, to the providers in [Options] (off by default).
//
// The rules of the loop, in short: a task with no acceptance criteria never
// starts (it escalates); each task gets a budget of attempts (default 3) and
// time (default 30m); when a task fails twice with the same failure mode a
// debugger investigates before any further try, and a root cause buys exactly
// one more; a critical review finding sends the task back; every phase
// boundary is a milestone gate; a hard guardrail stops the run at once.
package harnish
