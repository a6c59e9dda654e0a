package shell

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords bounds brace expansion; a word that expands to more is kept
// unexpanded and marked dynamic.
const maxBraceWords = 64

// ParseBash parses src as bash (a POSIX sh or zsh command line parses the
// same for the constructs that matter here). Variables assigned earlier in
// src with static values are substituted into later words; an unquoted
// substitution is split into fields as bash splits it.
func ParseBash(src string) (*Script, error) {
	var b BashParser
	return b.Parse(src, nil)
}

// ParseBashArgs is ParseBash for a script run with positional parameters
// (sh -c 'script' NAME ARGS...): args[0] is $0, the rest $1, $2, ... and
// "$@".
func ParseBashArgs(src string, args []string) (*Script, error) {
	var b BashParser
	return b.Parse(src, args)
}

// BashParser parses bash command lines one after another, reusing one
// syntax parser's buffers: a guard judging a command line and the
// payloads nested in it parses them all with one. The zero value is
// ready; it is not safe for concurrent use.
type BashParser struct {
	syn *syntax.Parser
}

// Parse parses src as ParseBash does; a non-nil args gives the script
// positional parameters as ParseBashArgs does.
func (b *BashParser) Parse(src string, args []string) (*Script, error) {
	if b.syn == nil {
		b.syn = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := b.syn.Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, fmt.Errorf("shell: bash: %w", err)
	}
	p := &bashParser{src: src, vars: map[string]string{}, defs: &defs{}}
	if len(args) > 0 {
		p.vars["0"] = args[0]
		p.setPositional(args[1:])
	}
	p.stmts(f.Stmts, Input{})
	return &p.script, nil
}

// maxExpansions bounds the alias and function calls whose text is judged
// again with the call's words, per script.
const maxExpansions = 16

// defs are the aliases and functions a script defines, shared by the
// parsers of the texts they expand to.
type defs struct {
	aliases map[string]string
	funcs   map[string]funcDef
	// active holds the aliases and functions being expanded, which are
	// not expanded again inside themselves.
	active   map[string]bool
	expanded int
}

// funcDef is a function's body and the source its positions index.
type funcDef struct {
	body *syntax.Stmt
	src  string
}

type bashParser struct {
	src    string
	script Script
	vars   map[string]string // static values assigned so far
	// unrolled counts the loop words whose bodies were judged one by one.
	unrolled int
	last     *Cmd   // the command added last
	fn       string // the function being declared, if any
	async    int    // > 0 inside a background command or a pipeline
	defs     *defs
	refs     map[string]string // namerefs (declare -n NAME=TARGET)
}

// child returns a parser for src, a text the script runs (an alias's or a
// function's), sharing the script's variables and definitions.
func (p *bashParser) child(src string) *bashParser {
	return &bashParser{src: src, vars: p.vars, unrolled: p.unrolled, fn: p.fn, async: p.async, defs: p.defs, refs: p.refs}
}

// adopt takes the commands a child parser found.
func (p *bashParser) adopt(c *bashParser) {
	p.script.Cmds = append(p.script.Cmds, c.script.Cmds...)
	if c.last != nil {
		p.last = c.last
	}
	p.unrolled = c.unrolled
}

