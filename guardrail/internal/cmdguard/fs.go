package cmdguard

import (
	"path"
	"slices"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(rmCommand, "rm", "safe-rm")
	handle(rmLike, "srm", "wipe")
	handle(sdeleteCommand, "sdelete", "sdelete64")
	handle(deleteOperands, "unlink", "shred", "rmdir")
	handle(mvCommand, "mv")
	handle(lastOperandWritten, "cp", "ln", "install")
	handle(truncateCommand, "truncate")
	handle(ddCommand, "dd")
	handle(teeCommand, "tee")
	handle(awsCommand, "aws")
	handle(spongeCommand, "sponge")
	handle(sedCommand, "sed")
	handle(sdCommand, "sd")
	handle(patchCommand, "patch")
	handle(sortCommand, "sort")
	handle(findCommand, "find")
	handle(rsyncCommand, "rsync")
	handle(rimrafCommand, "rimraf")
	handle(downloadOutput, "curl", "wget", "invoke-webrequest", "invoke-restmethod")
	handle(windowsDownload, "certutil", "bitsadmin", "start-bitstransfer")
	handle(cdCommand, "cd", "pushd", "set-location", "push-location")
}

// write judges a command that deletes, moves, truncates or overwrites the
// path w: it must not be protected.
func (e *evaluator) write(w shell.Word, match, verb string) {
	if device(w) {
		e.add(RuleDisk, match, "the command %s %q, a disk or memory device: that destroys a file system or the machine", verb, w.Text)
		return
	}
	if dir, ok := e.systemFile(w); ok {
		e.add(RuleSystemFiles, match, "the command %s %q, a file of the system's own (%s), outside the working tree", verb, w.Text, dir)
		return
	}
	if entry, ok := e.protected(w); ok {
		e.add(RuleProtected, match, "the command %s %q, which is protected (%s)", verb, w.Text, entry)
	}
}

