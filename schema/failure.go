package schema

import (
	"fmt"
	"strings"
)

// Failure is how one attempt failed. It is both the durable record the
// decision core keeps (two strikes compare fingerprints, a review plateau
// compares keys) and what the next prompt and the debugger are told, so a
// resume after a crash tells the agent exactly what it would have been told.
// Its JSON form is what a command debugger reads.
type Failure struct {
	Attempt int         `json:"attempt"`
	Kind    FailureKind `json:"kind,omitempty"`
	// Class is the fingerprint's class: compile, test, lint, timeout, infra;
	// for an executor's failure, the [Kind] of its error.
	Class string `json:"class,omitempty"`
	// Fingerprint identifies the failure mode; two consecutive attempts with
	// the same non-empty fingerprint are two strikes.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Reason says in words what failed.
	Reason string `json:"reason,omitempty"`
	// OutputTail is the end of the failing output: the failing check's, or
	// the agent's when the executor failed.
	OutputTail string `json:"output_tail,omitempty"`
	// Keys are the stable keys ([Finding.Key]) of the critical findings of a
	// review failure, and Findings the findings themselves.
	Keys     []string  `json:"keys,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	// Warnings are the soft guardrail decisions made during the attempt.
	Warnings []Violation `json:"warnings,omitempty"`
	// Was is the fingerprint of a stuck failure before its pattern was
	// recognized (see [FailStuck]): what its checks said.
	Was string `json:"was,omitempty"`
	// Unchanged says the attempt left the working tree as it found it; false
	// when it changed something or the tree could not be read.
	Unchanged bool `json:"unchanged,omitempty"`
}

// FailureKind says which stage failed an attempt.
type FailureKind string

// The failure kinds.
const (
	// FailVerify: the acceptance checks failed.
	FailVerify FailureKind = "verify"
	// FailReview: the checks passed but the review found something critical.
	FailReview FailureKind = "review"
	// FailBlocked: the executor claimed it is blocked: the attempt counts,
	// and the task stops for a person.
	FailBlocked FailureKind = "blocked"
	// FailExecutor: the executor itself failed: crashed, timed out, or gave an
	// answer that does not parse.
	FailExecutor FailureKind = "executor"
	// FailGuardrail: a soft guardrail objected to the change.
	FailGuardrail FailureKind = "guardrail"
	// FailInterrupted: a crash of the host cut the attempt off.
	FailInterrupted FailureKind = "interrupted"
	// FailStuck: the attempt went round in circles: the agent ran the same
	// command with the same result again and again, or talked turn after
	// turn without acting (the attempt ended early), or the attempts
	// before it made no progress or alternated between two failures.
	FailStuck FailureKind = "stuck"
)

// Describe says in words how the attempt failed: its kind and reason, or
// its fingerprint.
func (f Failure) Describe() string {
	switch {
	case f.Reason != "" && f.Kind == "":
		return f.Reason
	case f.Reason != "":
		return string(f.Kind) + ": " + f.Why()
	case f.Fingerprint != "":
		return fmt.Sprintf("%s failure %s", f.Kind, f.Fingerprint)
	}
	return strings.TrimSpace(string(f.Kind) + " failure")
}

// Why is the failure's reason without a leading "KIND: " that the error it
// came from already carried.
func (f Failure) Why() string {
	return strings.TrimPrefix(f.Reason, string(f.Kind)+": ")
}
