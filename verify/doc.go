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
// fault of the harness, not of the agent's change. The error says whether
// running it again may help ([schema.Error.Retryable]); the loop follows it.
//
//	loop ─> executor ─ "done" ─> Verifier ─ Report ─┬─ failed: Fingerprint ─> retry / debugger
//	                                                └─ passed ─> Reviewer ─ Findings ─> done / send back
//
// A verifier whose context is done returns an error wrapping
// [context.Cause]: neither a report nor an [*Error], since the run is ending
// anyway.
//
// # Verifiers
//
// [Acceptance] is the verifier a loop uses by default: it builds one
// verifier per check of the task ([FromCheck]) and runs them as a
// [Sequence], which stops at the first that fails. The built-in verifiers
// run programs through harnish's process runner: argv only (a shell only for
// an explicit sh check), the working directory confined to the working tree
// (no "..", no symlink leading out), the whole process tree ended on timeout
// or cancel, the last 8,000 characters of output kept in constant memory,
// and HARNISH_VERIFY=1 in the environment of every check.
//
//   - [Command] runs an argv or an sh script and passes on exit 0.
//   - [GoTest] runs go test -json, counts tests run, passed, failed and
//     skipped ([GoTestParser]), and fails when none ran.
//   - [CMake] configures, builds, requires CTest to list a test
//     ([ParseCTestList]) and runs the tests ([ParseCTestOutput]), with
//     presets and an optional compiler check.
//
// Package verifytest holds the conformance suite any verifier can run.
//
// # Fingerprints
//
// [NewFingerprint] hashes a failure's output after [Normalize] has removed
// what differs between runs (times, durations, temporary paths, addresses,
// line and column numbers, goroutine numbers, random IDs); [Classify] guesses
// the [FailureClass] when a verifier does not know it. A corpus of real tool
// output in testdata/corpus shows reruns agree and different failures do not.
//
// # Reviewers
//
// [CommandReviewer] runs a program that reads a [ReviewInput] on stdin and
// prints findings as JSON ([ParseReview]); [VetReviewer] turns go vet
// diagnostics into findings ([ParseVetJSON]).
//
// This package imports task and nothing else of harnish but its internal
// process runner.
package verify
