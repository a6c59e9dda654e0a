package importer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/harnish/harnish/task/internal/quote"
)

// ErrFormat is the class of every error about the content of a source: bad
// syntax, a wrong type, a missing field, an unknown status, or a plan that
// would not validate. Test for it with errors.Is; the error itself is an
// [*Error] naming where the problem is.
var ErrFormat = errors.New("importer: bad format")

// Error is a problem in a source file, located as precisely as the source
// allows. It unwraps to [ErrFormat].
type Error struct {
	File   string // the file, as named by the caller (or inside the fs.FS)
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based, in bytes; 0 when unknown
	// Field is the path of the field in the source, such as
	// "todo.phases[0].tasks[2].depends_on[1]" in JSON or the column name of a
	// markdown table; empty for a problem of the whole file.
	Field   string
	Message string
}

// Error formats the problem as "importer: file:line:col: field: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("importer: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns [ErrFormat].
func (e *Error) Unwrap() error { return ErrFormat }

// pos is a place in a source file.
type pos struct{ line, col int }

// maxName bounds the file names and field paths an error repeats: both can
// hold keys and directory names from the source.
const maxName = 4 * quote.Max

func errorf(file string, at pos, field, format string, args ...any) *Error {
	return &Error{File: quote.Cut(file, maxName), Line: at.line, Column: at.col,
		Field: quote.Cut(field, maxName), Message: fmt.Sprintf(format, args...)}
}
