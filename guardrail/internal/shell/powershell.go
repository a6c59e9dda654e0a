package shell

import (
	"errors"
	"fmt"
	"strings"
)

// maxNesting bounds how deeply parentheses, blocks and subexpressions may
// nest in a PowerShell or cmd command line.
const maxNesting = 100

// ParsePowerShell tokenizes src as a PowerShell command line. It knows
// PowerShell's quoting (single quotes with ” escapes; double quotes and
// barewords with backtick escapes; here-strings), comments, statement
// separators (; newline && ||), pipelines, the call operator (&), script
// blocks, subexpressions and redirections. Commands inside blocks and
// parentheses are parsed as commands of their own. Variables and
// subexpressions are dynamic, but for a variable the line assigned a string
// literal earlier ($c = 'git'; & $c ...), which is that string. A pipeline element that starts with an
// expression (a string, a variable, a type) is a [Cmd] with Expr set.
func ParsePowerShell(src string) (*Script, error) {
	p := &psParser{src: src}
	if err := p.statements(0); err != nil {
		return nil, err
	}
	if p.i < len(p.src) {
		return nil, fmt.Errorf("shell: powershell: unexpected %q at offset %d", p.src[p.i], p.i)
	}
	return &p.script, nil
}

type psParser struct {
	src    string
	i      int
	depth  int
	script Script
	// splats are the hashtables assigned to variables ($p = @{...}), as
	// the parameters they pass when splatted (Remove-Item @p).
	splats map[string][]Word
	// strs are the variables last assigned a string literal ($c = 'git'),
	// by lowercase name without the $.
	strs map[string]string
}

// assign records $name = rest: a string literal alone in its statement
// ('...' or "..." without variables, subexpressions or escapes) is the
// variable's value from here on; any other value forgets it.
func (p *psParser) assign(name, rest string) {
	name = strings.ToLower(name)
	delete(p.strs, name)
	v, ok := psLiteral(rest)
	if !ok {
		return
	}
	if p.strs == nil {
		p.strs = map[string]string{}
	}
	p.strs[name] = v
}

// psLiteral returns the value of the string literal that starts rest and
// ends its statement.
func psLiteral(rest string) (string, bool) {
	if rest == "" || rest[0] != '\'' && rest[0] != '"' {
		return "", false
	}
	var b strings.Builder
	i := 1
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == rest[0] {
			if c == '\'' && i+1 < len(rest) && rest[i+1] == '\'' {
				b.WriteByte(c) // '' is a quote inside single quotes
				i++
				continue
			}
			break
		}
		if rest[0] == '"' && (c == '$' || c == '`' || c == '"') {
			return "", false
		}
		b.WriteByte(c)
	}
	if i >= len(rest) {
		return "", false
	}
	after := strings.TrimLeft(rest[i+1:], " \t")
	if after != "" && !strings.ContainsRune(";\r\n})", rune(after[0])) {
		return "", false
	}
	return b.String(), true
}

// splat records $name = @{Key=Value; ...} for @name: -Key Value per entry,
// -Key alone for $true.
func (p *psParser) splat(name, rest string) {
	end := strings.IndexByte(rest, '}')
	if !strings.HasPrefix(rest, "@{") || end < 0 {
		return
	}
	var words []Word
	for _, entry := range strings.FieldsFunc(rest[2:end], func(r rune) bool { return r == ';' || r == '\n' || r == '\r' }) {
		key, value, ok := strings.Cut(entry, "=")
		key, value = strings.Trim(strings.TrimSpace(key), `'"`), strings.TrimSpace(value)
		if !ok || key == "" {
			continue
		}
		words = append(words, Lit("-"+key))
		switch lv := strings.ToLower(value); {
		case lv == "$true" || lv == "1":
		case lv == "$false" || lv == "0":
			words[len(words)-1] = Lit("-" + key + ":$false")
		default:
			words = append(words, Lit(strings.Trim(value, `'"`)))
		}
	}
	if p.splats == nil {
		p.splats = map[string][]Word{}
	}
	p.splats[strings.ToLower(name)] = words
}

var errPSNesting = errors.New("shell: powershell: nesting too deep")

