package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Severity ranks a [Finding]. Greater is more severe, so severities compare
// with < and >. The zero Severity is not a valid severity: a finding must say
// how bad it is.
type Severity int

// The severities, least severe first.
const (
	SeverityLow Severity = iota + 1
	SeverityMedium
	SeverityHigh
	// SeverityCritical sends the task back to the executor with the findings.
	SeverityCritical
)

// ErrInvalidSeverity is the error [ParseSeverity] and [Severity.MarshalText]
// wrap for a severity that is not one of the four.
var ErrInvalidSeverity = errors.New("invalid severity")

var severityNames = [...]string{
	SeverityLow:      "low",
	SeverityMedium:   "medium",
	SeverityHigh:     "high",
	SeverityCritical: "critical",
}

// Valid reports whether s is one of the four severities.
func (s Severity) Valid() bool {
	return s >= SeverityLow && s <= SeverityCritical
}

// String returns "critical", "high", "medium" or "low"; "severity(N)" for
// anything else.
func (s Severity) String() string {
	if !s.Valid() {
		return "severity(" + strconv.Itoa(int(s)) + ")"
	}
	return severityNames[s]
}

// ParseSeverity parses "critical", "high", "medium" or "low", ignoring case and
// surrounding space. Anything else is an error wrapping [ErrInvalidSeverity].
func ParseSeverity(s string) (Severity, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for sev := SeverityLow; sev <= SeverityCritical; sev++ {
		if severityNames[sev] == name {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrInvalidSeverity, s)
}

// MarshalText writes the lowercase name. An invalid severity is an error
// rather than a name no reader would accept.
func (s Severity) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("%w %d", ErrInvalidSeverity, int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText parses a name as [ParseSeverity] does.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
