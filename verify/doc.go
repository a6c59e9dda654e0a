// Package verify decides whether a task is done. A [Verifier] runs the task's
// acceptance checks in the working tree and returns a [Report]; a [Reviewer]
// reads the change of a task whose checks passed and returns [Finding]s by
// [Severity].
//
// The loop never takes an agent's word for "done": after every attempt that
// claims it, the loop calls the Verifier itself. A failing report carries a
// [Fingerprint], the failure's class and a hash of its normalized output, so
// the loop can tell a new failure mode (try again, with the failure as input)
// from the same one twice (call the debugger). A passing report goes to the
// Reviewer; a Critical finding sends the task back, and [Finding.Key] lets the
// loop see the same findings come back round after round.
//
// Two outcomes must not be confused. Checks that ran and failed are a report:
// Passed is false and the error is nil; that costs the agent an attempt. A
// verifier that could not produce a report at all (its plugin crashed, its
// tool is missing, its answer does not parse) returns an [*Error]; that is a
// fault of the harness, not of the agent's change.
//
//	loop ─> executor ─ "done" ─> Verifier ─ Report ─┬─ failed: Fingerprint ─> retry / debugger
//	                                                └─ passed ─> Reviewer ─ Findings ─> done / send back
//
// This package holds the contracts and their data; the command, go test -json
// and CMake/CTest verifiers are built on them. It imports task and nothing
// else of harnish.
package verify
