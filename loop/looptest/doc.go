// Package looptest is what you unit-test loop policies with: scripted
// components (executor, verifier, reviewer, debugger, gate), an in-memory
// store, a clock that only moves when asked, and an event recorder.
//
// A test scripts, per task and attempt, what each component does (claim
// done, claim blocked, crash, panic, hang; fail checks with a fingerprint;
// find something critical), runs the loop with [Run], and compares the
// recorded events or the final state with go-cmp. Nothing touches the disk
// or the network unless the test asks for it.
//
// The zero value of every scripted component is the happy path: the
// executor claims done, checks pass, the review finds nothing, the debugger
// finds no root cause, the gate approves.
package looptest
