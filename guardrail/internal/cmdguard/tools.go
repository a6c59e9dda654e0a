package cmdguard

import (
	"slices"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(hyperfineCommand, "hyperfine")
	handle(rushCommand, "rush")
	handle(crontabCommand, "crontab")
	handle(gdbCommand, "gdb")
	handle(lldbCommand, "lldb")
	handle(perfCommand, "perf")
	handle(dtachCommand, "dtach", "abduco")
	handle(shxCommand, "shx")
	handle(delCLICommand, "del-cli")
	handle(valgrindCommand, "valgrind")
}

// Tools that run a command given to them, beside the wrappers of
// wrapperSpecs: profilers and debuggers (valgrind, gdb --args, perf
// stat/record/trace), benchmark runners (hyperfine), detachers (dtach),
// parallel runners (rush), shx's portable Unix commands, and crontab, whose
// table runs its lines later.

var (
	hyperfineValued = &optSpec{valued: "wrmMpcsnLPSuNDo", flags: "iNh",
		long:      longs("warmup runs min-runs max-runs prepare conclude cleanup setup command-name parameter-scan parameter-step-size parameter-list shell style sort time-unit export-asciidoc export-csv export-json export-markdown export-orgmode input output reference"),
		longFlags: longs("ignore-failure show-output help version")}
	rushSpec   = &optSpec{valued: "jiODrsnJTtev", flags: "kdcCqV", long: longs("jobs infile out-file delimiter records-delimiter field-delimiter nrecords records-join-sep timeout retry-interval retries succ-cmd-file"), longFlags: longs("keep-order dry-run continue escape propagate-exit-status verbose trim")}
	dtachSpec  = &optSpec{valued: "erz", flags: "EzR"}
	perfValued = &optSpec{valued: "eoprCtGdIm", flags: "aqvn", long: longs("event output pid tid cpu repeat cgroup delay interval-print"), longFlags: longs("all-cpus quiet verbose null")}
)

// hyperfineCommand judges each command hyperfine benchmarks, and its
// --prepare, --setup, --conclude and --cleanup commands: shell lines.
func hyperfineCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			for _, w := range a[i+1:] {
				e.payload(k, w, Bash)
			}
			return
		case hyperfineShellOpt(t) && i+1 < len(a):
			i++
			e.payload(k, a[i], Bash)
		case strings.HasPrefix(t, "--") && strings.Contains(t, "="):
			name, v, _ := strings.Cut(t, "=")
			if hyperfineShellOpt(name) {
				e.payload(k, withText(a[i], v), Bash)
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if opt, ok := valuedOption(hyperfineValued, t); ok && opt && i+1 < len(a) {
				i++
				if t == "-L" || t == "--parameter-list" || t == "-P" || t == "--parameter-scan" {
					i++ // NAME then VALUES (or MIN MAX)
					if t == "-P" || t == "--parameter-scan" {
						i++
					}
				}
			}
		default:
			e.payload(k, a[i], Bash)
		}
	}
}

func hyperfineShellOpt(t string) bool {
	switch t {
	case "-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "-C", "--conclude":
		return true
	}
	return false
}

// valuedOption reports whether the option word t (no attached value) takes
// the next word as its value under spec; ok is false for attached values.
func valuedOption(spec *optSpec, t string) (valued, ok bool) {
	if strings.HasPrefix(t, "--") {
		if strings.Contains(t, "=") {
			return false, false
		}
		return contains(spec.long, t[2:]), true
	}
	if len(t) != 2 {
		return false, false
	}
	return strings.ContainsRune(spec.valued, rune(t[1])), true
}

// rushCommand judges rush's command template, a shell line run once per
// input line, like GNU parallel's.
func rushCommand(e *evaluator, k *call) {
	i, v, _ := rushSpec.split(k.args)
	if _, dry := v.get("--dry-run"); dry {
		return
	}
	if i < len(k.args) {
		line := joinPlain(k.args[i:])
		line.Text = substituteParallel(line.Text, "{}", "x")
		e.payload(k, line, Bash)
	}
}