// statements parses statements until EOF or the closing character close (not
// consumed).
func (p *psParser) statements(close byte) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return errPSNesting
	}
	var in Input
	var prev *Cmd
	for {
		p.skipBlanks()
		if p.i >= len(p.src) {
			if close != 0 {
				return fmt.Errorf("shell: powershell: missing %q", close)
			}
			return nil
		}
		c := p.src[p.i]
		switch {
		case c == close:
			return nil
		case c == ')' || c == '}':
			return fmt.Errorf("shell: powershell: unexpected %q at offset %d", c, p.i)
		case c == ';' || c == '\n' || c == '\r':
			p.i++
			in, prev = Input{}, nil
			continue
		case strings.HasPrefix(p.src[p.i:], "&&") || strings.HasPrefix(p.src[p.i:], "||"):
			p.i += 2
			in, prev = Input{}, nil
			continue
		case c == '|':
			if prev == nil {
				return fmt.Errorf("shell: powershell: empty pipeline element at offset %d", p.i)
			}
			p.i++
			in = Input{Kind: Pipe, From: prev}
			continue
		}
		cmd, err := p.command(close)
		if err != nil {
			return err
		}
		if cmd == nil {
			continue
		}
		cmd.Stdin = in
		p.script.Cmds = append(p.script.Cmds, cmd)
		prev = cmd
		in = Input{}
	}
}

// command parses one pipeline element.
func (p *psParser) command(close byte) (*Cmd, error) {
	start := p.i
	cmd := &Cmd{}
	first, called := true, false
	for {
		p.skipBlanks()
		if p.i >= len(p.src) {
			break
		}
		c := p.src[p.i]
		if c == close || c == ';' || c == '\n' || c == '\r' || c == '|' || c == ')' || c == '}' ||
			strings.HasPrefix(p.src[p.i:], "&&") {
			break
		}
		if c == '&' && first && !called {
			p.i++ // the call operator: the next word is the command
			called = true
			continue
		}
		if c == '.' && first && !called && p.i+1 < len(p.src) && (p.src[p.i+1] == ' ' || p.src[p.i+1] == '\t') {
			p.i++ // the dot-source operator runs the next word too
			called = true
			continue
		}
		if c == '&' {
			p.i++ // background job
			break
		}
		if c == '#' {
			p.skipLine()
			continue
		}
		if strings.HasPrefix(p.src[p.i:], "<#") {
			end := strings.Index(p.src[p.i+2:], "#>")
			if end < 0 {
				return nil, errors.New("shell: powershell: unterminated block comment")
			}
			p.i += end + 4
			continue
		}
		if op, ok := p.redirOp(); ok {
			r := Redirect{Op: op}
			if !strings.HasSuffix(op, "&1") && !strings.HasSuffix(op, "&2") {
				p.skipBlanks()
				w, err := p.word()
				if err != nil {
					return nil, err
				}
				r.Target = w
			}
			cmd.Redirs = append(cmd.Redirs, r)
			continue
		}
		if strings.HasPrefix(p.src[p.i:], "--%") {
			// Stop-parsing: the rest of the line goes as is, split on blanks.
			p.i += 3
			end := strings.IndexAny(p.src[p.i:], "\r\n|")
			if end < 0 {
				end = len(p.src) - p.i
			}
			for _, f := range strings.Fields(p.src[p.i : p.i+end]) {
				cmd.Args = append(cmd.Args, Lit(f))
			}
			p.i += end
			continue
		}
		if first && !called && (c == '$' || c == '[') {
			// $x = <pipeline>: the assignment's right side is the command.
			save := p.i
			if _, err := p.word(); err != nil {
				return nil, err
			}
			name := strings.TrimPrefix(p.src[save:p.i], "$")
			p.skipBlanks()
			if rest := p.src[p.i:]; strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") ||
				len(rest) > 1 && strings.Contains("+-*/", rest[:1]) && rest[1] == '=' {
				if rest[0] == '=' {
					p.splat(name, strings.TrimLeft(rest[1:], " \t"))
					p.assign(name, strings.TrimLeft(rest[1:], " \t"))
				} else {
					delete(p.strs, strings.ToLower(name)) // $c += ...
				}
				p.i += strings.Index(rest, "=") + 1
				start = p.i
				continue
			}
			p.i = save
		}
		at := p.i
		w, err := p.word()
		if err != nil {
			return nil, err
		}
		if p.i == at {
			return nil, fmt.Errorf("shell: powershell: unexpected %q at offset %d", c, p.i)
		}
		if first && !called && strings.IndexByte(`'"$[(@`, c) >= 0 || first && c >= '0' && c <= '9' {
			cmd.Expr = true
		}
		first = false
		if sp, ok := p.splats[strings.ToLower(strings.TrimPrefix(w.Text, "@"))]; ok && strings.HasPrefix(w.Text, "@") && len(cmd.Args) > 0 {
			cmd.Args = append(cmd.Args, sp...)
			continue
		}
		cmd.Args = append(cmd.Args, w)
	}
	cmd.Source = strings.Trim(p.src[start:p.i], " \t\r\n")
	if len(cmd.Args) == 0 && len(cmd.Redirs) == 0 {
		return nil, nil
	}
	return cmd, nil
}

