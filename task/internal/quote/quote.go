// Package quote cuts the values that error messages repeat, so that a plan
// or a peer tool's file with a megabyte-long value still gets short messages.
package quote

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Max is how many bytes of a value a message repeats: enough to recognize it.
const Max = 80

// String quotes s as %q does, cut to its first Max bytes and its length when
// longer.
func String(s string) string {
	if len(s) <= Max {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:runeCut(s, Max)]), len(s))
}

// Bare is String for a value shown unquoted, such as a number or a key in a
// field path.
func Bare(s string) string { return Cut(s, Max) }

// Cut returns s, or its first n bytes and its length when longer.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:runeCut(s, n)], len(s))
}

// runeCut returns where to cut s, n < len(s), to keep at most n bytes
// without splitting a rune; invalid UTF-8 is cut at n.
func runeCut(s string, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}
