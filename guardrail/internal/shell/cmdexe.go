package shell

import (
	"errors"
	"fmt"
	"strings"
)

// ParseCmd tokenizes src as a cmd.exe command line. It knows cmd's quoting
// (double quotes, no escapes inside), the caret escape, separators (& && ||
// and newlines), pipelines, parenthesised groups, redirections, the @ echo
// prefix, rem and :: comments, and that a built-in's name ends at a slash
// ("rd/s/q x" is "rd /s/q x"). %VAR% and !VAR! are dynamic. Commas and
// semicolons separate arguments as blanks do.
func ParseCmd(src string) (*Script, error) {
	p := &cmdParser{src: src}
	if err := p.statements(false); err != nil {
		return nil, err
	}
	return &p.script, nil
}

type cmdParser struct {
	src    string
	i      int
	depth  int
	script Script
}

// cmdBuiltins are the built-ins whose name may be followed by a slash with no
// blank between.
var cmdBuiltins = map[string]bool{
	"rd": true, "rmdir": true, "del": true, "erase": true, "move": true, "copy": true,
	"dir": true, "md": true, "mkdir": true, "ren": true, "rename": true, "type": true,
	"start": true, "cmd": true, "echo": true, "cd": true, "chdir": true, "for": true,
	"if": true, "xcopy": true, "robocopy": true,
}

func (p *cmdParser) statements(inGroup bool) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		return errors.New("shell: cmd: nesting too deep")
	}
	var in Input
	var prev *Cmd
	for {
		for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '@') {
			p.i++
		}
		if p.i >= len(p.src) {
			if inGroup {
				return errors.New("shell: cmd: missing )")
			}
			return nil
		}
		rest := p.src[p.i:]
		switch {
		case rest[0] == ')' && inGroup:
			p.i++
			return nil
		case strings.HasPrefix(rest, "&&") || strings.HasPrefix(rest, "||"):
			p.i += 2
			in, prev = Input{}, nil
			continue
		case rest[0] == '&' || rest[0] == '\n' || rest[0] == '\r':
			p.i++
			in, prev = Input{}, nil
			continue
		case rest[0] == '|':
			if prev == nil {
				return fmt.Errorf("shell: cmd: empty pipeline element at offset %d", p.i)
			}
			p.i++
			in = Input{Kind: Pipe, From: prev}
			continue
		case rest[0] == '(':
			p.i++
			if err := p.statements(true); err != nil {
				return err
			}
			prev = p.lastCmd()
			continue
		case strings.HasPrefix(rest, "::") || len(rest) >= 3 && strings.EqualFold(rest[:3], "rem") &&
			(len(rest) == 3 || strings.ContainsRune(" \t\r\n/", rune(rest[3]))):
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
			continue
		}
		cmd, err := p.command(inGroup)
		if err != nil {
			return err
		}
		if cmd == nil {
			continue
		}
		cmd.Stdin = in
		p.script.Cmds = append(p.script.Cmds, cmd)
		prev, in = cmd, Input{}
	}
}

func (p *cmdParser) lastCmd() *Cmd {
	if n := len(p.script.Cmds); n > 0 {
		return p.script.Cmds[n-1]
	}
	return nil
}

func (p *cmdParser) command(inGroup bool) (*Cmd, error) {
	start := p.i
	cmd := &Cmd{}
	for {
		for p.i < len(p.src) && strings.IndexByte(" \t,;", p.src[p.i]) >= 0 {
			p.i++
		}
		if p.i >= len(p.src) {
			break
		}
		c := p.src[p.i]
		if c == '&' || c == '|' || c == '\n' || c == '\r' || c == ')' && inGroup {
			break
		}
		if op, ok := p.redirOp(); ok {
			r := Redirect{Op: op}
			if op != ">&" {
				for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
					p.i++
				}
				r.Target = p.word(inGroup)
				if r.Target.Text == "" {
					return nil, fmt.Errorf("shell: cmd: redirection without a file at offset %d", p.i)
				}
				if op == "<" {
					cmd.Stdin = Input{Kind: File, Text: r.Target}
				}
			}
			cmd.Redirs = append(cmd.Redirs, r)
			continue
		}
		at := p.i
		w, dq := p.word2(inGroup)
		if p.i == at {
			return nil, fmt.Errorf("shell: cmd: unexpected %q at offset %d", c, p.i)
		}
		if len(cmd.Args) == 0 && !dq {
			if name, opts, ok := strings.Cut(w.Text, "/"); ok && cmdBuiltins[strings.ToLower(name)] {
				cmd.Args = append(cmd.Args, Lit(name), Lit("/"+opts))
				continue
			}
		}
		cmd.Args = append(cmd.Args, w)
	}
	cmd.Source = strings.Trim(p.src[start:p.i], " \t\r\n")
	if len(cmd.Args) == 0 && len(cmd.Redirs) == 0 {
		return nil, nil
	}
	return cmd, nil
}