// crontabCommand judges a crontab installed from standard input (crontab -
// or no file), or from a file the line wrote with stated text: each line's
// command, after its schedule.
func crontabCommand(e *evaluator, k *call) {
	a := k.args
	var text shell.Word
	state := inputNone
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if t != "-" && strings.HasPrefix(t, "-") {
			if strings.ContainsAny(t, "lr") { // listing or removing
				return
			}
			if t == "-u" {
				i++ // the user
			}
			continue
		}
		if t != "-" {
			// A file: judged by its name only, unless the line wrote it.
			written, ok := e.writtenText(a[i])
			if !ok {
				return
			}
			text, state = shell.Lit(written), inputKnown
		}
	}
	if state == inputNone {
		text, state, _ = stdinText(k.stdin, 0)
	}
	if state != inputKnown {
		return
	}
	for _, line := range strings.Split(text.Text, "\n") {
		if cmd, ok := cronCommand(line); ok {
			e.payload(k, shell.Lit(cmd), Bash)
		}
	}
}

// cronCommand returns the command of a crontab line: after five schedule
// fields, or one @keyword, with environment lines and comments skipped.
func cronCommand(line string) (string, bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", false
	}
	fields := 5
	if line[0] == '@' {
		fields = 1
	} else if name, _, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(name, " \t") {
		return "", false
	}
	rest := line
	for range fields {
		rest = strings.TrimLeft(rest, " \t")
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			return "", false
		}
		rest = rest[i:]
	}
	rest = strings.TrimSpace(rest)
	return rest, rest != ""
}

// lldbCommand judges lldb's one-line commands (-o, -O, -k, --one-line...):
// platform shell CMD and shell CMD run a shell line; script CODE is Python.
func lldbCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i+1 < len(a); i++ {
		switch a[i].Text {
		case "-o", "-O", "-k", "-K", "--one-line", "--one-line-before-file", "--one-line-on-crash", "--source-quietly":
			i++
			t := strings.TrimSpace(a[i].Text)
			switch {
			case strings.HasPrefix(t, "platform shell "):
				e.payload(k, shell.Lit(strings.TrimPrefix(t, "platform shell ")), Bash)
			case strings.HasPrefix(t, "script "):
				e.code(k, langs["python"], shell.Lit(strings.TrimPrefix(t, "script ")))
			default:
				e.editorCommand(k, t)
			}
		}
	}
}

// gdbCommand judges the program gdb --args runs, and gdb's shell commands
// (-ex 'shell cmd', -ex '!cmd').
func gdbCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i < len(a); i++ {
		switch t := a[i].Text; {
		case t == "--args" || t == "-args":
			if i+1 < len(a) {
				e.argv(k.c, a[i+1:], shell.Input{}, k.sh, k.depth)
			}
			return
		case (t == "-ex" || t == "--ex" || t == "-eval-command" || t == "--eval-command") && i+1 < len(a):
			i++
			e.editorCommand(k, a[i].Text)
		}
	}
}

// editorCommand judges a command line of an editor or debugger that runs a
// shell with ! or shell (vim -c '!cmd', gdb -ex 'shell cmd').
func (e *evaluator) editorCommand(k *call, t string) {
	t = strings.TrimLeft(t, ": \t")
	t = strings.TrimPrefix(t, "silent ")
	t = strings.TrimPrefix(t, "silent! ")
	if strings.Contains(t, "|") && !strings.HasPrefix(t, "!") {
		// vim -c 'call delete("x", "rf") | q': each command of the bar-separated line.
		for _, part := range strings.Split(t, "|") {
			if p := strings.TrimSpace(part); p != "" && p != t {
				e.editorCommand(k, p)
			}
		}
		return
	}
	switch {
	case strings.HasPrefix(t, "lua "):
		// nvim -c 'lua os.execute("rm -rf x")': Lua code.
		e.code(k, langs["lua"], shell.Lit(t[len("lua "):]))
	case strings.HasPrefix(t, "call delete(") || strings.HasPrefix(t, "call delete ("):
		// Vim's delete(path, "rf") deletes a tree; delete(path) one file.
		args := t[strings.IndexByte(t, '(')+1:]
		if p, ok := firstQuoted(args); ok {
			if rest := args[strings.Index(args, p)+len(p)+1:]; strings.Contains(rest, `"rf"`) || strings.Contains(rest, "'rf'") {
				e.add(RuleRecursiveDelete, k.match(), "Vim's delete(..., \"rf\") deletes recursively")
			}
			e.write(shell.Lit(p), k.match(), "deletes")
		}
	case strings.HasPrefix(t, "call jobstart(") || strings.HasPrefix(t, "call termopen(") ||
		strings.HasPrefix(t, "exe \"!") || strings.HasPrefix(t, "exe '!") || strings.HasPrefix(t, "execute \"!") || strings.HasPrefix(t, "execute '!"):
		if s, ok := firstQuoted(t); ok {
			e.payload(k, shell.Lit(strings.TrimPrefix(s, "!")), Bash)
		}
	case strings.HasPrefix(t, "!"):
		e.payload(k, shell.Lit(t[1:]), Bash)
	case strings.HasPrefix(t, "shell ") || strings.HasPrefix(t, "sh "):
		_, rest, _ := strings.Cut(t, " ")
		e.payload(k, shell.Lit(rest), Bash)
	case strings.HasPrefix(t, "r !") || strings.HasPrefix(t, "r!") || strings.HasPrefix(t, "read !"):
		_, rest, _ := strings.Cut(t, "!")
		e.payload(k, shell.Lit(rest), Bash)
	case strings.HasPrefix(t, "call system(") || strings.HasPrefix(t, "call systemlist("):
		if s, ok := firstQuoted(t); ok {
			e.payload(k, shell.Lit(s), Bash)
		}
	}
}

