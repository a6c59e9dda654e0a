package verify

// Fingerprint identifies a failure mode: two failures with equal fingerprints
// failed the same way, whatever the run, machine or moment. The loop calls the
// debugger when an attempt fails with the same fingerprint as the attempt
// before it.
type Fingerprint struct {
	// Class is the kind of failure.
	Class FailureClass
	// Hash is a hex digest of the failing output, normalized so that nothing
	// incidental changes it: no timestamps, durations, temporary paths,
	// addresses, or line and column numbers.
	Hash string
	// Summary says in one line what failed, for people and prompts; it is not
	// part of the identity.
	Summary string
}

// IsZero reports whether f identifies no failure.
func (f Fingerprint) IsZero() bool {
	return f.Class == ClassNone && f.Hash == ""
}

// Same reports whether f and g identify the same failure mode: equal class and
// hash, and not zero. Summaries are not compared.
func (f Fingerprint) Same(g Fingerprint) bool {
	return !f.IsZero() && f.Class == g.Class && f.Hash == g.Hash
}

// String returns "class:hash", or "none" for the zero Fingerprint.
func (f Fingerprint) String() string {
	if f.IsZero() {
		return "none"
	}
	return string(f.Class) + ":" + f.Hash
}

// FailureClass says what kind of failure a fingerprint identifies.
type FailureClass string

// The failure classes.
const (
	// ClassNone is the zero class: no failure.
	ClassNone FailureClass = ""
	// ClassCompile: the code does not build.
	ClassCompile FailureClass = "compile"
	// ClassTest: it builds, and tests fail (or none ran where some must).
	ClassTest FailureClass = "test"
	// ClassLint: a linter, vet or formatter check fails.
	ClassLint FailureClass = "lint"
	// ClassTimeout: a check ran out of time.
	ClassTimeout FailureClass = "timeout"
	// ClassInfra: a check could not run for reasons outside the change (a
	// missing tool, a full disk, a network fault).
	ClassInfra FailureClass = "infra"
)
