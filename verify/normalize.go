package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// normalizer replaces the matches of re by repl.
type normalizer struct {
	re   *regexp.Regexp
	repl string
}

// normalizers rewrite what differs between two runs of the same failure, in
// order: earlier rules see the raw text, later ones what is left. They are
// compiled on first use.
var normalizers = sync.OnceValue(func() []normalizer {
	return []normalizer{
		{regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`), ""}, // terminal colours
		{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "<id>"},
		{regexp.MustCompile(`\b\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?`), "<time>"},
		{regexp.MustCompile(`\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`), "<time>"},
		// Temporary directories: macOS, Windows, then Unix.
		{regexp.MustCompile(`(?:/private)?/var/folders/[^\s/]+/[^\s/]+/T/[^\s/:'"()]+`), "<tmp>"},
		{regexp.MustCompile(`(?i)[a-z]:\\Users\\[^\\\s]+\\AppData\\Local\\Temp\\[^\\\s:'"()]+`), "<tmp>"},
		{regexp.MustCompile(`(?:/var)?/tmp/[^\s/:'"()]+`), "<tmp>"},
		{regexp.MustCompile(`\$WORK\b`), "<tmp>"},
		{regexp.MustCompile(`0x[0-9a-fA-F]+`), "0x?"},
		// file:line:col and file:line, and "line N".
		{regexp.MustCompile(`(\.[A-Za-z][A-Za-z0-9+]*)(?::\d+){1,2}\b`), "$1:#"},
		{regexp.MustCompile(`(\.[A-Za-z][A-Za-z0-9+]*)\((\d+)(?:,\d+)?\)`), "$1(#)"}, // MSVC: file.cpp(12,5)
		{regexp.MustCompile(`(?i)\b(line|column|col)\s+\d+`), "$1 #"},
		// Goroutine numbers and how long they waited.
		{regexp.MustCompile(`\bgoroutine \d+`), "goroutine #"},
		{regexp.MustCompile(`, \d+ minutes\]`), "]"},
		{regexp.MustCompile(`(?i)\b(pid|process)[ =:]+\d+`), "$1 #"},
		// Durations: Go's (1m2.5s, 0.01s, 300ms) and others' (0.01 sec).
		{regexp.MustCompile(`\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ns|µs|us|ms|s)\b`), "<dur>"},
		{regexp.MustCompile(`(?i)\b\d+(?:\.\d+)?\s*(?:sec|secs|seconds|minutes|min)\b`), "<dur>"},
		{regexp.MustCompile(`[ \t]+`), " "},
	}
})

// hexRun matches what may be a build ID, hash or random name; Normalize
// replaces it when it mixes digits and letters or is long.
var hexRun = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[0-9a-fA-F]{8,}\b`) })

// Normalize rewrites a failure's output so that two runs of the same failure
// read the same: terminal colours go, and timestamps, durations, temporary
// paths, hexadecimal addresses, line and column numbers, goroutine and
// process numbers, UUIDs and long hexadecimal IDs become placeholders. Runs
// of blanks collapse, trailing blanks and blank lines are dropped.
func Normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, n := range normalizers() {
		s = n.re.ReplaceAllString(s, n.repl)
	}
	s = hexRun().ReplaceAllStringFunc(s, func(h string) string {
		if len(h) >= 12 || (strings.ContainsAny(h, "0123456789") && strings.ContainsAny(h, "abcdefABCDEF")) {
			return "<hex>"
		}
		return h
	})
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// NewFingerprint returns the fingerprint of a failure of class whose
// identifying text is key, raw: it is normalized here. The hash is the first
// 16 hex digits of the SHA-256 of the class and the normalized key.
func NewFingerprint(class FailureClass, key, summary string) Fingerprint {
	sum := sha256.Sum256([]byte(string(class) + "\n" + Normalize(key)))
	return Fingerprint{Class: class, Hash: hex.EncodeToString(sum[:8]), Summary: summary}
}