// firstQuoted returns the first string in single or double quotes in t.
func firstQuoted(t string) (string, bool) {
	i := strings.IndexAny(t, `"'`)
	if i < 0 {
		return "", false
	}
	j := strings.IndexByte(t[i+1:], t[i])
	if j < 0 {
		return "", false
	}
	return t[i+1 : i+1+j], true
}

// perfCommand judges the command perf stat, record, trace and the like run.
func perfCommand(e *evaluator, k *call) {
	a := k.args
	if len(a) == 0 {
		return
	}
	switch a[0].Text {
	case "stat", "record", "trace", "sched", "mem", "c2c", "kvm", "lock", "kmem", "timechart":
	default:
		return
	}
	rest := a[1:]
	if len(rest) > 0 && (rest[0].Text == "record" || rest[0].Text == "stat") {
		rest = rest[1:] // perf sched record, perf mem record
	}
	i, _, altI := perfValued.split(rest)
	if i < len(rest) {
		e.argv(k.c, rest[i:], shell.Input{}, k.sh, k.depth)
	}
	if altI > i && altI < len(rest) {
		e.alternative(k.c, k.name, rest[altI:], shell.Input{}, k.sh, k.depth)
	}
}

// valgrindCommand judges the program valgrind runs: after its options, all
// of the --name=value or -x form.
func valgrindCommand(e *evaluator, k *call) {
	a := k.args
	for i, w := range a {
		if w.Text == "--" {
			i++
		} else if strings.HasPrefix(w.Text, "-") {
			continue
		}
		if i < len(a) {
			e.argv(k.c, a[i:], shell.Input{}, k.sh, k.depth)
		}
		return
	}
}

// dtachCommand judges the command dtach (or abduco) starts in a session:
// dtach -n|-A|-c SOCKET [options] command.
func dtachCommand(e *evaluator, k *call) {
	a := k.args
	if len(a) < 2 || !strings.HasPrefix(a[0].Text, "-") {
		return
	}
	switch strings.TrimLeft(a[0].Text, "-") {
	case "n", "A", "c", "N":
	default:
		return
	}
	rest := a[2:]
	i, _, _ := dtachSpec.split(rest)
	if i < len(rest) {
		e.argv(k.c, rest[i:], shell.Input{}, k.sh, k.depth)
	}
}

// shxCommand judges shx's commands as the Unix ones (shx rm -rf dist).
func shxCommand(e *evaluator, k *call) {
	a := k.args
	for len(a) > 0 && strings.HasPrefix(a[0].Text, "--") {
		a = a[1:] // --verbose, --silent, --negate
	}
	if len(a) > 0 {
		e.argv(k.c, a, shell.Input{}, k.sh, k.depth)
	}
}

// delCLICommand judges the del CLI (del-cli): it deletes files and
// directories, with their contents, matched by globs.
func delCLICommand(e *evaluator, k *call) {
	if k.sh != Bash && k.sh != "" {
		return
	}
	for _, w := range k.args {
		if w.Text == "--dry-run" || w.Text == "-d" || w.Text == "--help" || w.Text == "--version" {
			return
		}
	}
	for _, w := range k.args {
		if !strings.HasPrefix(w.Text, "-") {
			e.add(RuleRecursiveDelete, k.match(), "del-cli deletes directories with their contents")
			return
		}
	}
}

