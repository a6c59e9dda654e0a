package guardrail

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Decision is a guardrail's verdict on an action. The zero Decision allows.
// Its JSON form is what harnish guard check --json prints.
type Decision struct {
	Level Level `json:"level"`
	// Rule is the stable ID of the rule that decided, e.g. "shell.rm-root" or
	// "edit.protected"; events, audit logs and tests key on it. Empty for
	// [Allow].
	Rule string `json:"rule,omitempty"`
	// Reason says why, in words the agent is shown.
	Reason string `json:"reason,omitempty"`
	// Match is the offending part of the input, when the rule has one: the
	// command as written, the package, the path. Empty for [Allow].
	Match string `json:"match,omitempty"`
}

// Level is how severe a [Decision] is. Greater is more severe, so levels
// compare with < and >.
type Level int

// The levels, least severe first.
const (
	// Allow lets the action go ahead. It is the zero Level.
	Allow Level = iota
	// Soft lets the action go ahead, records a warning and tells the agent.
	Soft
	// Hard blocks the action and stops the loop. It is never retried.
	Hard
)

// ErrInvalidLevel is the error [ParseLevel] and [Level.MarshalText] wrap for a
// level that is not one of the three.
var ErrInvalidLevel = errors.New("guardrail: invalid level")

var levelNames = [...]string{Allow: "allow", Soft: "soft", Hard: "hard"}

// Valid reports whether l is one of the three levels.
func (l Level) Valid() bool { return l >= Allow && l <= Hard }

// String returns "allow", "soft" or "hard"; "level(N)" for anything else.
func (l Level) String() string {
	if !l.Valid() {
		return "level(" + strconv.Itoa(int(l)) + ")"
	}
	return levelNames[l]
}

// ParseLevel parses "allow", "soft" or "hard", ignoring case and surrounding
// space. Anything else is an error wrapping [ErrInvalidLevel].
func ParseLevel(s string) (Level, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for l := Allow; l <= Hard; l++ {
		if levelNames[l] == name {
			return l, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrInvalidLevel, s)
}

// MarshalText writes the lowercase name.
func (l Level) MarshalText() ([]byte, error) {
	if !l.Valid() {
		return nil, fmt.Errorf("%w %d", ErrInvalidLevel, int(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText parses a name as [ParseLevel] does.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}