// protected reports whether the path w names, or may name, a protected
// path. A dynamic path is judged by its literal tail ("$ROOT/.harnish/x" is
// ".harnish/x"); a path relative to a directory the command changed to is
// judged both from there and from the root, since a subshell may have undone
// the change.
func (e *evaluator) protected(w shell.Word) (string, bool) {
	if e.p.Protected == nil || w.Text == "" {
		return "", false
	}
	glob := w.Glob
	name := w.Text
	if w.Dynamic() {
		tail := strings.TrimLeft(strings.ReplaceAll(w.Tail(), `\`, "/"), "/")
		if tail == "" || path.Clean(tail) == "." {
			return "", false
		}
		name = tail
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if isAbs(name) {
		if entry, ok := e.p.Protected(name, e.root, glob); ok {
			return entry, true
		}
		if e.root == virtualRoot {
			// The root is not known: any suffix might be relative to it.
			for i := 1; i < len(name); i++ {
				if name[i] == '/' && i+1 < len(name) {
					if entry, ok := e.p.Protected(name[i+1:], "", glob); ok && strings.Trim(name[i+1:], "/.") != "" {
						return entry, true
					}
				}
			}
		}
		return "", false
	}
	for _, dir := range []string{e.dir, ""} {
		base := e.root
		if dir != "" {
			base = dir
		}
		if entry, ok := e.p.Protected(path.Join(base, name), e.root, glob); ok {
			return entry, true
		}
		if e.dir == "" {
			break
		}
	}
	return "", false
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// operands splits GNU-style arguments into option words and operands. valued
// lists the short options taking a value, long the long ones.
func operands(a []shell.Word, valued, long string) (opts []string, ops []shell.Word, values optValues) {
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			return opts, append(ops, a[i+1:]...), values
		case strings.HasPrefix(t, "--") && !a[i].Dynamic():
			name, v, hasValue := strings.Cut(t[2:], "=")
			opts = append(opts, "--"+name)
			if hasValue {
				values = setValue(values, "--"+name, shell.Lit(v))
			} else if hasField(long, name) && i+1 < len(a) {
				i++
				values = setValue(values, "--"+name, a[i])
			}
		case len(t) > 1 && t[0] == '-' && !a[i].Dynamic():
			// A cluster ends at an option taking a value: what follows it
			// is the value (git checkout -bfix), not more options.
			opt := t
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(valued, t[j]) >= 0 {
					opt = t[:j+1]
					break
				}
			}
			opts = append(opts, opt)
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(valued, t[j]) >= 0 {
					if j < len(t)-1 {
						values = setValue(values, "-"+t[j:j+1], shell.Lit(t[j+1:]))
					} else if i+1 < len(a) {
						i++
						values = setValue(values, "-"+t[j:j+1], a[i])
					}
					break
				}
			}
		case a[i].Dynamic() && len(a[i].Segs) > 0 && !a[i].Segs[0].Dynamic && len(a[i].Segs[0].Text) > 1 && a[i].Segs[0].Text[0] == '-':
			// -r$(x): the options written are options whatever the rest
			// turns out to be.
			opts = append(opts, a[i].Segs[0].Text)
		default:
			ops = append(ops, a[i])
		}
	}
	return opts, ops, values
}

// expandLongs puts, for each long option in opts that is a prefix of known
// long options but none of them, the options it abbreviates, as GNU
// getopt_long and git's parse-options read them (git reset --ha is --hard).
// An ambiguous prefix, which the program refuses, stands for every option it
// may mean, so the judgement fails closed.
func expandLongs(opts []string, known []string) []string {
	var out []string
	for i, o := range opts {
		name, ok := strings.CutPrefix(o, "--")
		if !ok || name == "" || contains(known, name) {
			if out != nil {
				out = append(out, o)
			}
			continue
		}
		var match []string
		for _, k := range known {
			if strings.HasPrefix(k, name) {
				match = append(match, "--"+k)
			}
		}
		if len(match) == 0 {
			if out != nil {
				out = append(out, o)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(opts)+len(match)), opts[:i]...)
		}
		out = append(out, match...)
	}
	if out == nil {
		return opts
	}
	return out
}

// hasShort reports whether opts has a short cluster with one of letters, or
// one of the long options.
func hasShort(opts []string, letters string, long ...string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") {
			if contains(long, o) {
				return true
			}
			continue
		}
		if strings.ContainsAny(o[1:], letters) {
			return true
		}
	}
	return false
}

// rmLongs are GNU rm's long options; getopt_long takes any unique prefix
// of one (rm --rec is rm --recursive).
var rmLongs = longs("force interactive one-file-system no-preserve-root preserve-root recursive dir verbose help version")

func rmCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "", "")
	opts = expandLongs(opts, rmLongs)
	if hasShort(opts, "rR", "--recursive") {
		e.add(RuleRecursiveDelete, k.match(), "recursive deletion (rm %s) can destroy the working tree", strings.Join(opts, " "))
	}
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

// rmLike handles the programs that delete like rm and recurse with -r:
// srm (secure rm) and wipe.
func rmLike(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "", "")
	if hasShort(opts, "rR", "--recursive") {
		e.add(RuleRecursiveDelete, k.match(), "recursive deletion (%s %s) can destroy the working tree", k.name, strings.Join(opts, " "))
	}
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

// sdeleteCommand judges Sysinternals' SDelete: it overwrites and deletes
// its operands, and with -s the directories' contents too (-r only clears
// read-only attributes).
func sdeleteCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "p", "")
	if hasShort(opts, "s") {
		e.add(RuleRecursiveDelete, k.match(), "%s -s deletes directories with their contents", k.name)
	}
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

func deleteOperands(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "ns", "iterations size")
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

func mvCommand(e *evaluator, k *call) {
	_, ops, v := operands(k.args, "tS", "target-directory suffix")
	for _, w := range ops {
		e.write(w, k.match(), "moves")
	}
	if t, ok := v.get("-t"); ok {
		e.write(t, k.match(), "moves into")
	}
	if t, ok := v.get("--target-directory"); ok {
		e.write(t, k.match(), "moves into")
	}
}

// lastOperandWritten handles cp, ln and install: the last operand (or the
// target directory) is written; the others are only read.
func lastOperandWritten(e *evaluator, k *call) {
	_, ops, v := operands(k.args, "tSmogb", "target-directory suffix mode owner group backup")
	for _, key := range []string{"-t", "--target-directory"} {
		if t, ok := v.get(key); ok {
			e.writeInto(t, k.match(), "writes")
			return
		}
	}
	if k.name == "ln" {
		// A link to a protected path is a way to write it: what is
		// written through the link lands there.
		for _, w := range ops[:max(len(ops)-1, min(len(ops), 1))] {
			if entry, ok := e.protected(w); ok {
				e.add(RuleProtected, k.match(), "the command links to %q, which is protected (%s): what is written through the link lands there", w.Text, entry)
			}
		}
	}
	if len(ops) > 1 {
		e.writeInto(ops[len(ops)-1], k.match(), "overwrites")
		if k.name == "cp" && ops[0].Text == "-" || (k.name == "cp" || k.name == "install") && ops[0].Text == "/dev/stdin" {
			e.stdinSecret(k, ops[len(ops)-1])
		}
	}
}

// spongeCommand judges sponge FILE: it writes its standard input there.
func spongeCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "", "")
	for _, w := range ops {
		e.write(w, k.match(), "overwrites")
		e.stdinSecret(k, w)
	}
}

func truncateCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "sr", "size reference")
	for _, w := range ops {
		e.write(w, k.match(), "truncates")
	}
}

func ddCommand(e *evaluator, k *call) {
	for _, w := range k.args {
		if strings.HasPrefix(w.Text, "of=") {
			e.write(trimWord(w, len("of=")), k.match(), "overwrites")
			e.stdinSecret(k, trimWord(w, len("of=")))
		}
	}
}

func teeCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "", "")
	text, state, _ := stdinText(k.stdin, 0)
	for _, w := range ops {
		e.write(w, k.match(), "overwrites")
		if state == inputKnown {
			e.wrote(w, text.Text, hasShort(opts, "a", "--append"))
			e.secret(w, text.Text)
		}
	}
}

func sedCommand(e *evaluator, k *call) {
	opts, ops, v := operands(k.args, "efl", "expression file line-length")
	inPlace := false
	for _, o := range opts {
		if o == "--in-place" || !strings.HasPrefix(o, "--") && strings.Contains(o, "i") {
			inPlace = true
		}
	}
	_, e1 := v.get("-e")
	_, e2 := v.get("--expression")
	_, f1 := v.get("-f")
	script := ""
	for _, key := range []string{"-e", "--expression"} {
		script += v.val(key).Text + "\n"
	}
	if !e1 && !e2 && !f1 && len(ops) > 0 {
		script = ops[0].Text
		ops = ops[1:] // the script
	}
	for _, cmd := range sedExec(script) {
		e.payload(k, shell.Lit(cmd), Bash)
	}
	for _, f := range sedWrites(script) {
		e.write(shell.Lit(f), k.match(), "writes (sed's w)")
	}
	if !inPlace {
		return
	}
	for _, w := range ops {
		e.write(w, k.match(), "edits in place")
		e.secret(w, substituted(script)) // the text its script puts in
	}
}

// substituted returns the text a sed script (or perl's -pe code) puts into
// the lines it edits, a line each: what its s commands replace with, each
// group reference (\1 or perl's $1, and & for the whole match) read as the literal text
// of what it refers to (s/^\(API_KEY=\).*/\1VALUE/ puts in API_KEY=VALUE),
// and the text of its a, i and c commands.
func substituted(script string) string {
	var b strings.Builder
	lines := scriptLines(script)
	for i := 0; i < len(lines); i++ {
		line := sedSkipAddress(lines[i])
		if len(line) > 1 && strings.IndexByte("aic", line[0]) >= 0 && (line[1] == '\\' || line[1] == ' ' || line[1] == '\t') {
			text := strings.TrimSpace(strings.TrimPrefix(line[1:], "\\"))
			if text == "" && i+1 < len(lines) {
				i++ // a\ with its text on the next line
				text = strings.TrimSpace(lines[i])
			}
			b.WriteString(text)
			b.WriteByte('\n')
			continue
		}
		if len(line) < 4 || line[0] != 's' || isAlnum(line[1]) || line[1] == ' ' || line[1] == '_' {
			continue
		}
		pattern, repl, _, ok := substitution(line[1:])
		if !ok {
			continue
		}
		groups := literalGroups(pattern)
		for i := 0; i < len(repl); i++ {
			switch c := repl[i]; {
			case c == '&':
				b.WriteString(groups[0])
			case c == '$' && perlGroup(repl[i+1:]) > 0: // perl's $1, ${1}
				n := perlGroup(repl[i+1:])
				if int(repl[i+n]-'0') < len(groups) {
					b.WriteString(groups[repl[i+n]-'0'])
				}
				i += n
				if n == 2 {
					i++ // the } of ${1}
				}
			case c == '\\' && i+1 < len(repl):
				i++
				switch d := repl[i]; {
				case d >= '1' && d <= '9':
					if n := int(d - '0'); n < len(groups) {
						b.WriteString(groups[n])
					}
				case d == 'n':
					b.WriteByte('\n')
				default:
					b.WriteByte(d)
				}
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// perlGroup returns, for the text after a $, the length of a group's
// number there (1 for $1's "1"), or of "{N" for ${N}; 0 for no group.
func perlGroup(s string) int {
	switch {
	case len(s) > 0 && s[0] >= '1' && s[0] <= '9':
		return 1
	case len(s) > 2 && s[0] == '{' && s[1] >= '1' && s[1] <= '9' && s[2] == '}':
		return 2
	}
	return 0
}

// substitution splits an s command after its s, delimiter first
// (/pattern/replacement/flags, or perl's {pattern}{replacement}), into its
// pattern, its replacement (escapes kept) and what follows them: the flags
// and, after w, a file.
func substitution(s string) (pattern, repl, flags string, ok bool) {
	part := func(s string, end byte) (string, string, bool) {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case end:
				return s[:i], s[i+1:], true
			}
		}
		return "", "", false
	}
	pattern, rest, ok := part(s[1:], closing(s[0]))
	if ok && closing(s[0]) != s[0] {
		// s{a}{b}: the replacement has brackets of its own, maybe after
		// blanks.
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return "", "", "", false
		}
		repl, flags, ok = part(rest[1:], closing(rest[0]))
		return pattern, repl, flags, ok
	}
	if !ok {
		return "", "", "", false
	}
	repl, flags, ok = part(rest, s[0])
	return pattern, repl, flags, ok
}

// closing returns the byte that closes a delimiter: the bracket's pair, or
// the byte itself.
func closing(open byte) byte {
	switch open {
	case '{':
		return '}'
	case '(':
		return ')'
	case '[':
		return ']'
	case '<':
		return '>'
	}
	return open
}

// literalGroups returns the literal text of a pattern's whole match (first)
// and of its groups, \(...\) or (...), in order: the pattern with its
// operators and classes dropped, so a replacement that refers to them is
// read with the text they stand for.
func literalGroups(pattern string) []string {
	groups := []string{""}
	var open []int // the indexes in groups of the groups open
	var whole strings.Builder
	add := func(s string) {
		whole.WriteString(s)
		for _, g := range open {
			groups[g] += s
		}
	}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			i++
			switch d := pattern[i]; d {
			case '(':
				open = append(open, len(groups))
				groups = append(groups, "")
			case ')':
				if len(open) > 0 {
					open = open[:len(open)-1]
				}
			case 'w', 'W', 's', 'S', 'd', 'D', 'b', 'B', '<', '>':
			default:
				add(string(d))
			}
		case c == '(':
			open = append(open, len(groups))
			groups = append(groups, "")
		case c == ')':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case c == '[':
			if j := strings.IndexByte(pattern[i+1:], ']'); j >= 0 {
				i += j + 1
			}
		case strings.IndexByte("^$.*+?|{}", c) >= 0:
		default:
			add(string(c))
		}
	}
	groups[0] = whole.String()
	return groups
}

// configSecret judges a command that stores KEY VALUE (or KEY=VALUE) in the
// configuration file file (npm config set, git config, aws configure set),
// as the line KEY sep VALUE.
func (e *evaluator) configSecret(file string, kv []shell.Word, sep string) {
	if len(kv) == 0 {
		return
	}
	line := kv[0].Text
	if len(kv) > 1 {
		line += sep + joinPlain(kv[1:]).Text
	}
	e.secret(shell.Lit(file), line)
}

// awsCommand judges aws configure set KEY VALUE, which writes
// ~/.aws/credentials.
func awsCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "", "profile region output endpoint-url")
	if len(ops) > 2 && ops[0].Text == "configure" && ops[1].Text == "set" {
		e.configSecret("credentials", ops[2:], " = ")
	}
	e.cloudSQL(k, "--query-string", "--sql")
	opts, _, _ := operands(k.args, "", "")
	e.s3Command(k, ops, opts)
	if len(ops) > 1 && (ops[0].Text == "ssm" && ops[1].Text == "send-command" || ops[0].Text == "ecs" && ops[1].Text == "execute-command") {
		// Commands run on instances or containers (--parameters
		// commands='...', --command '...') fail closed as an unknown
		// program's do.
		e.unknownProgram(k)
	}
}

// rimrafCommand judges the rimraf CLI: it deletes its operands recursively.
func rimrafCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "", "")
	if hasShort(opts, "h", "--help") || hasShort(opts, "", "--version") || len(ops) == 0 {
		return
	}
	e.add(RuleRecursiveDelete, k.match(), "rimraf deletes recursively")
	for _, w := range ops {
		e.write(w, k.match(), "deletes")
	}
}

// scriptInPlace judges perl -i and ruby -i (-pi, -i.bak): they rewrite
// their file operands, with what the code's s/// (perl) or its string
// literals (ruby's sub(/x/, "...")) put in. interpreterCommand calls it.
func scriptInPlace(e *evaluator, k *call, lang string) {
	valued := "eEMmIlx0"
	if lang == "ruby" {
		valued = "eIrECFx"
	}
	opts, ops, v := operands(k.args, valued, "")
	inPlace := false
	for _, o := range opts {
		if !strings.HasPrefix(o, "--") && strings.Contains(o[1:], "i") {
			inPlace = true
		}
	}
	if !inPlace {
		return
	}
	code := v.val("-e").Text + "\n" + v.val("-E").Text
	_, e1 := v.get("-e")
	_, e2 := v.get("-E")
	if !e1 && !e2 && len(ops) > 0 {
		code = ops[0].Text
		ops = ops[1:] // the script
	}
	text := substituted(code)
	if lang == "ruby" {
		text = strings.Join(stringLiterals(code, maxCalls), "\n")
	}
	for _, w := range ops {
		e.write(w, k.match(), "edits in place")
		e.secret(w, text)
	}
}

// sdCommand judges sd FIND REPLACE FILE...: it rewrites its files in place
// (but with -p, --preview), putting REPLACE in.
func sdCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "fn", "flags max-replacements")
	if hasShort(opts, "p", "--preview") || len(ops) < 3 {
		return // a preview, or standard input to standard output
	}
	for _, w := range ops[2:] {
		e.write(w, k.match(), "edits in place")
		e.secret(w, ops[1].Text)
	}
}

// patchCommand judges patch: it rewrites its file operand, or -o FILE.
func patchCommand(e *evaluator, k *call) {
	_, ops, v := operands(k.args, "pidFoDrBYzVgi", "strip directory fuzz output reject-file prefix basename-prefix suffix input")
	for _, key := range []string{"-o", "--output"} {
		if w, ok := v.get(key); ok {
			e.write(w, k.match(), "writes")
			return
		}
	}
	if len(ops) > 0 {
		e.write(ops[0], k.match(), "patches")
		return
	}
	e.stdinDiff(k)
}

// stdinDiff judges a unified diff a command (patch, git apply) reads from
// standard input, when the command line says what it is: each file it
// changes is written (fs.protected), and its added lines are judged by the
// secret rules with the file's name.
func (e *evaluator) stdinDiff(k *call) {
	text, state, _ := stdinText(k.stdin, 0)
	if state != inputKnown {
		return
	}
	for _, f := range diffFiles(text.Text) {
		e.write(shell.Lit(f.path), k.match(), "patches")
		e.secret(shell.Lit(f.path), f.added)
	}
}

// diffFile is one file of a unified diff: its path (without a/ or b/) and
// its added lines.
type diffFile struct {
	path  string
	added string
}

// maxDiffFiles bounds the files of a diff read from a command line.
const maxDiffFiles = 64

// diffFiles returns the files a unified diff changes: the paths of its
// "--- " and "+++ " headers (the new one, or the old one for a deletion),
// with the lines each adds.
func diffFiles(diff string) []diffFile {
	var out []diffFile
	var added strings.Builder
	lines := strings.Split(diff, "\n")
	flush := func() {
		if n := len(out); n > 0 {
			out[n-1].added = added.String()
		}
		added.Reset()
	}
	for i := 0; i < len(lines) && len(out) < maxDiffFiles; i++ {
		l := lines[i]
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			flush()
			path := diffPath(lines[i+1][4:])
			if path == "" {
				path = diffPath(l[4:]) // deleted: +++ /dev/null
			}
			if path != "" {
				out = append(out, diffFile{path: path})
			}
			i++
			continue
		}
		if strings.HasPrefix(l, "+") && len(out) > 0 {
			added.WriteString(l[1:])
			added.WriteByte('\n')
		}
	}
	flush()
	return out
}

// diffPath returns the path of a diff header's file name: without a/ or
// b/, a timestamp after a tab, or quotes; "" for /dev/null.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(strings.TrimSpace(s), `"`)
	if s == "/dev/null" || s == "" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		s = s[2:]
	}
	return s
}

// sortCommand judges sort -o FILE.
func sortCommand(e *evaluator, k *call) {
	_, _, v := operands(k.args, "okStT", "output key field-separator buffer-size temporary-directory parallel")
	for _, key := range []string{"-o", "--output"} {
		if w, ok := v.get(key); ok {
			e.write(w, k.match(), "writes")
		}
	}
}

// findCommand handles find: -delete deletes recursively, and -exec,
// -execdir, -ok and -okdir run a command judged on its own, with {} standing
// for the found paths.
func findCommand(e *evaluator, k *call) {
	a := k.args
	var starts []shell.Word
	i := 0
	for ; i < len(a); i++ {
		t := a[i].Text
		if t == "-H" || t == "-L" || t == "-P" || strings.HasPrefix(t, "-D") || strings.HasPrefix(t, "-O") {
			continue
		}
		if strings.HasPrefix(t, "-") || t == "(" || t == "!" {
			break
		}
		starts = append(starts, a[i])
	}
	found := dynamicWord("{}")
	for _, s := range starts {
		if entry, ok := e.protected(s); ok && strings.Trim(s.Text, "./") != "" {
			_ = entry
			found = s
		} else if _, ok := e.systemFile(s); ok && found.Text == "{}" {
			// find /etc -exec rm {} +: what is found lies under /etc.
			found = s
		}
	}
	for j := i; j+1 < len(a); j++ {
		// A name or path test naming a protected file: what is found is it.
		switch a[j].Text {
		case "-name", "-iname", "-path", "-ipath", "-wholename":
			if _, ok := e.protected(a[j+1]); ok {
				found = a[j+1]
			}
		}
	}
	for ; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "-delete":
			e.add(RuleRecursiveDelete, k.match(), "find -delete deletes recursively")
		case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
			var inner []shell.Word
			for i++; i < len(a) && a[i].Text != ";" && a[i].Text != "+"; i++ {
				w := a[i]
				if strings.Contains(w.Text, "{}") {
					w = found
				}
				inner = append(inner, w)
			}
			e.argv(k.c, inner, shell.Input{}, k.sh, k.depth)
		case t == "-fprintf":
			i += 2 // a file and a format
		case findValued[t] || strings.HasPrefix(t, "-newer"):
			i++ // the test's argument, whatever it says (-name -delete)
		}
	}
}