func init() {
	handle(tarCommand, "tar", "bsdtar", "gtar")
	handle(unzipCommand, "unzip", "7z", "7za")
}

// tarCommand judges tar extracting (-x, --extract, x in the first word's
// bundle): into -C DIR, or the working directory, overwriting what the
// archive holds; a protected directory named by -C is written.
func tarCommand(e *evaluator, k *call) {
	a := k.args
	extract, create := false, false
	for i, w := range a {
		t := w.Text
		switch {
		case t == "--extract" || t == "--get":
			extract = true
		case t == "--create" || t == "--append" || t == "--update":
			create = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") || i == 0:
			if c := strings.TrimPrefix(t, "-"); !strings.Contains(t, "=") {
				extract = extract || strings.ContainsRune(c, 'x')
				create = create || strings.ContainsAny(c, "cru")
			}
		}
	}
	if create {
		// tar -czf ARCHIVE: the archive is written.
		if f, ok := tarArchive(a); ok {
			e.write(f, k.match(), "writes an archive over")
		}
		if slices.ContainsFunc(a, func(w shell.Word) bool { return w.Text == "--remove-files" }) {
			// Deletes what it archived, directories with their contents,
			// as rsync --remove-source-files does.
			e.add(RuleRecursiveDelete, k.match(), "tar --remove-files deletes what it archives, directories with their contents")
		}
	}
	if !extract {
		return
	}
	for i, w := range a {
		switch t := w.Text; {
		case (t == "-C" || t == "--directory") && i+1 < len(a):
			e.write(a[i+1], k.match(), "extracts an archive into")
		case strings.HasPrefix(t, "--directory="):
			e.write(withText(w, t[len("--directory="):]), k.match(), "extracts an archive into")
		}
	}
}

// unzipCommand judges unzip -d DIR and 7z x -oDIR: extracting into DIR.
func unzipCommand(e *evaluator, k *call) {
	a := k.args
	if k.name != "unzip" && len(a) > 1 && (a[0].Text == "a" || a[0].Text == "u") &&
		slices.ContainsFunc(a, func(w shell.Word) bool { return w.Text == "-sdel" }) {
		e.add(RuleRecursiveDelete, k.match(), "7z -sdel deletes what it archives, directories with their contents")
	}
	if k.name != "unzip" && len(a) > 1 && (a[0].Text == "a" || a[0].Text == "u") {
		// 7z a ARCHIVE FILES: the archive is written.
		for _, w := range a[1:] {
			if !strings.HasPrefix(w.Text, "-") {
				e.write(w, k.match(), "writes an archive over")
				break
			}
		}
	}
	for i, w := range a {
		switch t := w.Text; {
		case t == "-d" && k.name == "unzip" && i+1 < len(a):
			e.write(a[i+1], k.match(), "extracts an archive into")
		case strings.HasPrefix(t, "-o") && len(t) > 2 && k.name != "unzip":
			e.write(withText(w, t[2:]), k.match(), "extracts an archive into")
		}
	}
}

func init() {
	handle(vimCommand, "vim", "vi", "nvim", "ex", "view", "gvim", "mvim")
	handle(edCommand, "ed", "red")
	handle(cmakeCommand, "cmake")
	handle(makeCommand, "make", "gmake")
	handle(expectCommand, "expect")
}

