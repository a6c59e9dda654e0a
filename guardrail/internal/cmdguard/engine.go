package cmdguard

import (
	"fmt"
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// The rule IDs.
const (
	RuleRecursiveDelete = "fs.recursive-delete"
	RuleProtected       = "fs.protected"
	RuleForcePush       = "git.force-push"
	RuleDiscard         = "git.discard"
	RuleSQLDrop         = "sql.drop"
	RuleSQLDestroy      = "sql.destroy"
	RuleInstall         = "pkg.install"
	RuleUnresolved      = "shell.unresolved"
	RuleParse           = "shell.parse"
	RuleDepth           = "shell.depth"
	RuleInteractive     = "shell.interactive"
	RuleDisk            = "sys.disk"
	RuleForkBomb        = "sys.fork-bomb"
	RuleSystemFiles     = "sys.files"
)

// The shells, as guardrail.Shell spells them.
const (
	Bash       = "bash"
	PowerShell = "powershell"
	Cmd        = "cmd"
)

// maxChain bounds commands judged inside one another without a payload
// between them (sudo nice xargs timeout ... rm), so a long chain costs
// bounded work: deeper fails closed as shell.depth.
const maxChain = 64

// DefaultMaxDepth is the payload nesting limit when Policy.MaxDepth is zero.
const DefaultMaxDepth = 8

// Policy is what the engine enforces beyond its fixed rules.
type Policy struct {
	// Protected reports whether name (relative to root, or absolute under
	// it) is protected, and by which entry; with glob, whether the glob
	// pattern name may match a protected path.
	Protected func(name, root string, glob bool) (entry string, ok bool)
	// Allowed reports whether the plan allows installing pkg of ecosystem.
	Allowed func(ecosystem, pkg string) bool
	// Root is the working tree's root, absolute and slash-separated; the
	// command runs there. Empty means unknown.
	Root string
	// MaxDepth bounds nested payloads. Zero means DefaultMaxDepth.
	MaxDepth int
	// RefuseInteractive makes a shell or REPL started without a script a
	// finding (RuleInteractive).
	RefuseInteractive bool
	// Secret, if set, judges text a command writes into the file name (a
	// here-document or echo redirected, tee): the rule and reason of the
	// first secret in it, or ok false.
	Secret func(name, text string) (rule, reason, match string, ok bool)
}

// Finding is one violated rule.
type Finding struct {
	Rule   string
	Reason string
	// Match is the offending part of the input: the command as written.
	Match string
}

// Check judges the command line src, written for shell sh, and returns every
// finding in source order, or none.
func Check(p *Policy, src, sh string) []Finding {
	e := &evaluator{p: p, root: p.Root}
	switch {
	case e.root == "":
		e.root = virtualRoot
	case len(e.root) > 1:
		e.root = strings.TrimSuffix(e.root, "/")
	}
	e.maxDepth = p.MaxDepth
	if e.maxDepth <= 0 {
		e.maxDepth = DefaultMaxDepth
	}
	e.script(src, sh, 0)
	return e.found
}

// virtualRoot stands for an unknown working tree root, so relative paths can
// be joined and matched the same way.
const virtualRoot = "/\x00root"

type evaluator struct {
	p        *Policy
	root     string
	maxDepth int
	found    []Finding
	dir      string // the directory cd moved to, absolute; "" is the root
	// fds are the descriptors exec opened for writing (exec 3>file): the
	// file each writes into.
	fds map[string]shell.Word
	// pos, when set, are the positional parameters ($0, $1, ...) of the
	// next bash script judged (sh -c 'script' NAME ARGS...).
	pos []string
	// bash parses the command line and its payloads, one after another.
	bash *shell.BashParser
	// gitAliases are the aliases git config defined earlier in the
	// command line.
	gitAliases map[string]string
	// chain counts the commands being judged inside one another (wrappers
	// unwrapped, commands a command runs), bounded by maxChain.
	chain int
	// gitSet is the configuration git config set earlier in the command
	// line, gitLocal that of -c for the git being judged; keys lowercased.
	gitSet, gitLocal map[string]string
	// env is the environment the command being judged starts with that
	// the line states: its own NAME=value assignments (cmdEnv), after the
	// git configuration and command variables exported or assigned earlier
	// in the line (lineEnv).
	cmdEnv, lineEnv []shell.Word
	// written are the files the command line wrote with text it states
	// (echo ... > f, a here-document to cat > f, Set-Content f TEXT), by
	// cleaned path: running one runs that text.
	written map[string]string
	// downloaded are the files a download earlier in the command line wrote
	// (curl -o f URL), cleaned: running one runs downloaded code.
	downloaded map[string]bool
	// cmdVars are the variables cmd's set assigned earlier in the line, by
	// lowercase name, for %NAME% and !NAME! after it.
	cmdVars map[string]string
}

func (e *evaluator) add(rule, match, format string, args ...any) {
	e.found = append(e.found, Finding{Rule: rule, Reason: fmt.Sprintf(format, args...), Match: match})
}

// script parses and judges src as a script of shell sh, nested depth
// payloads deep.
func (e *evaluator) script(src, sh string, depth int) {
	if depth > e.maxDepth {
		e.add(RuleDepth, src, "commands nested more than %d levels deep cannot be judged", e.maxDepth)
		return
	}
	var s *shell.Script
	var err error
	switch sh {
	case PowerShell:
		s, err = shell.ParsePowerShell(src)
	case Cmd:
		s, err = shell.ParseCmd(src)
	default:
		if e.bash == nil {
			e.bash = &shell.BashParser{}
		}
		s, err = e.bash.Parse(src, e.pos)
		e.pos = nil
	}
	if err != nil {
		e.add(RuleParse, src, "the command does not parse as %s (%v), so it cannot be judged", shellName(sh), err)
		return
	}
	if (sh == PowerShell || sh == Cmd) && endlessStarts(src, sh) {
		e.add(RuleForkBomb, src, "an endless loop that starts processes: a fork bomb")
	}
	savedDir := e.dir
	defer func() { e.dir = savedDir }()
	for _, c := range s.Cmds {
		e.cmd(c, sh, depth)
	}
}

func shellName(sh string) string {
	if sh == "" {
		return Bash
	}
	return sh
}

// cmd judges one simple command.
func (e *evaluator) cmd(c *shell.Cmd, sh string, depth int) {
	execOnly := len(c.Args) == 1 && c.Args[0].Text == "exec"
	for _, r := range c.Redirs {
		target, writes := r.Target, r.Writes()
		if r.Op == ">&" || r.Op == ">>&" {
			// >&3 after exec 3>file writes into file.
			if f, ok := e.fds[r.Target.Text]; ok {
				target, writes = f, true
			}
		}
		if !writes {
			continue
		}
		if execOnly && r.Fd != "" && r.Fd != "1" && r.Fd != "2" {
			if e.fds == nil {
				e.fds = map[string]shell.Word{}
			}
			e.fds[r.Fd] = r.Target
		}
		if target.Text == r.Target.Text {
			e.write(target, c.Source, "redirects output into")
		}
		if text, ok := writtenText(c, sh); ok {
			e.wrote(target, text, r.Op == ">>" || r.Op == "&>>")
			e.secret(target, text)
		} else if text, ok := outputText(c, sh); ok {
			e.secret(target, text)
		}
	}
	if sh == PowerShell {
		e.scriptblockDownload(c, depth)
	}
	if c.Expr {
		e.expr(c)
		return
	}
	for _, w := range c.Env {
		e.envCommand(depth, w)
	}
	if len(c.Args) == 0 {
		e.lineEnv = append(e.lineEnv, c.Env...)
	}
	e.forkBomb(c)
	saved := e.cmdEnv
	e.cmdEnv = c.Env
	e.argv(c, c.Args, c.Stdin, sh, depth)
	e.cmdEnv = saved
}

// envValue returns the value the variable name has in the environment of
// the command being judged, as the line states it: an assignment before
// the command or given to env in front of it (the last one wins), or one
// earlier in the line.
func (e *evaluator) envValue(k *call, name string) (shell.Word, bool) {
	prefix := name + "="
	for _, ws := range [...][]shell.Word{k.c.Args, e.cmdEnv, e.lineEnv} {
		for i := len(ws) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(ws[i].Text, prefix); ok {
				return withText(ws[i], v), true
			}
		}
	}
	return shell.Word{}, false
}

