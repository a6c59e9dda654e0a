// Package policy is harnish's decision core: the rules of the loop, the run
// state they act on, and the protocol a host follows to carry them out. It
// does no I/O and reads no clock (time comes in), so the CLI's loop, a
// Temporal workflow and a unit test drive the same rules and get the same
// answers.
//
// The rules: a task whose dependencies are not done does not start, and a
// task with no acceptance criteria never starts (checked at every transition
// into an attempt); attempts and time are budgeted per task, cycles, time,
// tokens and cost per run; the same failure twice brings the debugger, whose
// root cause buys exactly one more attempt; a critical review sends the task
// back, and the same findings three rounds running escalate it; a hard
// guardrail stops the run at once; every phase boundary is a milestone gate
// unless the plan says otherwise, and a phase with manual acceptance items is
// always one.
//
// # The protocol
//
// The state changes only by [RunState.Apply] of [Transition]s, which a host
// makes durable first. [Policy.Next] decides from the state at rest: the
// transitions to commit, then the steps to take (an attempt, the debugger, a
// gate, or the end). The host takes each step and reports what came of it
// with [Policy.ObserveAttempt], [Policy.ObserveVoid],
// [Policy.ObserveDiagnosis], [Policy.ObserveNoDebugger] or
// [Policy.ObserveGate], which return the transitions recording it; then it
// asks Next again. [Policy.Drive] runs that protocol over a [Host]. Resuming
// after a crash is asking Next again: an attempt started and never reported
// counts as cut off.
package policy
