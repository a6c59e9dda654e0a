package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(forEachObject, "foreach-object")
	handle(removeItem, "remove-item")
	handle(moveItem, "move-item", "rename-item")
	handle(psWriter, "copy-item", "set-content", "add-content", "clear-content", "out-file", "tee-object", "new-item",
		"expand-archive", "compress-archive")
	handle(delCommand, "del", "rd")
	handle(cmdMove, "move", "ren")
	handle(cmdCopy, "copy", "xcopy", "robocopy")
	handle(cmdFor, "for")
	handle(cmdIf, "if")
}

// psPaths returns the paths of the named parameters, split on commas.
func psPaths(b *psBound, names ...string) []shell.Word {
	var out []shell.Word
	for _, n := range names {
		for _, w := range b.named[n] {
			out = append(out, splitPaths(w)...)
		}
	}
	return out
}

// recursiveListing reports whether in pipes a recursive Get-ChildItem.
func recursiveListing(in shell.Input) bool {
	from := in.From
	return in.Kind == shell.Pipe && from != nil && len(from.Args) > 0 && !from.Args[0].Dynamic() &&
		canonical(PowerShell, from.Args[0].Text) == "get-childitem" && psArgs(from.Args[1:], psGetChildItem).switches["recurse"]
}

// forEachObject judges ForEach-Object fed a recursive listing: a block that
// deletes (Remove-Item and its aliases, .Delete()) deletes recursively.
func forEachObject(e *evaluator, k *call) {
	if !recursiveListing(k.stdin) {
		return
	}
	for _, w := range k.args {
		s, err := shell.ParsePowerShell(strings.Trim(strings.TrimSpace(w.Text), "{}"))
		if err != nil {
			continue
		}
		for _, c := range s.Cmds {
			if len(c.Args) > 0 && !c.Args[0].Dynamic() && canonical(PowerShell, c.Args[0].Text) == "remove-item" ||
				strings.Contains(strings.ToLower(c.Source), ".delete(") {
				e.add(RuleRecursiveDelete, k.match(), "Get-ChildItem -Recurse piped into a ForEach-Object that deletes deletes recursively")
				return
			}
		}
	}
}

func removeItem(e *evaluator, k *call) {
	b := psArgs(k.args, psRemoveItem)
	if b.switches["whatif"] {
		return
	}
	if b.switches["recurse"] {
		e.add(RuleRecursiveDelete, k.match(), "Remove-Item -Recurse deletes recursively")
	} else if recursiveListing(k.stdin) {
		e.add(RuleRecursiveDelete, k.match(), "Get-ChildItem -Recurse piped into Remove-Item deletes recursively")
	}
	for _, w := range psPaths(b, "path", "literalpath") {
		e.write(w, k.match(), "deletes")
	}
}

func moveItem(e *evaluator, k *call) {
	c := psMoveItem
	if k.name == "rename-item" {
		c = psRenameItem
	}
	b := psArgs(k.args, c)
	if b.switches["whatif"] {
		return
	}
	for _, w := range psPaths(b, "path", "literalpath", "destination") {
		e.write(w, k.match(), "moves")
	}
}

// psWriter handles the cmdlets that write a file named by a parameter.
func psWriter(e *evaluator, k *call) {
	var c psCmdlet
	var params []string
	switch k.name {
	case "copy-item":
		c, params = psCopyItem, []string{"destination"}
	case "out-file":
		c, params = psOutFile, []string{"filepath", "literalpath"}
	case "tee-object":
		c, params = psTeeObject, []string{"filepath", "literalpath"}
	case "new-item":
		c, params = psNewItem, []string{"path"}
	case "clear-content":
		c, params = psClearContent, []string{"path", "literalpath"}
	case "expand-archive", "compress-archive":
		// The archive's files land in -DestinationPath, or the archive is
		// written there.
		c, params = psArchive, []string{"destinationpath"}
	default:
		c, params = psSetContent, []string{"path", "literalpath"}
	}
	b := psArgs(k.args, c)
	if b.switches["whatif"] {
		return
	}
	paths := psPaths(b, params...)
	for _, w := range paths {
		e.write(w, k.match(), "writes")
	}
	// The text written: -Value (Set-Content, Add-Content, New-Item),
	// -InputObject, or what the pipeline gives.
	text := ""
	if v := b.get("value"); v != nil {
		text = v.Text
	} else if v := b.get("inputobject"); v != nil {
		text = v.Text
	} else if t, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		text = t.Text
	}
	for _, w := range paths {
		if k.name != "copy-item" && k.name != "clear-content" && text != "" {
			e.wrote(w, text, k.name == "add-content" || b.switches["append"])
		}
		e.secret(w, text)
	}
}