// expand judges a call of an alias or a function the script defined, with
// the call's words: an alias's text followed by the call's arguments, or a
// function's body with them as its positional parameters.
func (p *bashParser) expand(c *syntax.CallExpr, args []Word, in Input) bool {
	d := p.defs
	first, ok := c.Args[0].Parts[0].(*syntax.Lit)
	if len(c.Args[0].Parts) != 1 || !ok || d.expanded >= maxExpansions || len(args) == 0 {
		return false
	}
	name := first.Value
	if text, ok := d.aliases[name]; ok && !d.active["alias "+name] {
		// An alias is replaced by its text before the line is parsed.
		rest := ""
		if end := int(c.End().Offset()); end <= len(p.src) {
			rest = p.src[int(c.Args[0].End().Offset()):end]
		}
		// An alias whose text ends in a blank has the next word expanded
		// too (alias sudo='sudo ').
		for n := 0; n < 4 && (strings.HasSuffix(text, " ") || strings.HasSuffix(text, "\t")); n++ {
			next := strings.TrimLeft(rest, " \t")
			word := next[:len(next)-len(strings.TrimLeft(next, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+"))]
			t2, ok := d.aliases[word]
			if word == "" || !ok || word == name {
				break
			}
			text, rest = text+t2, next[len(word):]
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text+rest), "")
		if err != nil {
			return false
		}
		d.expanded++
		d.mark("alias "+name, true)
		ch := p.child(text + rest)
		ch.stmts(f.Stmts, in)
		p.adopt(ch)
		d.mark("alias "+name, false)
		return true
	}
	fn, ok := d.funcs[name]
	if !ok || d.active["func "+name] {
		return false
	}
	for _, w := range args[1:] {
		if w.Dynamic() {
			return false
		}
	}
	d.expanded++
	d.mark("func "+name, true)
	saved := p.copyVars()
	ch := p.child(fn.src)
	ch.vars = p.copyVars()
	ch.fn = name
	texts := make([]string, len(args)-1)
	for i, w := range args[1:] {
		texts[i] = w.Text
	}
	ch.setPositional(texts)
	ch.stmt(fn.body, in)
	p.adopt(ch)
	p.vars = saved
	d.mark("func "+name, false)
	return true
}

func (d *defs) mark(key string, on bool) {
	if d.active == nil {
		d.active = map[string]bool{}
	}
	d.active[key] = on
}

// setPositional sets $1, $2, ... and "$@" to args.
func (p *bashParser) setPositional(args []string) {
	for i := 1; i <= 9; i++ {
		delete(p.vars, strconv.Itoa(i))
	}
	for i, a := range args {
		if i < 9 {
			p.vars[strconv.Itoa(i+1)] = a
		}
	}
	delete(p.vars, "@")
	p.vars[listKey+"@"] = strings.Join(args, listSep)
	if len(args) == 0 {
		p.vars[listKey+"@"] = ""
	}
}

func (p *bashParser) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(p.src) || start > end {
		return ""
	}
	return p.src[start:end]
}

func (p *bashParser) stmts(stmts []*syntax.Stmt, in Input) {
	for _, s := range stmts {
		p.stmt(s, in)
	}
}

// stmt adds the commands of s; in is what a pipe feeds it.
func (p *bashParser) stmt(s *syntax.Stmt, in Input) {
	if s == nil {
		return
	}
	if s.Background {
		p.async++
		defer func() { p.async-- }()
	}
	start := len(p.script.Cmds)
	// A redirection of standard input replaces the pipe.
	var redirs []Redirect
	for _, r := range s.Redirs {
		op := r.Op.String()
		if r.Hdoc != nil {
			in = Input{Kind: Text, Text: p.heredoc(r)}
			redirs = append(redirs, Redirect{Op: op, Target: in.Text})
			continue
		}
		t := p.word1(r.Word)
		switch {
		case r.Op == syntax.WordHdoc:
			t.Text += "\n"
			in = Input{Kind: Text, Text: t}
		case r.Op == syntax.RdrIn && (r.N == nil || r.N.Value == "0"):
			in = Input{Kind: File, Text: t}
			if strings.HasPrefix(t.Text, "<(") && len(t.Subst) > 0 {
				// < <(cmd) reads cmd's output, as a pipe would.
				in = Input{Kind: Pipe, From: t.Subst[len(t.Subst)-1]}
			}
		}
		rd := Redirect{Op: op, Target: t}
		if r.N != nil {
			rd.Fd = r.N.Value
		}
		redirs = append(redirs, rd)
	}
	switch c := s.Cmd.(type) {
	case nil:
		// Redirections alone: "> file" truncates file.
		if len(redirs) > 0 {
			p.add(&Cmd{Redirs: redirs, Stdin: in, Source: p.stmtText(s)})
		}
	case *syntax.CallExpr:
		p.call(c, s, redirs, in)
	case *syntax.BinaryCmd:
		pipe := c.Op == syntax.Pipe || c.Op == syntax.PipeAll
		if pipe {
			p.async++
		}
		p.stmt(c.X, in)
		if pipe {
			in = Input{Kind: Pipe, From: p.last}
		}
		p.stmt(c.Y, in)
		if pipe {
			p.async--
		}
		p.redirsOnly(redirs, s, start)
	case *syntax.Subshell:
		saved := p.copyVars()
		p.stmts(c.Stmts, in)
		p.vars = saved
		p.redirsOnly(redirs, s, start)
	case *syntax.Block:
		p.stmts(c.Stmts, in)
		p.redirsOnly(redirs, s, start)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			p.stmts(ic.Cond, in)
			p.stmts(ic.Then, in)
		}
		p.redirsOnly(redirs, s, start)
	case *syntax.WhileClause:
		p.stmts(c.Cond, in)
		p.stmts(c.Do, in)
		p.redirsOnly(redirs, s, start)
	case *syntax.ForClause:
		wi, ok := c.Loop.(*syntax.WordIter)
		if !ok || wi.Name == nil {
			p.substs(c.Loop)
			p.stmts(c.Do, in)
			p.redirsOnly(redirs, s, start)
			break
		}
		var items []Word
		for _, w := range wi.Items {
			items = append(items, p.words(w)...)
		}
		name := wi.Name.Value
		static := len(items) > 0 && len(items) <= maxLoopItems && p.unrolled+len(items) <= maxUnrolled
		for _, w := range items {
			static = static && !w.Dynamic()
		}
		if !static {
			delete(p.vars, name)
			p.stmts(c.Do, in)
			p.redirsOnly(redirs, s, start)
			break
		}
		// A short list of known words: the body once per word, so each
		// value is judged (for d in /dev/sd?; do dd of=$d ...).
		p.unrolled += len(items)
		for _, w := range items {
			p.vars[name] = w.Text
			p.stmts(c.Do, in)
		}
		p.redirsOnly(redirs, s, start)
	case *syntax.CaseClause:
		p.substs(c.Word)
		for _, it := range c.Items {
			p.stmts(it.Stmts, in)
		}
		p.redirsOnly(redirs, s, start)
	case *syntax.FuncDecl:
		// The body is judged where it is declared: calls are not followed.
		saved, savedFn, savedAsync := p.copyVars(), p.fn, p.async
		p.fn, p.async = "", 0
		if c.Name != nil {
			p.fn = c.Name.Value
			if p.defs.funcs == nil {
				p.defs.funcs = map[string]funcDef{}
			}
			p.defs.funcs[c.Name.Value] = funcDef{body: c.Body, src: p.src}
		}
		p.stmt(c.Body, Input{})
		p.vars, p.fn, p.async = saved, savedFn, savedAsync
	case *syntax.DeclClause:
		nameref := false
		var env []Word
		for _, a := range c.Args {
			if a.Naked && a.Name == nil && a.Value != nil {
				if f := a.Value.Lit(); strings.HasPrefix(f, "-") && strings.Contains(f, "n") {
					nameref = true
				}
				continue
			}
			if nameref && a.Name != nil && a.Value != nil {
				// declare -n REF=NAME: $REF is $NAME.
				if t := a.Value.Lit(); t != "" {
					if p.refs == nil {
						p.refs = map[string]string{}
					}
					p.refs[a.Name.Value] = t
					continue
				}
			}
			env = p.commandVar(env, a)
			p.assign(a)
		}
		if env != nil {
			p.add(&Cmd{Source: p.stmtText(s), Env: env})
		}
		p.redirsOnly(redirs, s, start)
	case *syntax.TimeClause:
		p.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		p.stmt(c.Stmt, in)
	default:
		// [[ ]], (( )), let and the like run nothing themselves but may
		// hold substitutions.
		p.substs(c)
		p.redirsOnly(redirs, s, start)
	}
}