// redirOp consumes a redirection operator: > >> 2> 2>> *> 2>&1 and the like.
func (p *psParser) redirOp() (string, bool) {
	rest := p.src[p.i:]
	n := 0
	if len(rest) > 1 && (rest[0] >= '1' && rest[0] <= '6' || rest[0] == '*') && rest[1] == '>' {
		n = 1
	}
	if n >= len(rest) || rest[n] != '>' && rest[n] != '<' {
		return "", false
	}
	op := rest[n : n+1]
	n++
	if op == ">" && n < len(rest) && rest[n] == '>' {
		op, n = ">>", n+1
	}
	if op == ">" && n+1 < len(rest) && rest[n] == '&' && (rest[n+1] == '1' || rest[n+1] == '2') {
		op, n = ">&"+rest[n+1:n+2], n+2
	}
	p.i += n
	return op, true
}

func (p *psParser) skipBlanks() {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			p.i++
		case c == '`' && p.i+1 < len(p.src) && (p.src[p.i+1] == '\n' || p.src[p.i+1] == '\r'):
			p.i += 2 // line continuation
		default:
			return
		}
	}
}

func (p *psParser) skipLine() {
	for p.i < len(p.src) && p.src[p.i] != '\n' {
		p.i++
	}
}

// word parses one word: quoted strings, barewords, variables, blocks and
// parenthesised expressions, glued together while no blank separates them.
func (p *psParser) word() (Word, error) {
	var b wordBuilder
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\'':
			s, err := p.single()
			if err != nil {
				return Word{}, err
			}
			b.w.Quoted = true
			b.lit(s)
		case c == '"':
			if err := p.double(&b); err != nil {
				return Word{}, err
			}
		case c == '@' && p.i+1 < len(p.src) && (p.src[p.i+1] == '\'' || p.src[p.i+1] == '"'):
			if err := p.hereString(&b); err != nil {
				return Word{}, err
			}
		case c == '$' || c == '@' && p.i+1 < len(p.src) && p.src[p.i+1] == '(':
			if err := p.variable(&b); err != nil {
				return Word{}, err
			}
		case c == '(' || c == '{':
			if err := p.group(&b, c); err != nil {
				return Word{}, err
			}
		case c == '`':
			b.w.Quoted = true
			if p.i+1 < len(p.src) {
				b.lit(psEscape(p.src[p.i+1]))
				p.i += 2
			} else {
				p.i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' ||
			c == ';' || c == '|' || c == ')' || c == '}' || c == '&' || c == '>' || c == '<':
			return b.word(), nil
		default:
			if c == '*' || c == '?' || c == '[' {
				b.w.Glob = true
			}
			b.lit(p.src[p.i : p.i+1])
			p.i++
		}
	}
	return b.word(), nil
}

func (p *psParser) single() (string, error) {
	var s strings.Builder
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\'' {
			if p.i+1 < len(p.src) && p.src[p.i+1] == '\'' {
				s.WriteByte('\'')
				p.i += 2
				continue
			}
			p.i++
			return s.String(), nil
		}
		s.WriteByte(c)
		p.i++
	}
	return "", errors.New("shell: powershell: unterminated single-quoted string")
}