// vimCommand judges vim's commands given with -c and +: ":!cmd" and the
// like run a shell, and a write (:w, :wq, :x, :update, :saveas) writes the
// files vim edits. ex, and vim -e or -s, read commands from standard input
// too.
func vimCommand(e *evaluator, k *call) {
	a := k.args
	var files []shell.Word
	writes, exMode := false, k.name == "ex"
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		var cmd string
		switch {
		case (t == "-c" || t == "--cmd") && i+1 < len(a):
			i++
			cmd = a[i].Text
		case strings.HasPrefix(t, "+") && len(t) > 1:
			cmd = t[1:]
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			cmd = t[2:]
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c") && i+1 < len(a):
			// a cluster ending in -c: ex -sc CMD
			exMode = exMode || strings.ContainsAny(t, "esE")
			i++
			cmd = a[i].Text
		case t == "-e" || t == "-E" || t == "-es" || t == "-Es" || t == "-s" && k.name != "vim":
			exMode = true
			continue
		case len(t) == 2 && strings.IndexByte("SuUiTWwtqr", t[1]) >= 0 && t[0] == '-' && i+1 < len(a):
			i++
			continue
		case strings.HasPrefix(t, "-"):
			continue
		default:
			files = append(files, a[i])
			continue
		}
		e.editorCommand(k, cmd)
		writes = writes || exWrites(cmd)
		e.exTargets(k, cmd)
	}
	if exMode && !writes {
		if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
			writes = exWrites(text.Text)
			e.exTargets(k, text.Text)
		}
	}
	if writes {
		for _, f := range files {
			e.write(f, k.match(), "writes")
		}
	}
}

// edCommand judges ed reading its commands from standard input: a w
// command writes the file it edits.
func edCommand(e *evaluator, k *call) {
	_, ops, _ := operands(k.args, "p", "prompt")
	if len(ops) == 0 {
		return
	}
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown && exWrites(text.Text) {
		e.write(ops[0], k.match(), "writes")
		e.exTargets(k, text.Text)
	}
}

// exTargets judges the files ex or ed commands write by name: :w FILE,
// :wq! FILE, :saveas FILE, :w >> FILE (not :w !cmd, which pipes to a
// command).
func (e *evaluator) exTargets(k *call, cmds string) {
	for _, f := range exWriteTargets(cmds) {
		e.write(shell.Lit(f), k.match(), "writes")
	}
}

// exWriteTargets returns the file arguments of the writing commands in
// cmds (lines, or | separated).
func exWriteTargets(cmds string) []string {
	var out []string
	for _, line := range strings.FieldsFunc(cmds, func(r rune) bool { return r == '\n' || r == '|' }) {
		if !exWrites(line) {
			continue
		}
		t := strings.TrimLeft(line, ": \t")
		t = strings.TrimLeft(t, "%0123456789,.$;'<>+-")
		t = strings.TrimLeft(t, " \t")
		end := 0
		for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z') {
			end++
		}
		rest := strings.TrimPrefix(t[end:], "!")
		rest = strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(rest, "!") {
			continue // :w !cmd
		}
		rest = strings.TrimLeft(strings.TrimPrefix(rest, ">>"), " \t")
		if f := strings.Fields(rest); len(f) > 0 {
			out = append(out, f[0])
		}
		if len(out) >= maxCalls {
			break
		}
	}
	return out
}

// exWrites reports whether ex or ed commands (lines, or | separated) hold
// one that writes a file: w, wq, x, xit, exit, update, saveas, wall, wqall.
func exWrites(cmds string) bool {
	for _, line := range strings.FieldsFunc(cmds, func(r rune) bool { return r == '\n' || r == '|' }) {
		t := strings.TrimLeft(line, ": \t")
		t = strings.TrimLeft(t, "%0123456789,.$;'<>+-") // a range
		t = strings.TrimLeft(t, " \t")
		end := 0
		for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z') {
			end++
		}
		switch t[:end] {
		case "w", "W", "wq", "wqa", "wqall", "wa", "wall", "x", "xa", "xall", "xit", "exi", "exit", "up", "upd", "upda",
			"updat", "update", "sav", "savea", "saveas", "write", "wn", "wnext", "wp", "wprevious":
			return true
		}
	}
	return false
}