// findValued are find's tests and actions that take one argument.
var findValued = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-regex": true, "-iregex": true, "-lname": true, "-ilname": true, "-type": true, "-xtype": true,
	"-user": true, "-group": true, "-uid": true, "-gid": true, "-perm": true, "-size": true,
	"-mtime": true, "-atime": true, "-ctime": true, "-mmin": true, "-amin": true, "-cmin": true,
	"-maxdepth": true, "-mindepth": true, "-links": true, "-inum": true, "-samefile": true, "-used": true,
	"-fstype": true, "-context": true, "-printf": true, "-fprint": true, "-fprint0": true, "-fls": true,
	"-regextype": true, "-files0-from": true,
}

func rsyncCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "efT", "rsh filter temp-dir exclude include")
	if hasShort(opts, "n", "--dry-run", "--list-only") {
		return // it only reports what it would do
	}
	for _, o := range opts {
		if strings.HasPrefix(o, "--delete") || o == "--del" || o == "--remove-source-files" {
			e.add(RuleRecursiveDelete, k.match(), "rsync %s deletes recursively", o)
			break
		}
	}
	if len(ops) > 1 {
		e.write(ops[len(ops)-1], k.match(), "overwrites")
	}
}

// downloadOutput judges where curl, wget and Invoke-WebRequest write. What
// a download of a URL prints and a redirection puts in a file (curl URL >
// i.sh) is a download too.
func downloadOutput(e *evaluator, k *call) {
	if k.c != nil && len(k.c.Redirs) > 0 && slices.ContainsFunc(k.args, func(w shell.Word) bool { return isURL(w.Text) }) {
		for _, r := range k.c.Redirs {
			if (r.Op == ">" || r.Op == ">>" || r.Op == ">|") && (r.Fd == "" || r.Fd == "1") {
				e.recordDownload(r.Target)
			}
		}
	}
	for i, w := range k.args {
		t := w.Text
		var out bool
		switch k.name {
		case "curl":
			out = t == "-o" || t == "--output" || shortLast(t, 'o')
		case "wget":
			out = t == "-O" || t == "--output-document" || shortLast(t, 'O')
		default:
			out = len(t) > 2 && strings.HasPrefix("-outfile", strings.ToLower(t))
		}
		if out && i+1 < len(k.args) {
			e.write(k.args[i+1], k.match(), "downloads over")
			e.recordDownload(k.args[i+1])
		}
		if k.name == "curl" && (t == "-O" || t == "--remote-name" || shortLast(t, 'O')) || k.name == "wget" && isURL(t) {
			// curl -O URL and wget URL save under the URL's last part.
			for _, u := range k.args[i:] {
				if isURL(u.Text) {
					e.recordDownload(withText(u, path.Base(strings.SplitN(u.Text, "?", 2)[0])))
					break
				}
			}
		}
	}
}

