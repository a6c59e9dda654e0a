package cmdguard

import (
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// shellNames are the Unix shells: -c takes a script, and without one they
// read it from standard input.
var shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "ksh93", "pdksh", "lksh", "ash", "mksh", "fish", "yash", "osh", "posh", "oksh",
	"loksh", "rbash", "csh", "tcsh"}

// isShell reports whether name (canonical) is one of shellNames.
func isShell(name string) bool { return slices.Contains(shellNames, name) }

func init() {
	handle(posixShell, shellNames...)
	handle(evalBuiltin, "eval")
	handle(sourceBuiltin, "source", ".")
	handle(trapBuiltin, "trap")
	handle(pwshCommand, "pwsh", "powershell", "pwsh-preview")
	handle(cmdCommand, "cmd")
	handle(invokeExpression, "invoke-expression")
}

// payload judges w as a script of shell sh, one level deeper than k. A
// payload that is wholly dynamic fails closed; one built from a download is
// an install.
func (e *evaluator) payload(k *call, w shell.Word, sh string) {
	if d := download(w.Subst); d != nil {
		e.add(RuleInstall, k.match(), "running a downloaded script (%s) installs code nobody reviewed", d.Source)
		return
	}
	if t := strings.ToLower(w.Text); strings.Contains(t, ".downloadstring(") || strings.Contains(t, ".downloaddata(") {
		e.add(RuleInstall, k.match(), "running a downloaded script installs code nobody reviewed")
		return
	}
	if w.Dynamic() && strings.TrimSpace(w.Static()) == "" {
		if text, ok := printedText(w); ok {
			// sh -c "$(echo rm -rf x)": the script is what echo prints.
			e.script(text, sh, k.depth+1)
			return
		}
		e.add(RuleUnresolved, k.match(), "the script %q is only known at run time, so it cannot be judged", w.Text)
		return
	}
	e.script(w.Text, sh, k.depth+1)
}

// printedText returns the text a word prints when it is only a command
// substitution of echo, printf or the like with known text ("$(echo x)").
func printedText(w shell.Word) (string, bool) {
	if !w.Dynamic() || strings.TrimSpace(w.Static()) != "" || len(w.Subst) != 1 ||
		!strings.HasPrefix(strings.TrimLeft(w.Text, `"`), "$(") {
		return "", false
	}
	text, state, _ := stdinText(shell.Input{Kind: shell.Pipe, From: w.Subst[0]}, 0)
	if state != inputKnown || text.Dynamic() {
		return "", false
	}
	return text.Text, true
}

// stdinScript judges what a shell reading its standard input runs.
func (e *evaluator) stdinScript(k *call, sh string) {
	text, state, from := stdinText(k.stdin, 0)
	if from == nil {
		from = &shell.Cmd{Source: "an unknown command"}
	}
	switch state {
	case inputKnown:
		e.payload(k, text, sh)
	case inputDownload:
		e.add(RuleInstall, k.matchInput(), "piping a downloaded script (%s) into a shell installs code nobody reviewed", from.Source)
	case inputUnknown:
		e.add(RuleUnresolved, k.matchInput(), "text piped into a shell from %q cannot be judged", from.Source)
	}
}

// posixShell handles sh, bash, zsh and the like: -c runs its argument, a
// script operand runs a file, and otherwise the shell reads standard input.
func posixShell(e *evaluator, k *call) {
	a := k.args
	cflag, sflag := false, false
	i := 0
loop:
	for ; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "-":
			sflag = true // the script is standard input; the rest are arguments
			i++
			break loop
		case t == "--":
			i++
			break loop
		case t == "--rcfile" || t == "--init-file":
			i++
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for _, c := range t[1:] {
				switch c {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					i++
				}
			}
		default:
			break loop
		}
	}
	switch {
	case cflag && i < len(a):
		// sh -c 'script' NAME ARGS: $0 and the positional parameters.
		if rest := a[i+1:]; len(rest) > 0 && len(rest) <= 32 {
			pos := make([]string, 0, len(rest))
			for _, w := range rest {
				if w.Dynamic() {
					pos = nil
					break
				}
				pos = append(pos, w.Text)
			}
			e.pos = pos
		}
		e.payload(k, a[i], Bash)
		e.pos = nil
	case cflag:
	case i < len(a) && !sflag:
		// A script file: judged by its name only, unless it is downloaded,
		// written by the line, or a process substitution that prints it.
		if noexec(a[:i]) {
			return // sh -n: the script is only checked
		}
		e.scriptFile(k, a[i])
	default:
		e.stdinScript(k, Bash)
	}
}

