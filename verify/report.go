package verify

import "time"

// Report is the outcome of a verification.
type Report struct {
	// Passed reports whether every check passed.
	Passed bool
	// Checks holds one result per check run, in the order they ran. A
	// verifier may stop at the first failing check.
	Checks []CheckResult
	// Fingerprint identifies the failure; the zero value when Passed.
	Fingerprint Fingerprint
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	// Name is how the check is shown: its argv joined, its script, or a name
	// the verifier gives it, e.g. "go test ./calc/...".
	Name string
	// Stage names the step of a check that has several (a CMake check's
	// "configure", "build", "list" and "test"); empty otherwise.
	Stage string
	// Argv is what ran, after any expansion (e.g. ["sh", "-c", script]),
	// with secrets masked.
	Argv []string
	// Dir is the directory it ran in, relative to the working tree's root.
	Dir string
	// ExitCode is the process's exit status; -1 when it did not exit on its
	// own (killed on timeout, never started).
	ExitCode int
	// Duration is how long the check ran.
	Duration time.Duration
	// OutputTail is the end of its combined output, raw (not normalized).
	OutputTail string
	// TestsRun, TestsPassed, TestsFailed and TestsSkipped count tests, for
	// checks that report them (go test -json, CTest); zero otherwise.
	TestsRun     int
	TestsPassed  int
	TestsFailed  int
	TestsSkipped int
	// Passed reports whether the check passed.
	Passed bool
}
