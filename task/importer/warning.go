package importer

import (
	"fmt"
	"strings"

	"github.com/harnish/harnish/task/internal/quote"
)

// Warning is something a source says that the plan does not hold as
// written: a field harnish has no place for, a value it read another way, a
// row it skipped because it could not read it. The import goes on; a warning
// names where, so a person can check what was lost.
type Warning struct {
	File    string // the file, as named by the caller
	Line    int    // 1-based; 0 when unknown
	Column  int    // 1-based, in bytes; 0 when unknown
	Field   string // the field in the source; empty for the whole file
	Message string
}

// String formats the warning as "file:line:col: field: message".
func (w Warning) String() string {
	var b strings.Builder
	b.WriteString(w.File)
	if w.Line > 0 {
		fmt.Fprintf(&b, ":%d", w.Line)
		if w.Column > 0 {
			fmt.Fprintf(&b, ":%d", w.Column)
		}
	}
	b.WriteString(": ")
	if w.Field != "" {
		b.WriteString(w.Field)
		b.WriteString(": ")
	}
	b.WriteString(w.Message)
	return b.String()
}

// maxWarnings bounds the warnings of one import; past it, one last warning
// says how many more there were.
const maxWarnings = 1000

// warnings collects the warnings of one import.
type warnings struct {
	list []Warning
	more int
}

func (w *warnings) add(file string, at pos, field, format string, args ...any) {
	if w == nil {
		return
	}
	if len(w.list) >= maxWarnings {
		w.more++
		return
	}
	w.list = append(w.list, Warning{File: quote.Cut(file, maxName), Line: at.line, Column: at.col,
		Field: quote.Cut(field, maxName), Message: quote.Cut(fmt.Sprintf(format, args...), 4*maxName)})
}

// done returns the warnings, with a last one counting those left out.
func (w *warnings) done() []Warning {
	if w.more > 0 {
		w.list = append(w.list, Warning{Message: fmt.Sprintf("%d more warnings left out", w.more)})
	}
	return w.list
}