// redirsOnly records the redirections of a compound command as a command of
// its own, so writes through them are judged.
func (p *bashParser) redirsOnly(redirs []Redirect, s *syntax.Stmt, start int) {
	for _, r := range redirs {
		if r.Writes() {
			inner := append([]*Cmd(nil), p.script.Cmds[start:]...)
			p.add(&Cmd{Redirs: redirs, Source: p.stmtText(s), Inner: inner})
			return
		}
	}
}

func (p *bashParser) stmtText(s *syntax.Stmt) string {
	return strings.TrimRight(strings.Trim(p.text(s), " \t\r\n"), " \t\r\n;&")
}

func (p *bashParser) add(c *Cmd) {
	c.Func, c.Async = p.fn, p.async > 0
	p.script.Cmds = append(p.script.Cmds, c)
	p.last = c
}

func (p *bashParser) copyVars() map[string]string {
	saved := make(map[string]string, len(p.vars))
	for k, v := range p.vars {
		saved[k] = v
	}
	return saved
}

func (p *bashParser) call(c *syntax.CallExpr, s *syntax.Stmt, redirs []Redirect, in Input) {
	if len(c.Args) == 0 {
		var env []Word
		for _, a := range c.Assigns {
			env = p.commandVar(env, a)
			p.assign(a)
		}
		if env != nil {
			p.add(&Cmd{Source: p.stmtText(s), Env: env})
		}
		p.redirsOnly(redirs, s, len(p.script.Cmds))
		return
	}
	var env []Word
	for _, a := range c.Assigns {
		// NAME=value cmd: the value only reaches cmd's environment, but its
		// substitutions run. Every such assignment is in Env, as the
		// command's own environment (git --config-env=KEY=NAME reads NAME).
		if a.Value == nil {
			continue
		}
		ws := p.words(a.Value)
		if a.Name == nil || a.Array != nil {
			continue
		}
		if EnvVariable(a.Name.Value) {
			env = p.commandVar(env, a)
			continue
		}
		if len(ws) == 1 {
			env = append(env, envWord(a.Name.Value, ws[0]))
		}
	}
	cmd := &Cmd{Redirs: redirs, Stdin: in, Source: p.stmtText(s), Env: env}
	for _, w := range c.Args {
		cmd.Args = append(cmd.Args, p.words(w)...)
	}
	p.add(cmd)
	switch {
	case len(cmd.Args) > 1 && cmd.Args[0].Text == "set" && cmd.Args[1].Text == "--":
		// set -- a b: the positional parameters, "$@".
		p.setList("@", cmd.Args[2:])
		for i := 1; i <= 9; i++ {
			delete(p.vars, strconv.Itoa(i))
			if i+1 < len(cmd.Args) && !cmd.Args[i+1].Dynamic() {
				p.vars[strconv.Itoa(i)] = cmd.Args[i+1].Text
			}
		}
	case len(cmd.Args) > 1 && cmd.Args[0].Text == "read":
		p.read(cmd.Args[1:], in)
	case len(cmd.Args) > 3 && cmd.Args[0].Text == "printf" && cmd.Args[1].Text == "-v":
		p.printfVar(cmd.Args[2].Text, cmd.Args[3:])
	case len(cmd.Args) > 1 && cmd.Args[0].Text == "alias":
		for _, w := range cmd.Args[1:] {
			if name, text, ok := strings.Cut(w.Text, "="); ok && !w.Dynamic() && name != "" {
				if p.defs.aliases == nil {
					p.defs.aliases = map[string]string{}
				}
				p.defs.aliases[name] = text
			}
		}
	case len(p.defs.aliases) > 0 || len(p.defs.funcs) > 0:
		cmd.Defined = p.expand(c, cmd.Args, in)
	}
}