// windowsDownload notes the file the downloaders Windows ships write:
// certutil -urlcache ... URL FILE, bitsadmin /transfer NAME ... URL FILE,
// Start-BitsTransfer -Source URL -Destination FILE (or by position).
func windowsDownload(e *evaluator, k *call) {
	a := k.args
	if k.name == "start-bitstransfer" {
		b := psArgs(a, psBitsTransfer)
		if src, dst := b.get("source"), b.get("destination"); src != nil && dst != nil && isURL(src.Text) {
			e.write(*dst, k.match(), "downloads over")
			e.recordDownload(*dst)
		}
		return
	}
	for i := 0; i+1 < len(a); i++ {
		if isURL(a[i].Text) && !strings.HasPrefix(a[i+1].Text, "/") && !strings.HasPrefix(a[i+1].Text, "-") {
			e.write(a[i+1], k.match(), "downloads over")
			e.recordDownload(a[i+1])
			return
		}
	}
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "ftp://")
}

// recordDownload notes a file a download writes, for ranDownload.
//
// A path known only at run time is noted by its text: the same
// expression ("$env:TEMP\setup.exe") names the same file later in the line.
func (e *evaluator) recordDownload(w shell.Word) {
	if w.Text == "" || w.Text == "-" {
		return
	}
	if e.downloaded == nil {
		e.downloaded = map[string]bool{}
	}
	e.downloaded[cleanScriptPath(w.Text)] = true
}