// makeCommand judges a makefile read from standard input (make -f -): its
// recipe lines are shell lines.
func makeCommand(e *evaluator, k *call) {
	stdin := false
	a := k.args
	for i, w := range a {
		switch {
		case (w.Text == "-f" || w.Text == "--file" || w.Text == "--makefile") && i+1 < len(a) &&
			(a[i+1].Text == "-" || stdinPath(a[i+1].Text)):
			stdin = true
		case w.Text == "-f-" || w.Text == "--file=-" || w.Text == "--makefile=-":
			stdin = true
		case strings.HasPrefix(w.Text, "-f/dev/") || strings.HasPrefix(w.Text, "--file=/") || strings.HasPrefix(w.Text, "--makefile=/"):
			_, v, _ := strings.Cut(w.Text, "=")
			stdin = stdinPath(strings.TrimPrefix(w.Text, "-f")) || stdinPath(v)
		}
	}
	for i, w := range a {
		// make --eval TEXT / -E TEXT: makefile text; its recipes are shell lines.
		switch {
		case (w.Text == "--eval" || w.Text == "-E") && i+1 < len(a):
			e.makefileText(k, a[i+1].Text)
		case strings.HasPrefix(w.Text, "--eval="):
			e.makefileText(k, w.Text[len("--eval="):])
		}
	}
	if !stdin {
		e.writtenMakefiles(k)
		return
	}
	text, state, _ := stdinText(k.stdin, 0)
	if state != inputKnown {
		return
	}
	for _, line := range strings.Split(text.Text, "\n") {
		if strings.HasPrefix(line, "\t") {
			cmd := strings.TrimLeft(line, "\t@-+ ")
			e.payload(k, shell.Lit(cmd), Bash)
		}
	}
}

// writtenMakefiles judges the makefiles make reads that the line wrote with
// stated text: those -f (--file, --makefile) names, or else GNUmakefile,
// makefile and Makefile. make -n only prints its recipes, and make -C DIR
// reads another directory's.
func (e *evaluator) writtenMakefiles(k *call) {
	if e.written == nil {
		return
	}
	var names []shell.Word
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "-n" || t == "--dry-run" || t == "--just-print" || t == "--recon" ||
			t == "-C" || strings.HasPrefix(t, "--directory") || strings.HasPrefix(t, "-C"):
			return
		case (t == "-f" || t == "--file" || t == "--makefile") && i+1 < len(a):
			i++
			names = append(names, a[i])
		case strings.HasPrefix(t, "--file=") || strings.HasPrefix(t, "--makefile="):
			_, v, _ := strings.Cut(t, "=")
			names = append(names, withText(a[i], v))
		case strings.HasPrefix(t, "-f") && len(t) > 2:
			names = append(names, withText(a[i], t[2:]))
		}
	}
	if names == nil {
		names = []shell.Word{shell.Lit("GNUmakefile"), shell.Lit("makefile"), shell.Lit("Makefile")}
	}
	for _, w := range names {
		if text, ok := e.writtenText(w); ok {
			e.makefileText(k, text)
		}
	}
}

// makefileText judges makefile text given to make --eval: recipe lines
// (after a tab) and a rule's recipe after ";" on its own line are shell
// lines.
func (e *evaluator) makefileText(k *call, text string) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			e.payload(k, shell.Lit(strings.TrimLeft(line, "\t@-+ ")), Bash)
			continue
		}
		colon := strings.IndexByte(line, ':')
		semi := strings.IndexByte(line, ';')
		if colon > 0 && semi > colon && !strings.HasPrefix(line[colon:], ":=") && !strings.HasPrefix(line[colon:], "::=") {
			if cmd := strings.TrimLeft(line[semi+1:], "\t@-+ "); cmd != "" {
				e.payload(k, shell.Lit(cmd), Bash)
			}
		}
	}
}

// expectCommand judges an expect script given with -c: its spawn and exec
// commands run programs (argv), and system runs a shell line.
func expectCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i < len(a); i++ {
		if a[i].Text != "-c" || i+1 >= len(a) {
			continue
		}
		i++
		for _, stmt := range scriptLines(a[i].Text) {
			f := strings.Fields(stmt)
			if len(f) < 2 {
				continue
			}
			switch f[0] {
			case "spawn", "exec":
				words := make([]shell.Word, 0, len(f)-1)
				for _, x := range f[1:] {
					if !strings.HasPrefix(x, "-") || len(words) > 0 {
						words = append(words, shell.Lit(strings.Trim(x, `"{}`)))
					}
				}
				e.argv(k.c, words, shell.Input{}, Bash, k.depth+1)
			case "system":
				e.payload(k, shell.Lit(strings.Trim(strings.Join(f[1:], " "), `"{}`)), Bash)
			}
		}
	}
}

func init() {
	handle(forfilesCommand, "forfiles")
}

