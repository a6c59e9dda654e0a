package verify

import "github.com/harnish/harnish/schema"

// Finding is one thing a [Reviewer] found in a change; see [schema.Finding].
type Finding = schema.Finding

// Severity ranks a [Finding]; see [schema.Severity].
type Severity = schema.Severity

// The severities, least severe first.
const (
	SeverityLow    = schema.SeverityLow
	SeverityMedium = schema.SeverityMedium
	SeverityHigh   = schema.SeverityHigh
	// SeverityCritical sends the task back to the executor with the findings.
	SeverityCritical = schema.SeverityCritical
)

// ErrInvalidSeverity is the error [ParseSeverity] wraps for a severity that
// is not one of the four.
var ErrInvalidSeverity = schema.ErrInvalidSeverity

// ParseSeverity parses "critical", "high", "medium" or "low"; see
// [schema.ParseSeverity].
func ParseSeverity(s string) (Severity, error) { return schema.ParseSeverity(s) }

// Keys returns the distinct keys of fs, sorted; see [schema.Keys].
func Keys(fs []Finding) []string { return schema.Keys(fs) }