// noexec reports whether a shell's options hold -n (noexec): it reads the
// script without running it.
func noexec(opts []shell.Word) bool {
	for _, w := range opts {
		if t := w.Text; len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsRune(t[1:], 'n') {
			return true
		}
	}
	return false
}

func evalBuiltin(e *evaluator, k *call) {
	if len(k.args) > 0 {
		e.payload(k, joinPlain(k.args), Bash)
	}
}

// joinPlain joins words with blanks as eval does: no quoting.
func joinPlain(ws []shell.Word) shell.Word {
	var out shell.Word
	for i, w := range ws {
		if i > 0 {
			out.Text += " "
			out.Segs = append(out.Segs, shell.Seg{Text: " "})
		}
		out.Text += w.Text
		out.Segs = append(out.Segs, shell.Seg{Text: w.Text, Dynamic: w.Dynamic()})
		out.Subst = append(out.Subst, w.Subst...)
	}
	return out
}

func sourceBuiltin(e *evaluator, k *call) {
	if len(k.args) > 0 {
		e.scriptFile(k, k.args[0])
	}
}

// scriptFile judges the script file w a shell runs or sources: by its name
// only, but for a process substitution, <(...), whose output is a download
// (an install) or text echo, printf or a here-document gives (judged as the
// script).
func (e *evaluator) scriptFile(k *call, w shell.Word) {
	if e.ranDownload(k.match(), w) {
		return
	}
	if text, ok := e.writtenText(w); ok {
		e.script(text, Bash, k.depth+1)
		return
	}
	if d := download(w.Subst); d != nil {
		e.add(RuleInstall, k.match(), "running a downloaded script (%s) installs code nobody reviewed", d.Source)
		return
	}
	if stdinPath(w.Text) {
		// bash /dev/stdin, source /dev/stdin: the script is the input.
		e.stdinScript(k, Bash)
		return
	}
	if !strings.HasPrefix(w.Text, "<(") || len(w.Subst) == 0 {
		return
	}
	if text, ok := writtenText(w.Subst[len(w.Subst)-1], Bash); ok {
		e.payload(k, shell.Lit(text), Bash)
	}
}

// stdinPath reports whether p names the standard input of the process that
// opens it.
func stdinPath(p string) bool {
	switch p {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0":
		return true
	}
	return false
}

// trapBuiltin judges the command trap runs on a signal: trap 'cmd' EXIT.
func trapBuiltin(e *evaluator, k *call) {
	a := k.args
	if len(a) > 0 && a[0].Text == "--" {
		a = a[1:]
	}
	if len(a) < 2 || a[0].Text == "-" || strings.HasPrefix(a[0].Text, "-") && len(a[0].Text) == 2 {
		return // listing, or resetting
	}
	e.payload(k, a[0], Bash)
}

// pwshCommand handles pwsh and powershell: -Command (the rest of the line, or
// standard input for "-"), -EncodedCommand (base64 of UTF-16LE), -File.
// Windows PowerShell takes a bare argument as -Command, pwsh as -File.
func pwshCommand(e *evaluator, k *call) {
	a := k.args
	valued := []string{"executionpolicy", "windowstyle", "inputformat", "outputformat",
		"workingdirectory", "configurationname", "custompipename", "settingsfile", "version", "psconsolefile", "wd", "ep"}
	for i := 0; i < len(a); i++ {
		t := strings.ToLower(a[i].Text)
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "/") {
			if k.name == "powershell" {
				e.payload(k, joinWords(a[i:]), PowerShell)
			} else {
				e.pwshFile(k, a[i]) // pwsh: a script file
			}
			return
		}
		name := strings.TrimLeft(t, "-/")
		if n, v, ok := strings.Cut(name, ":"); ok && (strings.HasPrefix("command", n) && n != "" || n == "c") && v != "" {
			// -Command:"script", the value attached after a colon.
			e.payload(k, withText(a[i], a[i].Text[strings.IndexByte(a[i].Text, ':')+1:]), PowerShell)
			return
		}
		switch {
		case name == "":
		case strings.HasPrefix("command", name) || name == "c":
			if i+1 >= len(a) || a[i+1].Text == "-" {
				e.stdinScript(k, PowerShell)
				return
			}
			e.payload(k, joinWords(a[i+1:]), PowerShell)
			return
		case name == "e" || name == "ec" || name == "enc" || strings.HasPrefix("encodedcommand", name) && len(name) > 1:
			if i+1 < len(a) {
				if text, ok := decodeUTF16Base64(a[i+1].Text); ok {
					e.payload(k, shell.Lit(text), PowerShell)
				} else {
					e.add(RuleUnresolved, k.match(), "the encoded command %q does not decode, so it cannot be judged", a[i+1].Text)
				}
			}
			return
		case name == "f" || strings.HasPrefix("file", name):
			if i+1 < len(a) {
				e.pwshFile(k, a[i+1])
			}
			return
		case contains(valued, name):
			i++
		}
	}
	if len(a) == 0 || k.stdin.Kind != shell.Inherited {
		e.stdinScript(k, PowerShell)
	}
}