// forfilesCommand judges the command forfiles runs for each file it finds:
// the /c option's command line, run by cmd (@path and the like stand for
// the file).
//
// With /s it walks the whole tree, so a command that deletes @path (del,
// erase, rd, rmdir, Remove-Item) deletes recursively, as for /r ... do del
// does.
func forfilesCommand(e *evaluator, k *call) {
	a := k.args
	recurse := hasWord(a, "/s", "-s")
	for i := 0; i+1 < len(a); i++ {
		if strings.EqualFold(a[i].Text, "/c") || strings.EqualFold(a[i].Text, "-c") {
			line := a[i+1].Text
			if strings.HasPrefix(strings.ToLower(line), "cmd /c ") {
				line = line[len("cmd /c "):]
			}
			if recurse && forfilesDeletes(line) {
				e.add(RuleRecursiveDelete, k.match(), "forfiles /s running a delete deletes recursively")
			}
			e.payload(k, shell.Lit(line), Cmd)
			return
		}
	}
}

// forfilesDeletes reports whether forfiles' command line deletes the
// file it is given: its first word is del, erase, rd or rmdir, or a
// PowerShell line runs Remove-Item or one of its aliases.
func forfilesDeletes(line string) bool {
	f := strings.Fields(strings.ToLower(line))
	if len(f) == 0 {
		return false
	}
	switch strings.TrimSuffix(f[0], ".exe") {
	case "del", "erase", "rd", "rmdir":
		return true
	case "powershell", "pwsh":
		for _, w := range f[1:] {
			if canonical(PowerShell, strings.Trim(w, `"';{}`)) == "remove-item" {
				return true
			}
		}
	}
	return false
}

// cmakeCommand judges cmake's command mode, cmake -E: rm -r (or -R, -rf)
// and remove_directory delete trees; rm and remove delete files; the other
// tools (echo, copy, make_directory, ...) change nothing harnish guards.
func cmakeCommand(e *evaluator, k *call) {
	a := k.args
	if len(a) < 2 || a[0].Text != "-E" {
		return
	}
	sub, rest := a[1].Text, a[2:]
	switch sub {
	case "remove_directory", "rm", "remove":
		opts, ops, _ := operands(rest, "", "")
		if sub == "remove_directory" || sub == "rm" && hasShort(opts, "rR") {
			e.add(RuleRecursiveDelete, k.match(), "cmake -E %s deletes recursively", sub)
		}
		for _, w := range ops {
			e.write(w, k.match(), "deletes")
		}
	case "rename", "copy", "copy_if_different", "create_symlink", "create_hardlink", "touch":
		if len(rest) > 0 {
			e.write(rest[len(rest)-1], k.match(), "overwrites")
		}
	}
}

// tarArchive returns the archive tar writes: the value of -f (alone or
// ending a cluster such as -czf, the value then the next word), --file.
func tarArchive(a []shell.Word) (shell.Word, bool) {
	for i, w := range a {
		t := w.Text
		switch {
		case strings.HasPrefix(t, "--file="):
			return withText(w, t[len("--file="):]), true
		case t == "--file" && i+1 < len(a):
			return a[i+1], true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") || i == 0:
			c := strings.TrimPrefix(t, "-")
			if j := strings.IndexByte(c, 'f'); j >= 0 {
				if j == len(c)-1 && i+1 < len(a) {
					return a[i+1], true
				}
				if j < len(c)-1 && strings.HasPrefix(t, "-") && len(c) == 1+len(c[j+1:]) {
					return withText(w, c[j+1:]), true // -fARCHIVE
				}
			}
		}
	}
	return shell.Word{}, false
}

// zipCommand judges zip's archive, its first operand: it is written.
//
// zip -m (--move) deletes the files it archived: with -r (--recurse-paths)
// directories with their contents (fs.recursive-delete), without it the
// files named, judged as rm's operands.
func zipCommand(e *evaluator, k *call) {
	opts, ops, _ := operands(k.args, "bnt", "")
	if len(ops) > 0 {
		e.write(ops[0], k.match(), "writes an archive over")
	}
	if !hasShort(opts, "m", "--move") || len(ops) < 2 {
		return
	}
	if hasShort(opts, "r", "--recurse-paths") || hasShort(opts, "R", "--recurse-patterns") {
		e.add(RuleRecursiveDelete, k.match(), "zip -rm deletes what it archives, directories with their contents")
		return
	}
	for _, w := range ops[1:] {
		e.write(w, k.match(), "deletes")
	}
}

func init() {
	handle(zipCommand, "zip")
}