// redirOp consumes > >> < 2> 2>> and 2>&1 style operators; a duplication
// (>&1) is returned as ">&" with its target consumed.
func (p *cmdParser) redirOp() (string, bool) {
	rest := p.src[p.i:]
	n := 0
	if len(rest) > 1 && rest[0] >= '0' && rest[0] <= '9' && (rest[1] == '>' || rest[1] == '<') {
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
	if n+1 < len(rest) && rest[n] == '&' && rest[n+1] >= '0' && rest[n+1] <= '9' {
		op, n = ">&", n+2
	}
	p.i += n
	return op, true
}

// word reads one argument: quotes, carets and variables, up to a blank or an
// operator.
func (p *cmdParser) word(inGroup bool) Word {
	w, _ := p.word2(inGroup)
	return w
}

// word2 is word, also reporting whether double quotes were used.
func (p *cmdParser) word2(inGroup bool) (Word, bool) {
	var b wordBuilder
	dq := false
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			dq = true
			b.w.Quoted = true
			b.started = true
			p.i++
			for p.i < len(p.src) && p.src[p.i] != '"' && p.src[p.i] != '\n' {
				p.variableOr(&b)
			}
			if p.i < len(p.src) && p.src[p.i] == '"' {
				p.i++
			}
		case c == '^':
			b.w.Quoted = true
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] == '\n' || p.src[p.i+1] == '\r' {
					// Line continuation.
					p.i += 2
					if p.i < len(p.src) && p.src[p.i] == '\n' {
						p.i++
					}
					continue
				}
				b.lit(p.src[p.i+1 : p.i+2])
				p.i += 2
			} else {
				p.i++
			}
		case strings.IndexByte(" \t,;&|<>\r\n", c) >= 0 || c == ')' && inGroup:
			return b.word(), dq
		default:
			if c == '*' || c == '?' {
				b.w.Glob = true
			}
			p.variableOr(&b)
		}
	}
	return b.word(), dq
}

// variableOr adds %NAME%, %%f, %1 or !NAME! as a dynamic part, or else one
// literal byte.
func (p *cmdParser) variableOr(b *wordBuilder) {
	rest := p.src[p.i:]
	if rest[0] == '%' || rest[0] == '!' {
		if rest[0] == '%' && len(rest) > 1 && (rest[1] >= '0' && rest[1] <= '9' || rest[1] == '*') {
			// A batch argument, %0 to %9 or %*: never a %NAME% (%0|%0).
			b.dyn(rest[:2])
			p.i += 2
			return
		}
		if rest[0] == '%' && len(rest) > 2 && rest[1] == '~' {
			// %~dp0: modifiers, then the argument's digit.
			j := 2
			for j < len(rest) && (rest[j] >= 'a' && rest[j] <= 'z' || rest[j] == '$' || rest[j] == ':') {
				j++
			}
			if j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				b.dyn(rest[:j+1])
				p.i += j + 1
				return
			}
		}
		if end := strings.IndexByte(rest[1:], rest[0]); end > 0 && !strings.ContainsAny(rest[1:1+end], " \t\"|&<>") {
			b.dyn(rest[:end+2])
			p.i += end + 2
			return
		}
		if rest[0] == '%' && len(rest) > 1 && rest[1] == '~' {
			b.dyn(rest[:2])
			p.i += 2
			return
		}
		if strings.HasPrefix(rest, "%%") && len(rest) > 2 {
			b.dyn(rest[:3])
			p.i += 3
			return
		}
	}
	b.lit(rest[:1])
	p.i++
}