// pwshFile judges the script file PowerShell runs: a download is an
// install, a file the line wrote is judged as its text.
func (e *evaluator) pwshFile(k *call, w shell.Word) {
	if e.ranDownload(k.match(), w) {
		return
	}
	if text, ok := e.writtenText(w); ok {
		e.script(text, PowerShell, k.depth+1)
	}
}

func decodeUTF16Base64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

// cmdCommand handles cmd.exe: /c, /k and /r run the rest of the line;
// without them cmd reads standard input.
func cmdCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i < len(a); i++ {
		t := strings.ToLower(a[i].Text)
		if !strings.HasPrefix(t, "/") && !strings.HasPrefix(t, "-") {
			break
		}
		for _, opt := range strings.Split(strings.TrimLeft(t, "/-"), "/") {
			switch {
			case opt == "c" || opt == "k" || opt == "r":
				if i+1 < len(a) {
					e.payload(k, joinWords(a[i+1:]), Cmd)
				}
				return
			case strings.HasPrefix(opt, "c") && len(opt) > 1 && a[i].Quoted:
				// /c"command" glued to its option.
				e.payload(k, joinWords(append([]shell.Word{shell.Lit(a[i].Text[2:])}, a[i+1:]...)), Cmd)
				return
			}
		}
	}
	e.stdinScript(k, Cmd)
}

func invokeExpression(e *evaluator, k *call) {
	ps := psArgs(k.args, psInvokeExpression)
	if w := ps.get("command"); w != nil {
		e.payload(k, *w, PowerShell)
		return
	}
	e.stdinScript(k, PowerShell)
}

// inputState says how much is known about a command's standard input.
type inputState int

const (
	inputNone     inputState = iota // nothing piped: the terminal, or a file
	inputKnown                      // text known statically
	inputDownload                   // the output of a download
	inputUnknown                    // another program's output
)

