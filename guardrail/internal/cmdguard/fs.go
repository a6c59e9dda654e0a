package cmdguard

import (
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(rmCommand, "rm")
	handle(deleteOperands, "unlink", "shred", "srm", "rmdir")
	handle(mvCommand, "mv")
	handle(lastOperandWritten, "cp", "ln", "install")
	handle(truncateCommand, "truncate")
	handle(ddCommand, "dd")
	handle(teeCommand, "tee")
	handle(awsCommand, "aws")
	handle(spongeCommand, "sponge")
	handle(sedCommand, "sed")
	handle(patchCommand, "patch")
	handle(sortCommand, "sort")
	handle(findCommand, "find")
	handle(rsyncCommand, "rsync")
	handle(rimrafCommand, "rimraf")
	handle(downloadOutput, "curl", "wget", "invoke-webrequest", "invoke-restmethod")
	handle(cdCommand, "cd", "pushd", "set-location")
}

// write judges a command that deletes, moves, truncates or overwrites the
// path w: it must not be protected.
func (e *evaluator) write(w shell.Word, match, verb string) {
	if device(w) {
		e.add(RuleDisk, match, "the command %s %q, a disk or memory device: that destroys a file system or the machine", verb, w.Text)
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
func operands(a []shell.Word, valued, long string) (opts []string, ops []shell.Word, values map[string]shell.Word) {
	values = map[string]shell.Word{}
	longs := strings.Fields(long)
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			return opts, append(ops, a[i+1:]...), values
		case strings.HasPrefix(t, "--") && !a[i].Dynamic():
			name, v, hasValue := strings.Cut(t[2:], "=")
			opts = append(opts, "--"+name)
			if hasValue {
				values["--"+name] = shell.Lit(v)
			} else if contains(longs, name) && i+1 < len(a) {
				i++
				values["--"+name] = a[i]
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
						values["-"+t[j:j+1]] = shell.Lit(t[j+1:])
					} else if i+1 < len(a) {
						i++
						values["-"+t[j:j+1]] = a[i]
					}
					break
				}
			}
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
	if t, ok := v["-t"]; ok {
		e.write(t, k.match(), "moves into")
	}
	if t, ok := v["--target-directory"]; ok {
		e.write(t, k.match(), "moves into")
	}
}

// lastOperandWritten handles cp, ln and install: the last operand (or the
// target directory) is written; the others are only read.
func lastOperandWritten(e *evaluator, k *call) {
	_, ops, v := operands(k.args, "tSmogb", "target-directory suffix mode owner group backup")
	for _, key := range []string{"-t", "--target-directory"} {
		if t, ok := v[key]; ok {
			e.write(t, k.match(), "writes into")
			return
		}
	}
	if len(ops) > 1 {
		e.write(ops[len(ops)-1], k.match(), "overwrites")
		if k.name == "cp" && (ops[0].Text == "/dev/stdin" || ops[0].Text == "-") {
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
	_, ops, _ := operands(k.args, "", "")
	text, state, _ := stdinText(k.stdin, 0)
	for _, w := range ops {
		e.write(w, k.match(), "overwrites")
		if state == inputKnown {
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
	if !inPlace {
		return
	}
	_, e1 := v["-e"]
	_, e2 := v["--expression"]
	_, f1 := v["-f"]
	script := ""
	for _, key := range []string{"-e", "--expression"} {
		script += v[key].Text + "\n"
	}
	if !e1 && !e2 && !f1 && len(ops) > 0 {
		script = ops[0].Text
		ops = ops[1:] // the script
	}
	for _, w := range ops {
		e.write(w, k.match(), "edits in place")
		e.secret(w, script) // the text its script puts in
	}
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

// perlInPlace judges perl -i (-pi, -i.bak): it rewrites its file operands.
// interpreterCommand calls it for perl.
func perlInPlace(e *evaluator, k *call) {
	opts, ops, v := operands(k.args, "eEMmIlx0", "")
	inPlace := false
	for _, o := range opts {
		if !strings.HasPrefix(o, "--") && strings.Contains(o[1:], "i") {
			inPlace = true
		}
	}
	if !inPlace {
		return
	}
	_, e1 := v["-e"]
	_, e2 := v["-E"]
	if !e1 && !e2 && len(ops) > 0 {
		ops = ops[1:] // the script
	}
	for _, w := range ops {
		e.write(w, k.match(), "edits in place")
	}
}

// patchCommand judges patch: it rewrites its file operand, or -o FILE.
func patchCommand(e *evaluator, k *call) {
	_, ops, v := operands(k.args, "pidFoDrBYzVgi", "strip directory fuzz output reject-file prefix basename-prefix suffix input")
	for _, key := range []string{"-o", "--output"} {
		if w, ok := v[key]; ok {
			e.write(w, k.match(), "writes")
			return
		}
	}
	if len(ops) > 0 {
		e.write(ops[0], k.match(), "patches")
	}
}

// sortCommand judges sort -o FILE.
func sortCommand(e *evaluator, k *call) {
	_, _, v := operands(k.args, "okStT", "output key field-separator buffer-size temporary-directory parallel")
	for _, key := range []string{"-o", "--output"} {
		if w, ok := v[key]; ok {
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

// downloadOutput judges where curl, wget and Invoke-WebRequest write.
func downloadOutput(e *evaluator, k *call) {
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
		}
	}
}

// shortLast reports whether t is a short-option cluster ending in c (-qO).
func shortLast(t string, c byte) bool {
	return len(t) > 2 && t[0] == '-' && t[1] != '-' && t[len(t)-1] == c
}

// cdCommand follows a static cd, so later relative paths resolve from there.
func cdCommand(e *evaluator, k *call) {
	var target *shell.Word
	if k.name == "set-location" {
		target = psArgs(k.args, psSetLocation).get("path")
	} else {
		_, ops, _ := operands(k.args, "", "")
		for i := range ops {
			if !strings.EqualFold(ops[i].Text, "/d") {
				target = &ops[i]
				break
			}
		}
	}
	if target == nil || target.Dynamic() || target.Text == "-" {
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