// cmdOptions splits cmd.exe arguments into lowercase options ("/s/q" is two)
// and operands.
func cmdOptions(a []shell.Word) (opts []string, ops []shell.Word) {
	for _, w := range a {
		if strings.HasPrefix(w.Text, "/") && !w.Quoted && len(w.Text) > 1 {
			for _, o := range strings.Split(strings.ToLower(w.Text[1:]), "/") {
				opts = append(opts, o)
			}
			continue
		}
		ops = append(ops, w)
	}
	return opts, ops
}

func delCommand(e *evaluator, k *call) {
	opts, ops := cmdOptions(k.args)
	if contains(opts, "s") {
		e.add(RuleRecursiveDelete, k.match(), "%s /s deletes recursively", k.name)
	}
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

func cmdMove(e *evaluator, k *call) {
	_, ops := cmdOptions(k.args)
	if k.name == "ren" && len(ops) > 1 {
		ops = ops[:1]
	}
	for _, w := range ops {
		e.write(w, k.match(), "moves")
	}
}

func cmdCopy(e *evaluator, k *call) {
	opts, ops := cmdOptions(k.args)
	if k.name == "robocopy" && (contains(opts, "mir") || contains(opts, "purge")) && !contains(opts, "l") {
		e.add(RuleRecursiveDelete, k.match(), "robocopy /mir and /purge delete recursively")
	}
	if len(ops) > 1 {
		e.write(ops[len(ops)-1], k.match(), "overwrites")
	}
}

// cmdFor handles for ... do COMMAND; with /r the command runs in every
// directory of a tree, so a delete in it deletes recursively.
func cmdFor(e *evaluator, k *call) {
	recursive, counted, endless := false, false, false
	for i, w := range k.args {
		t := strings.ToLower(w.Text)
		if t == "/r" {
			recursive = true
		}
		if t == "/l" {
			counted = true
		}
		if t != "do" {
			continue
		}
		if counted {
			// for /l %i in (start,step,end): a step of 0 never ends. The
			// set may be split at its commas, which cmd reads as blanks.
			var set []string
			for j := i - 1; j >= 0 && strings.ToLower(k.args[j].Text) != "in"; j-- {
				set = append([]string{k.args[j].Text}, set...)
			}
			parts := strings.FieldsFunc(strings.Trim(strings.Join(set, ","), "()"), func(r rune) bool { return r == ',' || r == ' ' })
			endless = len(parts) == 3 && parts[1] == "0"
		}
		bodies := cmdBodies(k.args[i+1:])
		if len(bodies) == 0 {
			return
		}
		inner := bodies[0]
		if endless && len(inner) > 0 && !inner[0].Dynamic() {
			switch canonical(Cmd, inner[0].Text) {
			case "start", "cmd", "powershell", "pwsh":
				e.add(RuleForkBomb, k.match(), "an endless for /l loop that starts %s: a fork bomb", inner[0].Text)
			}
		}
		if recursive && len(inner) > 0 && !inner[0].Dynamic() {
			switch canonical(Cmd, inner[0].Text) {
			case "del", "rd":
				e.add(RuleRecursiveDelete, k.match(), "for /r with %s deletes recursively", inner[0].Text)
			}
		}
		e.argv(k.c, inner, k.stdin, k.sh, k.depth)
		return
	}
}

// cmdIf handles if [/i] [not] CONDITION COMMAND.
func cmdIf(e *evaluator, k *call) {
	a := k.args
	for len(a) > 0 && (strings.EqualFold(a[0].Text, "/i") || strings.EqualFold(a[0].Text, "not")) {
		a = a[1:]
	}
	if len(a) == 0 {
		return
	}
	switch strings.ToLower(a[0].Text) {
	case "exist", "defined", "errorlevel", "cmdextversion":
		a = a[min(2, len(a)):]
	default:
		if len(a) > 2 && !strings.Contains(a[0].Text, "==") {
			a = a[3:] // a EQU b
		} else if strings.Contains(a[0].Text, "==") {
			a = a[1:]
		} else {
			a = a[min(3, len(a)):]
		}
	}
	for _, body := range cmdBodies(a) {
		e.argv(k.c, body, k.stdin, k.sh, k.depth)
	}
}

// cmdBodies returns the commands an if or a for runs from the words after
// its condition or do: without the @ that hides their echo, and from a
// parenthesised block, "(rd /s /q x)", with the block after else too.
// cmd's parser leaves the block's parentheses on its first and last words.
func cmdBodies(a []shell.Word) [][]shell.Word {
	var out [][]shell.Word
	for len(a) > 0 && len(out) < 2 {
		first := a[0]
		if t := strings.TrimLeft(first.Text, "@"); t != first.Text {
			first = withText(first, t)
		}
		if !strings.HasPrefix(first.Text, "(") {
			return append(out, append([]shell.Word{first}, a[1:]...))
		}
		body := append([]shell.Word{withText(first, strings.TrimLeft(strings.TrimPrefix(first.Text, "("), "@"))}, a[1:]...)
		rest := []shell.Word(nil)
		for j, w := range body {
			if strings.HasSuffix(w.Text, ")") {
				body[j] = withText(w, strings.TrimSuffix(w.Text, ")"))
				body, rest = body[:j+1], body[j+1:]
				break
			}
		}
		if len(body) > 0 && body[0].Text == "" {
			body = body[1:]
		}
		if len(body) > 0 && body[len(body)-1].Text == "" {
			body = body[:len(body)-1]
		}
		if len(body) > 0 {
			out = append(out, body)
		}
		if len(rest) == 0 || !strings.EqualFold(rest[0].Text, "else") {
			break
		}
		a = rest[1:]
	}
	return out
}

// expr judges a PowerShell expression statement: .NET calls that delete.
// containsFold reports whether s holds sub, lowercase ASCII, in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// psDownload reports whether the lowercased PowerShell text t downloads:
// Invoke-WebRequest, Invoke-RestMethod (and their aliases), a WebClient.
func psDownload(t string) bool {
	for _, d := range []string{"(irm ", "(iwr ", "invoke-restmethod", "invoke-webrequest", ".downloadstring(", "(curl ", "(wget "} {
		if strings.Contains(t, d) {
			return true
		}
	}
	return false
}

// scriptblockDownload judges a PowerShell command that makes a script block
// of a download, [scriptblock]::Create((irm URL)), to run it: an install.
func (e *evaluator) scriptblockDownload(c *shell.Cmd, depth int) {
	if !containsFold(c.Source, "scriptblock") {
		return
	}
	t := strings.ToLower(strings.ReplaceAll(c.Source, " ", ""))
	if !strings.Contains(t, "[scriptblock]::create(") {
		return
	}
	if psDownload(strings.ToLower(c.Source)) {
		e.add(RuleInstall, c.Source, "running a downloaded script installs code nobody reviewed")
		return
	}
	// [scriptblock]::Create('Remove-Item x -Recurse'): the string is a script
	// the line runs (& $sb, Invoke-Command $sb, .Invoke()).
	low := strings.ToLower(c.Source)
	if i := strings.Index(low, "::create("); i >= 0 {
		if text, ok := firstQuoted(c.Source[i:]); ok {
			e.script(text, PowerShell, depth+1)
		}
	}
}

func (e *evaluator) expr(c *shell.Cmd) {
	t := strings.ToLower(strings.ReplaceAll(c.Source, " ", ""))
	if strings.Contains(t, ".downloadfile(") {
		// (New-Object Net.WebClient).DownloadFile(URL, FILE): FILE is a
		// download, and running it later runs downloaded code.
		for _, m := range psDownloadFile().FindAllStringSubmatch(c.Source, 4) {
			dest := shell.Lit(m[1])
			e.write(dest, c.Source, "downloads over")
			e.recordDownload(dest)
		}
	}
	if strings.Contains(t, "directory]::delete(") && (strings.Contains(t, "$true") || strings.Contains(t, ",1)")) {
		e.add(RuleRecursiveDelete, c.Source, "[System.IO.Directory]::Delete with recursion deletes recursively")
	} else if strings.Contains(t, ".delete($true)") || strings.Contains(t, ").delete(1)") {
		e.add(RuleRecursiveDelete, c.Source, "DirectoryInfo.Delete($true) deletes recursively")
	}
	if strings.Contains(t, "]::writealltext(") || strings.Contains(t, "]::appendalltext(") || strings.Contains(t, "]::writealllines(") {
		// [IO.File]::WriteAllText(path, text): the text lands in path.
		var quoted []shell.Word
		for _, w := range c.Args {
			for _, s := range w.Subst {
				for _, a := range s.Args {
					if a.Quoted {
						quoted = append(quoted, shell.Word{Text: strings.TrimRight(a.Text, ",")})
					}
				}
			}
		}
		if len(quoted) > 1 {
			e.wrote(quoted[0], quoted[1].Text, strings.Contains(t, "]::append"))
			e.secret(quoted[0], quoted[1].Text)
		}
	}
	if strings.Contains(t, "]::delete(") || strings.Contains(t, "]::writealltext(") || strings.Contains(t, "]::move(") ||
		strings.Contains(t, "]::writeallbytes(") || strings.Contains(t, "]::writealllines(") ||
		strings.Contains(t, "]::appendalltext(") || strings.Contains(t, "]::appendalllines(") {
		for _, w := range c.Args {
			for _, s := range w.Subst {
				for _, a := range s.Args {
					if a.Quoted {
						// "$PWD\.git\index" keeps its literal tail.
						e.write(trimCommas(a), c.Source, "changes")
					}
				}
			}
		}
	}
}

// trimCommas returns w without the commas that end it (an argument list's
// separator), keeping which of its parts are known only at run time.
func trimCommas(w shell.Word) shell.Word {
	n := len(w.Text) - len(strings.TrimRight(w.Text, ","))
	if n == 0 {
		return w
	}
	w.Text = w.Text[:len(w.Text)-n]
	if len(w.Segs) > 0 {
		segs := append([]shell.Seg(nil), w.Segs...)
		last := &segs[len(segs)-1]
		last.Text = last.Text[:len(last.Text)-min(n, len(last.Text))]
		w.Segs = segs
	}
	return w
}

func init() {
	handle(windowsRemoteRun, "msiexec", "mshta")
}

// windowsRemoteRun judges Windows' runners of code fetched from a URL:
// mshta URL runs a remote HTML application, msiexec /i URL (/package)
// installs a remote package. Running downloaded code installs code nobody
// reviewed (pkg.install); a local file is judged by its name only.
func windowsRemoteRun(e *evaluator, k *call) {
	for i, w := range k.args {
		if !isURL(w.Text) {
			continue
		}
		if k.name == "mshta" {
			e.add(RuleInstall, k.match(), "mshta runs the application at %s, code nobody reviewed", w.Text)
			return
		}
		if i > 0 {
			switch strings.ToLower(k.args[i-1].Text) {
			case "/i", "-i", "/package", "-package", "/a", "-a", "/j", "-j":
				e.add(RuleInstall, k.match(), "msiexec installs the package at %s, which the plan does not allow", w.Text)
				return
			}
		}
	}
}

// cmdSet records set NAME=VALUE (or set "NAME=VALUE") for cmdExpand: the
// value is the rest of the command, as cmd takes it. set /a and /p, and a
// value holding a variable, are not recorded (and forget NAME).
func (e *evaluator) cmdSet(a []shell.Word) {
	if len(a) == 0 || strings.HasPrefix(a[0].Text, "/") {
		return
	}
	name, value, ok := strings.Cut(a[0].Text, "=")
	if !ok || name == "" || strings.ContainsAny(name, " %!") {
		return
	}
	for _, w := range a[1:] {
		value += " " + w.Text
	}
	name = strings.ToLower(name)
	if strings.ContainsAny(value, "%!") || len(e.cmdVars) >= 16 {
		delete(e.cmdVars, name)
		return
	}
	if e.cmdVars == nil {
		e.cmdVars = map[string]string{}
	}
	e.cmdVars[name] = strings.TrimSpace(value)
}

// cmdExpand returns the command c's text with the %NAME% and !NAME! of
// variables set earlier in the line put in, when it uses one.
func (e *evaluator) cmdExpand(c *shell.Cmd) (string, bool) {
	if len(e.cmdVars) == 0 || !strings.ContainsAny(c.Source, "%!") {
		return "", false
	}
	text, changed := c.Source, false
	for name, value := range e.cmdVars {
		for _, d := range []string{"%", "!"} {
			ref := d + name + d
			for i := 0; i+len(ref) <= len(text); {
				j := indexFold(text[i:], ref)
				if j < 0 {
					break
				}
				text = text[:i+j] + value + text[i+j+len(ref):]
				i += j + len(value)
				changed = true
			}
		}
	}
	return text, changed
}

// indexFold is strings.Index ignoring ASCII case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

var psDownloadFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\.DownloadFile(?:Async)?\(\s*(?:'[^']*'|"[^"]*"|\$[\w:]+)\s*,\s*['"]([^'"]+)['"]`)
})