// stdinText returns the text that reaches standard input when it is known:
// a here-document, a here-string, or echo/printf/cat passing one on.
func stdinText(in shell.Input, depth int) (shell.Word, inputState, *shell.Cmd) {
	switch in.Kind {
	case shell.Text:
		if text, ok := printedText(in.Text); ok {
			// <<< "$(echo ...)": what the substitution prints.
			return shell.Lit(text), inputKnown, nil
		}
		return in.Text, inputKnown, nil
	case shell.Pipe:
	default:
		return shell.Word{}, inputNone, nil
	}
	from := in.From
	if from == nil || len(from.Args) == 0 || depth > 8 {
		return shell.Word{}, inputUnknown, from
	}
	if from.Expr {
		w := joinPlain(from.Args)
		if w.Dynamic() && strings.TrimSpace(w.Static()) == "" {
			return w, inputUnknown, from
		}
		return w, inputKnown, from
	}
	if from.Args[0].Dynamic() {
		return shell.Word{}, inputUnknown, from
	}
	name := canonical("", from.Args[0].Text)
	args := from.Args[1:]
	switch name {
	case "echo", "write-output", "write-host", "printf":
		escapes := false // echo -e decodes \xHH, \0NNN and the like
		for len(args) > 0 && name == "echo" && len(args[0].Text) > 1 && strings.Trim(args[0].Text, "-neE") == "" {
			escapes = strings.Contains(args[0].Text, "e") || escapes && !strings.Contains(args[0].Text, "E")
			args = args[1:]
		}
		w := joinPlain(args)
		if escapes && !w.Dynamic() && strings.Contains(w.Text, `\`) {
			var b strings.Builder
			for t := w.Text; t != ""; {
				if i := strings.IndexByte(t, '\\'); i != 0 {
					if i < 0 {
						i = len(t)
					}
					b.WriteString(t[:i])
					t = t[i:]
					continue
				}
				t = t[printfEscape(&b, t, true):]
			}
			return shell.Lit(b.String()), inputKnown, from
		}
		if name == "printf" {
			if text, ok := printfText(args); ok {
				return shell.Lit(text), inputKnown, from
			}
		}
		if name == "printf" || name == "echo" && strings.Contains(w.Text, `\n`) {
			w.Text = strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(w.Text)
		}
		if w.Dynamic() && strings.TrimSpace(w.Static()) == "" {
			return w, inputUnknown, from
		}
		return w, inputKnown, from
	case "cat", "type", "get-content", "gc", "tee", "tee-object":
		if len(args) == 0 || name == "tee" || name == "tee-object" {
			return stdinText(from.Stdin, depth+1)
		}
	}
	if isDownload(from) {
		return shell.Word{}, inputDownload, from
	}
	return shell.Word{}, inputUnknown, from
}

// printfText returns what printf prints for the static arguments args: the
// format's escapes decoded, %s, %b, %d and the like filled from the
// arguments, the format reused while arguments remain. ok is false for
// dynamic arguments and printf -v.
func printfText(args []shell.Word) (string, bool) {
	if len(args) == 0 || args[0].Text == "-v" {
		return "", false
	}
	if args[0].Text == "--" {
		args = args[1:]
	}
	for _, a := range args {
		if a.Dynamic() {
			return "", false
		}
	}
	if len(args) == 0 {
		return "", false
	}
	format, rest := args[0].Text, args[1:]
	var b strings.Builder
	for pass := 0; pass < 64; pass++ {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\':
				n := printfEscape(&b, format[i:], false)
				i += n - 1
			case c == '%' && i+1 < len(format) && format[i+1] == '%':
				b.WriteByte('%')
				i++
			case c == '%':
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
					j++
				}
				if j >= len(format) {
					b.WriteString(format[i:])
					i = j
					break
				}
				var arg string
				if len(rest) > 0 {
					arg, rest, used = rest[0].Text, rest[1:], true
				}
				if format[j] == 'b' {
					for k := 0; k < len(arg); k++ {
						if arg[k] == '\\' {
							k += printfEscape(&b, arg[k:], true) - 1
						} else {
							b.WriteByte(arg[k])
						}
					}
				} else {
					b.WriteString(arg)
				}
				i = j
			default:
				b.WriteByte(c)
			}
			if b.Len() > maxCode {
				return "", false
			}
		}
		if !used || len(rest) == 0 {
			break
		}
	}
	return b.String(), true
}

// printfEscape writes what the escape at the start of s stands for and
// returns its length: \n, \t, \\, \xHH, \NNN (octal; \0NNN for %b), \uHHHH.
func printfEscape(b *strings.Builder, s string, bArg bool) int {
	if len(s) < 2 {
		b.WriteString(s)
		return len(s)
	}
	if r, ok := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'f': 12, 'v': 11, '\\': '\\', '"': '"', '\'': '\''}[s[1]]; ok {
		b.WriteByte(r)
		return 2
	}
	digits := func(start, max int, base string) (int, int) {
		v, n := 0, 0
		for n < max && start+n < len(s) {
			d := strings.IndexByte(base, s[start+n]|0x20)
			if d < 0 || d >= len(base) {
				break
			}
			v = v*len(base) + d
			n++
		}
		return v, n
	}
	switch {
	case s[1] == 'x':
		if v, n := digits(2, 2, "0123456789abcdef"); n > 0 {
			b.WriteByte(byte(v))
			return 2 + n
		}
	case s[1] == 'u' || s[1] == 'U':
		max := 4
		if s[1] == 'U' {
			max = 8
		}
		if v, n := digits(2, max, "0123456789abcdef"); n > 0 {
			b.WriteRune(rune(v))
			return 2 + n
		}
	case s[1] >= '0' && s[1] <= '7':
		start, max := 1, 3
		if bArg && s[1] == '0' {
			start = 2
		}
		v, n := digits(start, max, "01234567")
		b.WriteByte(byte(v))
		return start + n
	}
	b.WriteString(s[:2])
	return 2
}

// download returns the first command of cmds that downloads, or nil.
func download(cmds []*shell.Cmd) *shell.Cmd {
	for _, c := range cmds {
		if isDownload(c) {
			return c
		}
	}
	return nil
}

// isDownload reports whether c fetches something from the network to its
// output.
func isDownload(c *shell.Cmd) bool {
	if len(c.Args) == 0 {
		return false
	}
	if c.Expr {
		t := strings.ToLower(c.Source)
		return strings.Contains(t, "downloadstring") || strings.Contains(t, "downloaddata")
	}
	switch canonical(PowerShell, c.Args[0].Text) {
	case "invoke-webrequest", "invoke-restmethod", "fetch", "aria2c", "http", "https", "xh":
		return true
	}
	return strings.Contains(strings.ToLower(c.Source), "downloadstring")
}