// ranDownload judges running the script w: when a download earlier in the
// line wrote it, that is running downloaded code (curl -o i.sh URL && sh
// i.sh), an install as curl | sh is. It reports whether it was one.
//
// A name without an extension stands for the .cmd, .bat, .exe or .com file
// cmd and PowerShell find by it (curl -O URL/bootstrap.cmd && bootstrap).
func (e *evaluator) ranDownload(match string, w shell.Word) bool {
	if e.downloaded == nil || w.Text == "" {
		return false
	}
	p := cleanScriptPath(w.Text)
	found := e.downloaded[p]
	if !found && path.Ext(p) == "" {
		for _, ext := range []string{".cmd", ".bat", ".exe", ".com", ".ps1"} {
			found = found || e.downloaded[p+ext]
		}
	}
	if !found {
		return false
	}
	e.add(RuleInstall, match, "%s was downloaded earlier in the line; running it runs code nobody reviewed", w.Text)
	return true
}

// cleanScriptPath is the path p names, cleaned, with a leading current
// directory variable ($PWD, ${PWD}, %CD%, $pwd) read as ".".
func cleanScriptPath(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if i := strings.IndexByte(p, '/'); i > 0 {
		switch strings.ToLower(p[:i]) {
		case "$pwd", "${pwd}", "%cd%":
			p = p[i+1:]
		}
	}
	return path.Clean(p)
}