// read assigns the variables read NAME... (or read -a NAME) takes from a
// here-string or here-document the line states: its first line split at
// blanks, the last name taking the rest (read -r c <<< 'rm -rf x'; $c).
// Input from anywhere else leaves the names unknown.
func (p *bashParser) read(args []Word, in Input) {
	var names []string
	array := ""
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case args[i].Dynamic():
			return
		case t == "-a" && i+1 < len(args):
			i++
			array = args[i].Text
		case len(t) == 2 && t[0] == '-' && strings.IndexByte("dpntuiN", t[1]) >= 0:
			i++ // the option's value
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			names = append(names, t)
		}
	}
	known := in.Kind == Text && !in.Text.Dynamic()
	line := ""
	if known {
		line, _, _ = strings.Cut(in.Text.Text, "\n")
	}
	fields := strings.Fields(line)
	if array != "" {
		delete(p.vars, array)
		delete(p.vars, listKey+array)
		if known {
			words := make([]Word, len(fields))
			for i, f := range fields {
				words[i] = Lit(f)
			}
			p.setList(array, words)
		}
	}
	for i, name := range names {
		delete(p.vars, listKey+name)
		if !known {
			delete(p.vars, name)
			continue
		}
		switch {
		case i >= len(fields):
			p.vars[name] = ""
		case i == len(names)-1:
			p.vars[name] = strings.Join(fields[i:], " ")
		default:
			p.vars[name] = fields[i]
		}
	}
}

