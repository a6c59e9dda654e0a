package shell

import "strings"

// Script is a parsed command line: every simple command in it, in source
// order, including those inside blocks, loops, functions and substitutions.
type Script struct {
	Cmds []*Cmd
}

// Cmd is one simple command.
type Cmd struct {
	// Args is argv: the command name first, then its arguments.
	Args []Word
	// Redirs are the command's redirections, in order.
	Redirs []Redirect
	// Stdin is what feeds the command's standard input.
	Stdin Input
	// Source is the command as written in the parsed text, for reporting.
	Source string
	// Expr is set for a PowerShell pipeline element that is an expression
	// (a string, a variable, a parenthesised pipeline) rather than a command;
	// Args then holds the expression as one word.
	Expr bool
	// Func is the name of the function whose body the command is in, when
	// it is in one (bash); "" outside functions.
	Func string
	// Async reports that the command runs beside the one that started it:
	// in the background (&) or as a stage of a pipeline (bash).
	Async bool
	// Defined reports that the command calls an alias or a function the
	// script defines, whose text or body was judged in its place with the
	// call's words (bash).
	Defined bool
	// Inner, for the redirections of a compound command ({ ...; } > f,
	// ( ... ) > f, a loop), holds the commands inside it, whose output the
	// redirections take (bash). Args is then empty.
	Inner []*Cmd
	// Env holds, as NAME=value words, the assignments made before the
	// command (GIT_SSH_COMMAND='...' git fetch: all of them, the command's
	// own environment) or, for a line of assignments only, the line's
	// assignments of variables that hold a command or configure git (see
	// [EnvVariable]) (bash).
	Env []Word
}

// EnvVariable reports whether the environment variable name changes
// what programs started later do: it holds a command ([CommandVariable])
// or git configuration (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n).
func EnvVariable(name string) bool {
	return CommandVariable(name) || strings.HasPrefix(name, "GIT_CONFIG_")
}

// CommandVariable reports whether the environment variable name holds a
// command line or program that other programs run: GIT_SSH_COMMAND,
// GIT_EDITOR, EDITOR, VISUAL, PAGER, MANPAGER, LESSOPEN, PROMPT_COMMAND,
// and any name ending in _COMMAND, _CMD, EDITOR, PAGER, ASKPASS or _RSH.
func CommandVariable(name string) bool {
	switch name {
	case "LESSOPEN", "LESSCLOSE", "BROWSER", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "FCEDIT":
		return true
	}
	for _, s := range [...]string{"_COMMAND", "_CMD", "EDITOR", "PAGER", "ASKPASS", "_RSH"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Redirect is one redirection of a [Cmd].
type Redirect struct {
	// Op is the operator as written without the file descriptor: ">", ">>",
	// "<", "<<", "<<<", "&>", ">&", ">|", "<>", ...
	Op string
	// Target is the file, or the here-document or here-string body.
	Target Word
	// Fd is the descriptor written before the operator (3 in 3>file), or
	// "" for the default (bash).
	Fd string
}

// Writes reports whether the redirection writes to a file named by Target
// (as opposed to reading, duplicating a descriptor, or a here-document).
func (r Redirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>", "&>|":
		return true
	case ">&":
		// >&2 duplicates a descriptor; >&file writes to file.
		t := r.Target.Text
		return t != "-" && strings.Trim(t, "0123456789") != ""
	}
	return false
}

// InputKind says where a command's standard input comes from.
type InputKind int

// The kinds of input.
const (
	// Inherited input: the terminal or whatever the caller gave.
	Inherited InputKind = iota
	// Text is a here-document or here-string: Input.Text is the text.
	Text
	// Pipe is the output of another command: Input.From.
	Pipe
	// File is a file redirected in: Input.Text names it.
	File
)

// Input is what feeds a command's standard input.
type Input struct {
	Kind InputKind
	Text Word
	From *Cmd
}

// Word is one argv word after quoting, escapes and the variables the script
// itself assigns are resolved.
type Word struct {
	// Text is the word's value. A part that cannot be resolved statically
	// (an outside variable, a command substitution) appears as written.
	Text string
	// Segs splits Text into its literal and dynamic parts; nil means one
	// literal part.
	Segs []Seg
	// Quoted reports whether any part of the word was quoted or escaped.
	Quoted bool
	// Glob reports whether the word holds an unquoted glob pattern.
	Glob bool
	// Subst holds the commands whose output forms part of the word:
	// command and process substitutions. They are also in [Script.Cmds].
	Subst []*Cmd
}

// Seg is a part of a [Word].
type Seg struct {
	Text string
	// Dynamic marks a part whose value is not known statically.
	Dynamic bool
}

// Lit returns a word with the literal text s.
func Lit(s string) Word { return Word{Text: s} }

// Dynamic reports whether any part of w is not known statically.
func (w Word) Dynamic() bool {
	for _, s := range w.Segs {
		if s.Dynamic {
			return true
		}
	}
	return false
}

// Static returns the literal parts of w, without the dynamic ones.
func (w Word) Static() string {
	if w.Segs == nil {
		return w.Text
	}
	var b strings.Builder
	for _, s := range w.Segs {
		if !s.Dynamic {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// Tail returns the literal text after the last dynamic part of w; all of
// Text when w is static.
func (w Word) Tail() string {
	if w.Segs == nil {
		return w.Text
	}
	var b strings.Builder
	for _, s := range w.Segs {
		if s.Dynamic {
			b.Reset()
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// wordBuilder accumulates the segments of one word.
type wordBuilder struct {
	w       Word
	started bool // something was added, even an empty quoted string
}

func (b *wordBuilder) lit(s string) {
	b.started = true
	if s == "" {
		return
	}
	b.w.Text += s
	if n := len(b.w.Segs); n > 0 && !b.w.Segs[n-1].Dynamic {
		b.w.Segs[n-1].Text += s
		return
	}
	b.w.Segs = append(b.w.Segs, Seg{Text: s})
}

func (b *wordBuilder) dyn(s string) {
	b.started = true
	b.w.Text += s
	b.w.Segs = append(b.w.Segs, Seg{Text: s, Dynamic: true})
}

// word returns the word, with Segs nil when it is all literal.
func (b *wordBuilder) word() Word {
	w := b.w
	if !w.Dynamic() {
		w.Segs = nil
	}
	return w
}