// shortLast reports whether t is a short-option cluster ending in c (-qO).
func shortLast(t string, c byte) bool {
	return len(t) > 2 && t[0] == '-' && t[1] != '-' && t[len(t)-1] == c
}

// cdCommand follows a static cd, so later relative paths resolve from there.
func cdCommand(e *evaluator, k *call) {
	var target *shell.Word
	if k.name == "set-location" || k.name == "push-location" {
		b := psArgs(k.args, psSetLocation)
		if target = b.get("path"); target == nil {
			target = b.get("literalpath")
		}
	} else {
		_, ops, _ := operands(k.args, "", "")
		for i := range ops {
			if !strings.EqualFold(ops[i].Text, "/d") {
				target = &ops[i]
				break
			}
		}
	}
	if target != nil {
		e.chdir(*target)
	}
}

// chdir follows a move to the directory target (cd, env -C, sudo -D), so
// later relative paths resolve from there; a directory known only at run
// time, or cd -, leaves them where they were.
func (e *evaluator) chdir(target shell.Word) {
	if target.Dynamic() {
		// cd "$(git rev-parse --git-dir)": a directory git names.
		dir, ok := e.gitNamedDir(target)
		if !ok {
			return
		}
		target = shell.Lit(dir)
	}
	if target.Text == "-" || target.Text == "" {
		return
	}
	t := strings.ReplaceAll(target.Text, `\`, "/")
	base := e.root
	if e.dir != "" {
		base = e.dir
	}
	if isAbs(t) {
		e.dir = path.Clean(t)
	} else {
		e.dir = path.Join(base, t)
	}
}

// gitNamedDir returns the directory w names when it starts with a
// substitution of git rev-parse --show-toplevel (the working tree's root),
// --git-dir or --absolute-git-dir (its .git) and goes on with literal text.
func (e *evaluator) gitNamedDir(w shell.Word) (string, bool) {
	if len(w.Subst) != 1 || len(w.Segs) == 0 || !w.Segs[0].Dynamic {
		return "", false
	}
	for _, s := range w.Segs[1:] {
		if s.Dynamic {
			return "", false
		}
	}
	c := w.Subst[0]
	if len(c.Args) != 3 || c.Args[0].Text != "git" || c.Args[1].Text != "rev-parse" {
		return "", false
	}
	var base string
	switch c.Args[2].Text {
	case "--show-toplevel":
		base = e.root
	case "--git-dir", "--absolute-git-dir":
		base = path.Join(e.root, ".git")
	default:
		return "", false
	}
	return base + w.Tail(), true
}

// trimWord returns w without its first n bytes, which must be literal.
func trimWord(w shell.Word, n int) shell.Word {
	w.Text = w.Text[n:]
	if w.Segs == nil {
		return w
	}
	segs := append([]shell.Seg(nil), w.Segs...)
	for len(segs) > 0 && n > 0 {
		if m := min(n, len(segs[0].Text)); m < len(segs[0].Text) {
			segs[0].Text = segs[0].Text[m:]
			n = 0
		} else {
			n -= m
			segs = segs[1:]
		}
	}
	w.Segs = segs
	return w
}

// sedExec returns the shell commands a GNU sed script runs: the e command's
// text (1e cmd) and the replacement of s///e, which runs as a command.
func sedExec(script string) []string {
	if !strings.Contains(script, "e") {
		return nil
	}
	var out []string
	for _, line := range scriptLines(script) {
		line = sedSkipAddress(line)
		switch {
		case strings.HasPrefix(line, "e ") || strings.HasPrefix(line, "e\t"):
			out = append(out, strings.TrimSpace(line[2:]))
		case len(line) > 3 && line[0] == 's':
			if _, repl, flags, ok := substitution(line[1:]); ok && strings.Contains(flags, "e") && !strings.Contains(flags, "w") {
				out = append(out, repl)
			}
		}
		if len(out) >= maxCalls {
			break
		}
	}
	return out
}

// sedSkipAddress returns a sed script line without its address (numbers,
// $, /re/, ranges, !, steps) and the braces that open a block.
func sedSkipAddress(line string) string {
	line = strings.TrimLeft(line, " \t")
	for len(line) > 0 {
		c := line[0]
		switch {
		case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '!' || c == ' ' || c == '\t' || c == '~' || c == '+' || c == '{':
			line = line[1:]
			continue
		case c == '/':
			end := strings.IndexByte(line[1:], '/')
			if end < 0 {
				return ""
			}
			line = line[end+2:]
			continue
		}
		break
	}
	return line
}

// sedWrites returns the files a sed script writes: the w and W commands'
// file (1w out, /x/W out) and the s command's w flag (s/a/b/gw out).
func sedWrites(script string) []string {
	if !strings.ContainsAny(script, "wW") {
		return nil
	}
	var out []string
	for _, line := range scriptLines(script) {
		line = sedSkipAddress(line)
		switch {
		case len(line) > 2 && (line[0] == 'w' || line[0] == 'W') && (line[1] == ' ' || line[1] == '\t'):
			out = append(out, strings.TrimSpace(line[2:]))
		case len(line) > 3 && line[0] == 's':
			_, _, flags, ok := substitution(line[1:])
			if !ok {
				break
			}
			i := 0
			for i < len(flags) && (flags[i] >= '0' && flags[i] <= '9' || strings.IndexByte("gpiImMe", flags[i]) >= 0) {
				i++
			}
			if i < len(flags) && flags[i] == 'w' {
				if f := strings.TrimSpace(flags[i+1:]); f != "" {
					out = append(out, f)
				}
			}
		}
		if len(out) >= maxCalls {
			break
		}
	}
	return out
}

// optValues are the values of a command's options ("-x" or "--name" to
// the value, or to an empty word), in order: a short list, as most
// commands have one or two.
type optValues []optValue

type optValue struct {
	key string
	w   shell.Word
}

// get returns the value of the option key, the last given, and whether
// it was given.
func (vs optValues) get(key string) (shell.Word, bool) {
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].key == key {
			return vs[i].w, true
		}
	}
	return shell.Word{}, false
}

// val returns the value of the option key, or an empty word.
func (vs optValues) val(key string) shell.Word {
	w, _ := vs.get(key)
	return w
}

// setValue records an option's value in values.
func setValue(values optValues, key string, w shell.Word) optValues {
	return append(values, optValue{key, w})
}

// hasField reports whether name is one of the blank-separated words of
// list, without splitting it.
func hasField(list, name string) bool {
	for name != "" {
		i := strings.Index(list, name)
		if i < 0 {
			return false
		}
		end := i + len(name)
		if (i == 0 || list[i-1] == ' ') && (end == len(list) || list[end] == ' ') {
			return true
		}
		list = list[end:]
	}
	return false
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
