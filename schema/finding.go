package schema

import (
	"path"
	"slices"
	"strings"
	"unicode"
)

// Finding is one thing a reviewer found in a change. Its JSON form is the
// one a reviewer program prints.
type Finding struct {
	Severity Severity `json:"severity"`
	// File is the path the finding is about, relative to the working tree's
	// root; empty for a finding about the change as a whole.
	File string `json:"file,omitempty"`
	// Line is 1-based; 0 when the finding is about the whole file.
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Rule is the reviewer's stable ID for the kind of finding, if it has one.
	Rule string `json:"rule,omitempty"`
}

// Key returns a stable identity for the finding, so the loop can tell when
// the same findings come back after another attempt: the severity, the file
// (slash-separated, cleaned), and the rule when there is one, otherwise the
// message normalized (lowercase, runs of digits and of space collapsed,
// trailing sentence punctuation dropped). The line number is left out, because fixing
// code above a finding moves it without resolving it; for the same reason
// digits in the message do not count.
//
// Two findings with the same rule in the same file share a key.
func (f Finding) Key() string {
	what := "rule:" + strings.ToLower(strings.TrimSpace(f.Rule))
	if strings.TrimSpace(f.Rule) == "" {
		what = "msg:" + normalizeMessage(f.Message)
	}
	return f.Severity.String() + "|" + CleanPath(f.File) + "|" + what
}

// Keys returns the distinct keys of fs, sorted: two rounds of review found
// the same things when their keys are equal.
func Keys(fs []Finding) []string {
	keys := make([]string, 0, len(fs))
	for _, f := range fs {
		keys = append(keys, f.Key())
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// CleanPath returns p as findings compare paths: slash-separated, cleaned,
// surrounding space trimmed; "" stays "".
func CleanPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

func normalizeMessage(m string) string {
	var b strings.Builder
	space, digit := false, false
	for _, r := range strings.ToLower(m) {
		switch {
		case unicode.IsSpace(r):
			space, digit = true, false
			continue
		case unicode.IsDigit(r):
			if digit {
				continue
			}
			r, digit = '#', true
		default:
			digit = false
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), ".,;:!? ")
}
