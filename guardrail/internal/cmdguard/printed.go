package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// printedArgs returns a command's arguments with every command substitution
// whose output the line states (what echo or printf prints from literal
// words) put in as that output, as bash does before it runs the command,
// and every expansion of a variable the line does not assign that has a
// literal default (${X:-DEFAULT}, ${X-DEFAULT}, ${X:=DEFAULT}) put in as
// its default.
// An unquoted word is split into words at blanks (rm $(echo -rf) x is rm
// -rf x); a quoted one stays one word. ok is false when no word changed. A word with any other run-time part, a substitution of
// more than one command, or one that prints nothing, is left as written,
// so the rules keep judging it as dynamic.
func printedArgs(args []shell.Word) (out []shell.Word, ok bool) {
	for i, w := range args {
		words, resolved := printedWord(w)
		switch {
		case resolved && !ok:
			out = append(append(make([]shell.Word, 0, len(args)+len(words)), args[:i]...), words...)
			ok = true
		case resolved:
			out = append(out, words...)
		case ok:
			out = append(out, w)
		}
	}
	return out, ok
}

// printedWord resolves one word for printedArgs.
func printedWord(w shell.Word) ([]shell.Word, bool) {
	if !w.Dynamic() || len(w.Subst) == 0 && !strings.Contains(w.Text, "${") {
		return nil, false
	}
	var b strings.Builder
	n := 0
	for _, s := range w.Segs {
		if !s.Dynamic {
			b.WriteString(s.Text)
			continue
		}
		if m := defaultExpansion().FindStringSubmatch(s.Text); m != nil {
			// ${X:-DEFAULT}, ${X-DEFAULT}, ${X:=DEFAULT}: a variable the
			// line does not assign, so its default.
			b.WriteString(m[1])
			continue
		}
		// One command per substitution, in order; $((...)) is arithmetic.
		if n == len(w.Subst) || strings.HasPrefix(s.Text, "$((") ||
			!strings.HasPrefix(s.Text, "$(") && !strings.HasPrefix(s.Text, "`") {
			return nil, false
		}
		text, ok := substOutput(w.Subst[n])
		if !ok {
			return nil, false
		}
		b.WriteString(text)
		n++
	}
	if n != len(w.Subst) {
		return nil, false
	}
	text := b.String()
	if w.Quoted {
		return []shell.Word{{Text: text, Quoted: true}}, true
	}
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, false
	}
	words := make([]shell.Word, len(fields))
	for i, f := range fields {
		words[i] = shell.Lit(f)
	}
	return words, true
}

// substOutput returns what the command c of a substitution prints, without
// its trailing newlines, when the line states it.
func substOutput(c *shell.Cmd) (string, bool) {
	if c == nil || len(c.Args) == 0 || c.Args[0].Dynamic() || c.Expr {
		return "", false
	}
	text, state, _ := stdinText(shell.Input{Kind: shell.Pipe, From: c}, 0)
	if state != inputKnown || text.Dynamic() {
		return "", false
	}
	out := strings.TrimRight(text.Text, "\n")
	if strings.TrimSpace(out) == "" {
		return "", false
	}
	return out, true
}

// defaultExpansion matches a parameter expansion with a literal default.
var defaultExpansion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^\\$\\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^}$`\\\\\"'(){}]*)\\}$")
})