// printfVar assigns the variable printf -v NAME FORMAT ARGS sets, for a
// static format whose only conversions are %s (filled from the arguments
// in turn, with no escapes); any other printf -v forgets NAME.
func (p *bashParser) printfVar(name string, args []Word) {
	delete(p.vars, name)
	delete(p.vars, listKey+name)
	for _, w := range args {
		if w.Dynamic() {
			return
		}
	}
	format, rest := args[0].Text, args[1:]
	if strings.Contains(format, `\`) || strings.Count(format, "%") != strings.Count(format, "%s") {
		return
	}
	var b strings.Builder
	for {
		before, after, found := strings.Cut(format, "%s")
		b.WriteString(before)
		if !found {
			break
		}
		if len(rest) > 0 {
			b.WriteString(rest[0].Text)
			rest = rest[1:]
		}
		format = after
	}
	if len(rest) > 0 {
		return // printf reuses its format for the rest: not read here
	}
	p.vars[name] = b.String()
}

// commandVar appends to env the assignment a as a NAME=value word when its
// variable holds a command or configures git ([EnvVariable]).
func (p *bashParser) commandVar(env []Word, a *syntax.Assign) []Word {
	if a.Name == nil || a.Value == nil || a.Array != nil || !EnvVariable(a.Name.Value) {
		return env
	}
	return append(env, envWord(a.Name.Value, p.word1(a.Value)))
}

// envWord is the assignment of w to name as one NAME=value word.
func envWord(name string, w Word) Word {
	segs := append([]Seg{{Text: name + "="}}, w.Segs...)
	if w.Segs == nil {
		segs = nil
	}
	return Word{Text: name + "=" + w.Text, Segs: segs, Quoted: w.Quoted, Subst: w.Subst}
}

func (p *bashParser) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if a.Array != nil {
		p.substs(a.Array)
		var elems []Word
		for _, el := range a.Array.Elems {
			if el.Index != nil || el.Value == nil {
				delete(p.vars, listKey+name)
				return
			}
			elems = append(elems, p.words(el.Value)...)
		}
		p.setList(name, elems)
		return
	}
	if a.Value == nil {
		if !a.Naked {
			p.vars[name] = ""
		}
		return
	}
	w := p.word1(a.Value)
	switch {
	case w.Dynamic() || a.Index != nil:
		delete(p.vars, name)
	case a.Append:
		p.vars[name] += w.Text
	default:
		p.vars[name] = w.Text
	}
}

// substs adds the commands of every command or process substitution inside n.
func (p *bashParser) substs(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			p.stmts(n.Stmts, Input{})
			return false
		case *syntax.ProcSubst:
			p.stmts(n.Stmts, Input{})
			return false
		}
		return true
	})
}

// heredoc resolves a here-document body: literal when its delimiter is
// quoted, with expansions otherwise.
func (p *bashParser) heredoc(r *syntax.Redirect) Word {
	quoted := false
	if r.Word != nil {
		for _, part := range r.Word.Parts {
			if _, ok := part.(*syntax.Lit); !ok {
				quoted = true
			} else if strings.Contains(part.(*syntax.Lit).Value, `\`) {
				quoted = true
			}
		}
	}
	if quoted {
		return Word{Text: p.hdocRaw(r.Hdoc), Quoted: true}
	}
	var b wordBuilder
	for _, part := range r.Hdoc.Parts {
		p.part(&b, nil, part, true)
	}
	w := b.word()
	w.Quoted = true
	return w
}

func (p *bashParser) hdocRaw(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteString(p.text(part))
		}
	}
	return b.String()
}

// word1 resolves w to one word, without field splitting.
func (p *bashParser) word1(w *syntax.Word) Word {
	if w == nil {
		return Word{}
	}
	var b wordBuilder
	for _, part := range w.Parts {
		p.part(&b, nil, part, true)
	}
	return b.word()
}

// words resolves w to the argv words it becomes: brace expansion, then
// quoting and escapes, variables and field splitting.
func (p *bashParser) words(w *syntax.Word) []Word {
	expanded := []*syntax.Word{w}
	if syntax.SplitBraces(w) {
		expanded = expanded[:0]
		for bw, err := range expand.BracesSeq(nil, w) {
			if err != nil || len(expanded) == maxBraceWords {
				b := wordBuilder{}
				b.dyn(p.text(w))
				p.substs(w)
				return []Word{b.word()}
			}
			expanded = append(expanded, bw)
		}
	}
	var out []Word
	for _, w := range expanded {
		fields := []*wordBuilder{{}}
		for _, part := range w.Parts {
			p.part(fields[len(fields)-1], &fields, part, false)
		}
		for _, f := range fields {
			if f.started {
				out = append(out, f.word())
			}
		}
	}
	return out
}

// part adds one word part to b. fields is non-nil where an unquoted
// expansion may split into more words; quoted reports being inside double
// quotes (or a here-document).
func (p *bashParser) part(b *wordBuilder, fields *[]*wordBuilder, part syntax.WordPart, quoted bool) {
	switch x := part.(type) {
	case *syntax.Lit:
		if quoted {
			b.lit(unescapeDouble(x.Value))
			return
		}
		s, escaped, glob := unescapeBare(x.Value)
		if escaped {
			b.w.Quoted = true
		}
		if glob {
			b.w.Glob = true
		}
		if !b.started && len(b.w.Text) == 0 && (s == "~" || strings.HasPrefix(s, "~/")) {
			b.dyn("~")
			s = s[1:]
		}
		b.lit(s)
	case *syntax.SglQuoted:
		b.w.Quoted = true
		if x.Dollar {
			b.lit(ansiC(x.Value))
		} else {
			b.lit(x.Value)
		}
	case *syntax.DblQuoted:
		b.w.Quoted = true
		b.started = true
		if elems, ok := p.list(singlePart(x.Parts)); ok && fields != nil {
			// "${A[@]}": one word per element.
			for i, el := range elems {
				if i > 0 {
					b = &wordBuilder{started: true}
					b.w.Quoted = true
					*fields = append(*fields, b)
				}
				b.lit(el)
			}
			return
		}
		for _, q := range x.Parts {
			p.part(b, nil, q, true)
		}
	case *syntax.ParamExp:
		p.substs(x)
		if elems, ok := p.list(x); ok {
			v := strings.Join(elems, " ")
			if quoted || fields == nil {
				b.lit(v)
				return
			}
			p.split(b, fields, v)
			return
		}
		if v, ok := p.param(x); ok {
			if quoted || fields == nil {
				b.lit(v)
				return
			}
			p.split(b, fields, v)
			return
		}
		b.dyn(p.text(x))
	case *syntax.CmdSubst:
		start := len(p.script.Cmds)
		p.stmts(x.Stmts, Input{})
		b.w.Subst = append(b.w.Subst, p.script.Cmds[start:]...)
		b.dyn(p.text(x))
	case *syntax.ProcSubst:
		start := len(p.script.Cmds)
		p.stmts(x.Stmts, Input{})
		b.w.Subst = append(b.w.Subst, p.script.Cmds[start:]...)
		b.dyn(p.text(x))
	case *syntax.ArithmExp:
		p.substs(x)
		b.dyn(p.text(x))
	case *syntax.ExtGlob:
		b.w.Glob = true
		b.lit(p.text(x))
	default:
		b.dyn(p.text(part))
	}
}

func singlePart(parts []syntax.WordPart) syntax.WordPart {
	if len(parts) != 1 {
		return nil
	}
	return parts[0]
}

// maxLoopItems bounds the words of a for loop whose body is judged once
// per word, and maxUnrolled the words of all such loops in a script, so
// nested loops cannot multiply the work.
const (
	maxLoopItems = 8
	maxUnrolled  = 32
)

// listKey prefixes, in vars, the elements of an array (or "@", the
// positional parameters set by set --), joined by listSep.
const (
	listKey = "\x00list:"
	listSep = "\x00"
)

// setList records the array name's elements, when every one is static.
func (p *bashParser) setList(name string, elems []Word) {
	texts := make([]string, len(elems))
	for i, w := range elems {
		if w.Dynamic() {
			delete(p.vars, listKey+name)
			return
		}
		texts[i] = w.Text
	}
	delete(p.vars, name)
	p.vars[listKey+name] = strings.Join(texts, listSep)
}

// list returns the elements of a plain "${NAME[@]}", "${NAME[*]}", "$@" or
// "$*" whose values the script set.
func (p *bashParser) list(part syntax.WordPart) ([]string, bool) {
	x, ok := part.(*syntax.ParamExp)
	if !ok || x.Param == nil || x.Excl || x.Length || x.Width || x.Slice != nil || x.Repl != nil ||
		x.Names != 0 || x.Exp != nil || x.NestedParam != nil {
		return nil, false
	}
	name := x.Param.Value
	if x.Index != nil {
		idx, ok := x.Index.(*syntax.Word)
		if !ok || idx.Lit() != "@" && idx.Lit() != "*" {
			return nil, false
		}
	} else if name != "@" && name != "*" {
		return nil, false
	} else {
		name = "@"
	}
	v, ok := p.vars[listKey+name]
	if !ok {
		return nil, false
	}
	if v == "" {
		return nil, true
	}
	return strings.Split(v, listSep), true
}

// param returns the value of a plain $NAME or ${NAME} assigned earlier in the
// script.
func (p *bashParser) param(x *syntax.ParamExp) (string, bool) {
	if x.Exp != nil && x.Param != nil && !x.Excl && !x.Length && !x.Width && x.Index == nil && x.Slice == nil &&
		x.Repl == nil && x.Names == 0 && x.NestedParam == nil {
		switch x.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			// ${X:-default} of a variable the script set to a value: the value.
			if v, ok := p.vars[x.Param.Value]; ok && v != "" {
				return v, true
			}
		}
		return "", false
	}
	if x.Param == nil || x.Excl || x.Length || x.Width || x.Index != nil ||
		x.Slice != nil || x.Repl != nil || x.Names != 0 || x.Exp != nil || x.NestedParam != nil {
		return "", false
	}
	name := x.Param.Value
	if r, ok := p.refs[name]; ok {
		name = r
	}
	v, ok := p.vars[name]
	return v, ok
}

// split adds v to the fields as an unquoted expansion: split on blanks.
func (p *bashParser) split(b *wordBuilder, fields *[]*wordBuilder, v string) {
	ifs, set := p.vars["IFS"]
	if !set {
		ifs = " \t\n"
	}
	isSep := func(r rune) bool { return strings.ContainsRune(ifs, r) }
	parts := strings.FieldsFunc(v, isSep)
	if len(parts) == 0 {
		return
	}
	if isSep(rune(v[0])) {
		if b.started {
			b = &wordBuilder{}
			*fields = append(*fields, b)
		}
	}
	for i, f := range parts {
		if i > 0 {
			b = &wordBuilder{}
			*fields = append(*fields, b)
		}
		b.lit(f)
	}
	if isSep(rune(v[len(v)-1])) {
		*fields = append(*fields, &wordBuilder{})
	}
}

// unescapeBare removes the backslashes of an unquoted literal and reports
// whether there were any, and whether an unescaped glob character remains.
func unescapeBare(s string) (out string, escaped, glob bool) {
	if !strings.ContainsAny(s, `\*?[`) {
		return s, false, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			escaped = true
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
		case c == '*' || c == '?' || c == '[':
			glob = true
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), escaped, glob
}

// unescapeDouble removes the backslashes that escape inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			n, j := 0, 0
			for ; j < max && i+1+j < len(s) && isHex(s[i+1+j]); j++ {
				n = n*16 + hexVal(s[i+1+j])
			}
			if j == 0 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			i += j
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, 0
			for ; j < 3 && i+j < len(s) && s[i+j] >= '0' && s[i+j] <= '7'; j++ {
				n = n*8 + int(s[i+j]-'0')
			}
			i += j - 1
			b.WriteByte(byte(n))
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			b.WriteByte(e) // \\ \' \" \? and unknown escapes
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