func (p *psParser) double(b *wordBuilder) error {
	b.w.Quoted = true
	b.started = true
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			if p.i+1 < len(p.src) && p.src[p.i+1] == '"' {
				b.lit(`"`)
				p.i += 2
				continue
			}
			p.i++
			return nil
		case c == '`' && p.i+1 < len(p.src):
			b.lit(psEscape(p.src[p.i+1]))
			p.i += 2
		case c == '$' && p.i+1 < len(p.src) && isPSVarStart(p.src[p.i+1]):
			if err := p.variable(b); err != nil {
				return err
			}
		default:
			b.lit(p.src[p.i : p.i+1])
			p.i++
		}
	}
	return errors.New("shell: powershell: unterminated double-quoted string")
}

// hereString parses @'...'@ or @"..."@; the closing marker starts a line.
func (p *psParser) hereString(b *wordBuilder) error {
	q := p.src[p.i+1]
	end := strings.Index(p.src[p.i+2:], "\n"+string(q)+"@")
	if end < 0 {
		return errors.New("shell: powershell: unterminated here-string")
	}
	body := p.src[p.i+2 : p.i+2+end]
	body = strings.TrimPrefix(strings.TrimPrefix(body, "\r"), "\n")
	body = strings.TrimSuffix(body, "\r")
	p.i += 2 + end + 3
	b.w.Quoted = true
	if q == '\'' || !strings.Contains(body, "$") {
		b.lit(body)
		return nil
	}
	sub := &psParser{src: `"` + strings.ReplaceAll(body, `"`, `""`) + `"`, depth: p.depth}
	err := sub.double(b)
	p.script.Cmds = append(p.script.Cmds, sub.script.Cmds...)
	return err
}

func isPSVarStart(c byte) bool {
	return c == '{' || c == '(' || c == '_' || c == '?' || c == '$' || c == '^' ||
		c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// variable parses $name, ${name}, $env:NAME, $(subexpression) or @(array).
func (p *psParser) variable(b *wordBuilder) error {
	start := p.i
	if p.i+1 < len(p.src) && p.src[p.i+1] == '(' {
		p.i++
		sub := len(p.script.Cmds)
		if err := p.paren(); err != nil {
			return err
		}
		b.w.Subst = append(b.w.Subst, p.script.Cmds[sub:]...)
		b.dyn(p.src[start:p.i])
		return nil
	}
	p.i++
	if p.i < len(p.src) && p.src[p.i] == '{' {
		end := strings.IndexByte(p.src[p.i:], '}')
		if end < 0 {
			return errors.New("shell: powershell: unterminated ${")
		}
		p.i += end + 1
		b.dyn(p.src[start:p.i])
		return nil
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == ':' && p.i+1 < len(p.src) && p.src[p.i+1] != ':' && isPSVarStart(p.src[p.i+1]) ||
			c == '_' || c == '?' || c == '^' || c == '$' && p.i == start+1 ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	name := p.src[start:p.i]
	switch strings.ToLower(name) {
	case "$true", "$false", "$null":
		b.lit(name)
	default:
		if v, ok := p.strs[strings.ToLower(name[1:])]; ok {
			// $c = 'git'; & $c reset --hard: the value, as one argument.
			b.w.Quoted = true
			b.lit(v)
			return nil
		}
		b.dyn(name)
	}
	return nil
}

// paren parses (pipeline) with p.i at "(", adding its commands.
func (p *psParser) paren() error {
	p.i++
	if err := p.statements(')'); err != nil {
		return err
	}
	p.i++ // ')'
	return nil
}

// group parses a (pipeline) or a {script block} glued into a word.
func (p *psParser) group(b *wordBuilder, open byte) error {
	start := p.i
	sub := len(p.script.Cmds)
	if open == '(' {
		if err := p.paren(); err != nil {
			return err
		}
	} else {
		p.i++
		if err := p.statements('}'); err != nil {
			return err
		}
		p.i++
	}
	b.w.Subst = append(b.w.Subst, p.script.Cmds[sub:]...)
	b.dyn(p.src[start:p.i])
	return nil
}

// psEscape returns the character a backtick escape stands for.
func psEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'v':
		return "\v"
	case 'e':
		return "\x1b"
	case '\n':
		return ""
	}
	return string(c)
}