// call is a command being judged: its canonical name and arguments, after
// any wrappers.
type call struct {
	c     *shell.Cmd
	name  string
	args  []shell.Word
	stdin shell.Input
	sh    string
	depth int
}

func (k *call) match() string { return k.c.Source }

// matchInput is match with what pipes into the command in front of it.
func (k *call) matchInput() string {
	if k.stdin.Kind == shell.Pipe && k.stdin.From != nil {
		return k.stdin.From.Source + " | " + k.c.Source
	}
	return k.c.Source
}

// argv judges args as a command run from c with the given standard input.
func (e *evaluator) argv(c *shell.Cmd, args []shell.Word, stdin shell.Input, sh string, depth int) {
	if len(args) == 0 {
		return
	}
	if e.chain >= maxChain {
		e.add(RuleDepth, c.Source, "commands wrapped more than %d deep cannot be judged", maxChain)
		return
	}
	e.chain++
	defer func() { e.chain-- }()
	if e.downloaded != nil && (sh == Cmd || strings.ContainsAny(args[0].Text, `/\`)) && e.ranDownload(c.Source, args[0]) {
		// ./install.sh after curl -o install.sh URL; cmd runs i.cmd, or i,
		// from the current directory too; & "$env:TEMP\i.exe" after
		// -OutFile "$env:TEMP\i.exe".
		return
	}
	if sh != PowerShell && sh != Cmd {
		// rm $(echo -rf) x: the printed text is the arguments. A name so
		// built ($(echo rm) -rf x) stays a run-time name (shell.unresolved).
		if resolved, ok := printedArgs(args[1:]); ok {
			args = append([]shell.Word{args[0]}, resolved...)
		}
	}
	if sh == Cmd {
		if strings.EqualFold(args[0].Text, "set") {
			e.cmdSet(args[1:])
		} else if text, ok := e.cmdExpand(c); ok {
			// set X=rd /s /q & call %X% build: cmd puts the value in the
			// line's text, then reads it.
			e.script(text, Cmd, depth+1)
			return
		}
	}
	if args[0].Dynamic() {
		e.dynamicName(c, args, stdin, sh, depth)
		return
	}
	if e.written != nil {
		if stdin.Kind == shell.File {
			// mysql < t.sql after echo '...' > t.sql: the input is known.
			if text, ok := e.writtenText(stdin.Text); ok {
				stdin = shell.Input{Kind: shell.Text, Text: shell.Lit(text)}
			}
		}
		if sh == Cmd || strings.ContainsAny(args[0].Text, `/\`) {
			// ./r.sh, .\c.ps1, c.cmd after the line wrote them.
			if text, ok := e.writtenText(args[0]); ok {
				e.script(text, scriptShell(args[0].Text, sh), depth+1)
			}
		}
	}
	k := &call{c: c, name: canonical(sh, args[0].Text), args: args[1:], stdin: stdin, sh: sh, depth: depth}
	if _, ok := commandOpts[k.name]; ok {
		e.commandOptions(k)
	}
	switch {
	case wrapperOutputs[k.name] != nil || k.name == "script":
		e.wrapperOutput(k)
	case k.name == "docker" || k.name == "podman":
		e.outputOptions(k, outputOpts[k.name]) // docker save -o: docker is unwrapped below, never judged by rules
	}
	if dir, ok := wrapperDir(k); ok {
		saved := e.dir
		e.chdir(dir)
		defer func() { e.dir = saved }()
	}
	if inner, alt, ok := e.unwrap(k); ok {
		if k.name == "xargs" {
			stdin = shell.Input{} // xargs reads it; the command gets none
		}
		e.argv(c, inner, stdin, sh, depth)
		if alt != nil {
			e.alternative(c, k.name, alt, stdin, sh, depth)
		}
		return
	}
	e.rules(k)
}

// alternative judges alt, another reading of a wrapper's arguments when an
// option harnish does not know may take a value: what it finds fails closed.
func (e *evaluator) alternative(c *shell.Cmd, wrapper string, alt []shell.Word, stdin shell.Input, sh string, depth int) {
	probe := &evaluator{p: e.p, root: e.root, maxDepth: e.maxDepth, dir: e.dir, bash: e.bash, chain: e.chain}
	probe.argv(c, alt, stdin, sh, depth)
	for _, f := range probe.found {
		if f.Rule == RuleParse || f.Rule == RuleDepth {
			continue
		}
		e.add(RuleUnresolved, c.Source, "%s has an option harnish does not know; if it takes a value, the command it runs trips %s (%s)",
			wrapper, f.Rule, f.Reason)
		return
	}
}

// rules applies the rule of the command's name.
func (e *evaluator) rules(k *call) {
	e.interactive(k)
	if _, ok := dbTasks[k.name]; ok || dbToolNames[k.name] != "" {
		if !e.frameworkCode(k, k.name, k.args) {
			e.dbTask(k, k.name, k.args)
		}
	}
	if names := outputOpts[k.name]; names != nil {
		e.outputOptions(k, names)
	}
	if in, ok := installers[k.name]; ok {
		e.packageInstall(k, in)
	}
	e.credentialConfig(k)
	if h := handlers[k.name]; h != nil {
		h(e, k)
	} else if isMkfs(k.name) {
		mkfsCommand(e, k)
	} else if interpreterName(k.name) == "python" {
		pythonCommand(e, k)
	} else {
		e.unknownProgram(k)
	}
}

// handlers maps canonical command names to their rules. It is filled by
// init functions in the rule files.
var handlers = map[string]func(*evaluator, *call){}

func handle(f func(*evaluator, *call), names ...string) {
	for _, n := range names {
		handlers[n] = f
	}
}

// dynamicName judges a command whose name is built at run time: it fails
// closed when the arguments would be dangerous for a destructive command.
func (e *evaluator) dynamicName(c *shell.Cmd, args []shell.Word, stdin shell.Input, sh string, depth int) {
	// An unquoted expansion may split the name itself into words
	// (rm${IFS}-rf${IFS}/): judge its literal parts as a command line too.
	if fields := splitAtDynamic(args[0]); len(fields) > 1 {
		probe := &evaluator{p: e.p, root: e.root, maxDepth: e.maxDepth, dir: e.dir, bash: e.bash, chain: e.chain}
		probe.argv(c, append(fields, args[1:]...), stdin, sh, depth)
		for _, f := range probe.found {
			e.add(RuleUnresolved, c.Source, "the command %q is split at run time into a command that trips %s", args[0].Text, f.Rule)
			return
		}
	}
	for _, cand := range candidates[sh] {
		probe := &evaluator{p: e.p, root: e.root, maxDepth: e.maxDepth, dir: e.dir, bash: e.bash, chain: e.chain}
		words := append([]shell.Word{shell.Lit(cand)}, args[1:]...)
		probe.argv(c, words, stdin, sh, depth)
		for _, f := range probe.found {
			if f.Rule == RuleParse || f.Rule == RuleDepth {
				continue
			}
			e.add(RuleUnresolved, c.Source,
				"the command name %q is built at run time and its arguments would be dangerous for %s (%s)",
				args[0].Text, cand, f.Rule)
			return
		}
	}
}

// candidates are the destructive commands a run-time name is tried as.
var candidates = map[string][]string{
	Bash:       {"rm", "git", "psql", "sh", "rsync"},
	"":         {"rm", "git", "psql", "sh", "rsync"},
	PowerShell: {"remove-item", "git", "psql", "invoke-expression"},
	Cmd:        {"rd", "del", "git", "psql"},
}

// canonical returns the name a command is judged by: lowercase, without
// directory or Windows executable extension, PowerShell aliases resolved.
func canonical(sh, name string) string {
	if plainName(name) {
		return aliasOf(sh, name) // the common case: a lowercase name, nothing to strip
	}
	if len(name) > 1 && name[0] == '=' && sh != PowerShell && sh != Cmd {
		name = name[1:] // zsh's =rm is the path of rm
	}
	if i := strings.LastIndexAny(name, `/\`); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	name = strings.ToLower(name)
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		if n, ok := strings.CutSuffix(name, ext); ok && n != "" {
			if sh == PowerShell {
				// curl.exe is the program, not PowerShell's curl alias.
				return n
			}
			name = n
			break
		}
	}
	if i := strings.LastIndexByte(name, '@'); i > 0 && sh != PowerShell && sh != Cmd {
		// A package runner's name@version (npx rimraf@5).
		name = name[:i]
	}
	if len(name) > 4 && strings.HasPrefix(name, "pip") && strings.Trim(name[3:], "0123456789.") == "" {
		return "pip" // pip3.11, the pip of one Python version
	}
	return aliasOf(sh, name)
}

// aliasOf returns the command the shell sh runs by the lowercase name:
// PowerShell's aliases, cmd's names, Homebrew's g-prefixed GNU tools.
func aliasOf(sh, name string) string {
	var aliases map[string]string
	switch sh {
	case PowerShell:
		aliases = psAliases
	case Cmd:
		aliases = cmdNames
	default:
		aliases = gnuPrefixed
	}
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// plainName reports whether name is only lowercase letters, digits, - and
// _: no directory, extension, version or capital to take off.
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return name != ""
}

// gnuPrefixed are GNU's tools as Homebrew installs them beside the BSD ones,
// with a g in front (grm, gfind).
var gnuPrefixed = map[string]string{
	"grm": "rm", "gfind": "find", "gxargs": "xargs", "gsed": "sed", "gdd": "dd", "gshred": "shred",
	"gtruncate": "truncate", "gmv": "mv", "gcp": "cp", "gln": "ln", "ginstall": "install",
	"gtimeout": "timeout", "gtee": "tee", "genv": "env", "gnice": "nice", "gstdbuf": "stdbuf",
	"grmdir": "rmdir", "gunlink": "unlink", "gsort": "sort",
	"hub": "git", // GitHub's git wrapper: hub push -f is git push -f
}

// psAliases maps PowerShell's built-in aliases to their cmdlets.
var psAliases = map[string]string{
	"rm": "remove-item", "ri": "remove-item", "del": "remove-item", "rd": "remove-item",
	"erase": "remove-item", "rmdir": "remove-item",
	"mv": "move-item", "mi": "move-item", "move": "move-item",
	"cp": "copy-item", "cpi": "copy-item", "copy": "copy-item",
	"ren": "rename-item", "rni": "rename-item",
	"sc": "set-content", "ac": "add-content", "clc": "clear-content",
	"iex": "invoke-expression", "icm": "invoke-command",
	"iwr": "invoke-webrequest", "curl": "invoke-webrequest", "wget": "invoke-webrequest",
	"irm": "invoke-restmethod",
	"cd":  "set-location", "sl": "set-location", "chdir": "set-location",
	"gci": "get-childitem", "ls": "get-childitem", "dir": "get-childitem",
	"start": "start-process", "saps": "start-process",
	"ni": "new-item", "cat": "get-content", "gc": "get-content", "type": "get-content",
	"echo": "write-output", "write": "write-output", "tee": "tee-object",
	"%": "foreach-object", "foreach": "foreach-object",
}

// cmdNames maps cmd built-in spellings to one name.
var cmdNames = map[string]string{
	"erase": "del", "rmdir": "rd", "rename": "ren", "chdir": "cd",
}

// splitAtDynamic returns the literal parts of w as words, split at its
// dynamic parts and blanks.
func splitAtDynamic(w shell.Word) []shell.Word {
	var out []shell.Word
	for _, s := range w.Segs {
		if s.Dynamic {
			continue
		}
		for _, f := range strings.Fields(s.Text) {
			out = append(out, shell.Lit(f))
		}
	}
	return out
}

// secret judges text that a command writes into the file w. The finding's
// Match is the masked secret, never the command, which holds it.
func (e *evaluator) secret(w shell.Word, text string) {
	if e.p.Secret == nil || strings.TrimSpace(text) == "" {
		return
	}
	if rule, reason, masked, ok := e.p.Secret(w.Text, text); ok {
		e.found = append(e.found, Finding{Rule: rule, Reason: reason, Match: masked})
	}
}

// writesFile reports whether c redirects its output into a file.
func writesFile(c *shell.Cmd) bool {
	for _, r := range c.Redirs {
		if r.Writes() {
			return true
		}
	}
	return false
}

// stdinSecret judges what k writes into the file w from its standard input
// (tee, dd of=, sponge, cp /dev/stdin), when that input is known.
func (e *evaluator) stdinSecret(k *call, w shell.Word) {
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		e.wrote(w, text.Text, false)
		e.secret(w, text.Text)
	}
}

// writtenText returns what c writes to its standard output when that is
// known: echo's and printf's arguments, or the here-document, here-string
// or echoed text cat passes on.
func writtenText(c *shell.Cmd, sh string) (string, bool) {
	if len(c.Args) == 0 && len(c.Inner) > 0 {
		// A block, subshell or loop redirected: what its commands write
		// to their standard output.
		var b strings.Builder
		for _, in := range c.Inner {
			if writesFile(in) {
				continue
			}
			if t, ok := writtenText(in, sh); ok {
				b.WriteString(t)
				b.WriteByte('\n')
			}
		}
		return b.String(), b.Len() > 0
	}
	if c.Expr && len(c.Args) > 0 {
		// A PowerShell expression: "text" > file.
		w := joinPlain(c.Args)
		return w.Text, !w.Dynamic() || strings.TrimSpace(w.Static()) != ""
	}
	if len(c.Args) == 0 || c.Args[0].Dynamic() {
		return "", false
	}
	switch canonical(sh, c.Args[0].Text) {
	case "echo", "printf", "write-output":
		text, state, _ := stdinText(shell.Input{Kind: shell.Pipe, From: c}, 0)
		return text.Text, state == inputKnown
	case "cat", "get-content":
		if len(c.Args) > 1 {
			return "", false // files, read
		}
		text, state, _ := stdinText(c.Stdin, 0)
		return text.Text, state == inputKnown
	}
	return "", false
}

// scriptLines splits a script of a SQL client, sed or the like into its
// commands: at newlines and semicolons, empty ones dropped.
func scriptLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ';' })
}

// lowerASCII returns s with its ASCII letters in lower case and every other
// byte as it is, so an index into it is one into s (strings.ToLower turns
// an invalid byte into three).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// wrote records text the line writes into the file w: replacing what a
// write earlier in the line put there, or appended to it.
func (e *evaluator) wrote(w shell.Word, text string, appended bool) {
	if w.Text == "" || w.Text == "-" || len(e.written) >= maxWritten {
		return
	}
	if e.written == nil {
		e.written = map[string]string{}
	}
	p := cleanScriptPath(w.Text)
	if appended {
		text = e.written[p] + text
	}
	e.written[p] = text
}

// maxWritten bounds the files whose text a line's writes are kept for.
const maxWritten = 64

// writtenText returns the text the line wrote into the file w, if it did.
func (e *evaluator) writtenText(w shell.Word) (string, bool) {
	if e.written == nil || w.Text == "" {
		return "", false
	}
	text, ok := e.written[cleanScriptPath(w.Text)]
	return text, ok
}

// scriptShell is the shell that runs the script file name when it is run
// by its path from shell sh: PowerShell for .ps1, cmd for .cmd and .bat,
// and bash for the rest (a shebang line is not read).
func scriptShell(name, sh string) string {
	switch ext := strings.ToLower(path.Ext(name)); {
	case ext == ".ps1":
		return PowerShell
	case ext == ".cmd" || ext == ".bat":
		return Cmd
	case sh == Cmd:
		return Cmd
	}
	return Bash
}
