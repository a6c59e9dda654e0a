package cmdguard

import (
	"iter"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(interpreterCommand, "node", "nodejs", "zx", "perl", "ruby", "php", "deno", "lua", "luajit",
		"osascript", "rscript", "r", "ipython", "ipython3", "tsx", "ts-node", "julia")
	handle(awkCommand, "awk", "gawk", "mawk", "nawk", "busybox-awk")
}

// lang is what the scanner knows of an interpreter's language: its quoting
// and comments, and the calls that run a shell or delete recursively.
type lang struct {
	name string
	// hash and slash say which comments the language has: # ..., and
	// // ... with /* ... */.
	hash, slash bool
	// backticks run a shell (Perl, Ruby, PHP); in JavaScript they quote.
	backticks bool
	// triple quotes ("""...""", '''...''') are strings (Python).
	triple bool
	// bare calls may leave out the parentheses: system "rm -rf x" (Perl,
	// Ruby).
	bare bool
	// calls maps a call's name (its last part, or the whole dotted name)
	// to what it does.
	calls map[string]callKind
}

// callKind says what a call in interpreter code does with its arguments.
type callKind int

const (
	// shellLine runs its first argument through a shell; a list is argv;
	// several arguments (Perl's and Ruby's system LIST) are argv.
	shellLine callKind = iota + 1
	// program runs its first argument as a program with the second, a
	// list, as arguments (spawn, execFile, Deno.Command); a list first is
	// argv.
	program
	// rmTree deletes its argument recursively.
	rmTree
	// rmMaybeTree deletes recursively when its options say recursive.
	rmMaybeTree
	// rmFile deletes one file: judged for protected paths.
	rmFile
	// requireModule loads a module; loading one whose only use is to delete
	// trees (rimraf, del) is judged as deleting one.
	requireModule
	// execArgv replaces the process with a program: its first argument is
	// the program, then a list (os.execvp) or the arguments themselves
	// (os.execlp) are argv.
	execArgv
	// spawnArgv is os.spawn*: a mode first, then as execArgv.
	spawnArgv
	// writeFile writes its first argument, a path; a second argument is
	// the text written (writeFileSync, File.write, file_put_contents).
	writeFile
	// openFile opens its first argument; a mode second that writes (w, a,
	// x, +) makes it a write (Python's and Ruby's open).
	openFile
	// moveFile moves its first argument to its second (shutil.move,
	// os.rename, fs.renameSync): both are changed.
	moveFile
	// copyTarget writes its second argument.
	copyTarget
	// perlOpen is Perl's open: a mode or a command in its second argument
	// ("| cmd", "cmd |", ">file"), or the mode second and the command third.
	perlOpen
	// evalCode runs its first argument, a string, as code of the same
	// language (Python's exec and eval, JavaScript's eval and Function).
	evalCode
	// programCall runs the program its own name says with its arguments as
	// argv (Python's sh module: sh.rm("-rf", "x")).
	programCall
	// argvCall runs its arguments as argv, the program first
	// (asyncio.create_subprocess_exec("rm", "-rf", "x")).
	argvCall
	// pathObject is a path object (pathlib.Path("x")) whose method called
	// right after it (.unlink(), .write_text(...)) deletes or writes it.
	pathObject
	// sqlExec runs its first argument, a string, as SQL on a database
	// (cursor.execute, db.exec, conn.query, DB::statement, ...).
	sqlExec
)

// sqlMethods are the method names that run SQL on a database connection,
// whatever the receiver: the SQL they are given is judged as a SQL
// client's (sqlite3.connect(p).execute('DROP TABLE t') is sql.drop).
var sqlMethods = setOf("execute executescript executemany exec query statement unprepared raw run exec_query " +
	"execute_batch exec_params $executeRawUnsafe $queryRawUnsafe $executeRaw $queryRaw sql")

// denoValued are deno run's options that take a separate value.
var denoValued = []string{"-c", "--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--inspect", "--v8-flags"}

// treeModules are the JavaScript modules that exist to delete trees.
var treeModules = map[string]bool{"rimraf": true, "del": true, "trash": true, "del-cli": true}

var pythonCalls = map[string]callKind{
	"os.system": shellLine, "os.popen": shellLine, "system": shellLine, "popen": shellLine, "subprocess.run": shellLine, "subprocess.call": shellLine,
	"subprocess.check_call": shellLine, "subprocess.check_output": shellLine, "subprocess.Popen": shellLine,
	"subprocess.getoutput": shellLine, "subprocess.getstatusoutput": shellLine, "commands.getoutput": shellLine,
	"check_output": shellLine, "check_call": shellLine, "Popen": shellLine, "getoutput": shellLine,
	"pty.spawn": shellLine, "sh.run": shellLine,
	"asyncio.create_subprocess_shell": shellLine, "create_subprocess_shell": shellLine,
	"asyncio.create_subprocess_exec": argvCall, "create_subprocess_exec": argvCall,
	"shutil.rmtree": rmTree, "rmtree": rmTree, "dir_util.remove_tree": rmTree, "remove_tree": rmTree,
	"os.remove": rmFile, "os.unlink": rmFile,
	"os.execv": execArgv, "os.execve": execArgv, "os.execvp": execArgv, "os.execvpe": execArgv,
	"os.execl": execArgv, "os.execle": execArgv, "os.execlp": execArgv, "os.execlpe": execArgv,
	"os.spawnv": spawnArgv, "os.spawnve": spawnArgv, "os.spawnvp": spawnArgv, "os.spawnvpe": spawnArgv,
	"os.spawnl": spawnArgv, "os.spawnle": spawnArgv, "os.spawnlp": spawnArgv, "os.spawnlpe": spawnArgv,
	"open": openFile, "io.open": openFile, "os.truncate": writeFile,
	"shutil.move": moveFile, "os.rename": moveFile, "os.replace": moveFile, "os.renames": moveFile,
	"shutil.copy": copyTarget, "shutil.copyfile": copyTarget, "shutil.copy2": copyTarget,
	"os.posix_spawn": execArgv, "os.posix_spawnp": execArgv, "posix_spawn": execArgv, "posix_spawnp": execArgv,
	"exec": evalCode, "eval": evalCode, "builtins.exec": evalCode,
	"Path": pathObject, "pathlib.Path": pathObject, "PosixPath": pathObject, "pathlib.PosixPath": pathObject,
	"PurePath": pathObject,
}

var jsCalls = map[string]callKind{
	"exec": shellLine, "execSync": shellLine, "child_process.exec": shellLine, "child_process.execSync": shellLine,
	"spawn": program, "spawnSync": program, "execFile": program, "execFileSync": program, "fork": program,
	"Deno.Command": program, "Deno.run": program, "Bun.spawn": program, "Bun.spawnSync": program,
	"$": shellLine, "Bun.$": shellLine, "execa": program, "execaSync": program, "execaCommand": shellLine,
	"require": requireModule, "rimraf": rmTree, "rimrafSync": rmTree, "rimraf.sync": rmTree, "fse.remove": rmTree, "fse.removeSync": rmTree,
	"fse.emptyDir": rmTree, "fse.emptyDirSync": rmTree, "fsExtra.remove": rmTree, "fsExtra.removeSync": rmTree,
	"removeSync": rmTree, "emptyDirSync": rmTree, "del.sync": rmTree, "deleteSync": rmTree,
	"rmSync": rmMaybeTree, "fs.rm": rmMaybeTree, "rmdirSync": rmMaybeTree, "fs.rmdir": rmMaybeTree,
	"promises.rm": rmMaybeTree, "promises.rmdir": rmMaybeTree, "fsp.rm": rmMaybeTree, "Deno.remove": rmMaybeTree,
	"Deno.removeSync": rmMaybeTree, "rm": rmMaybeTree, "rmdir": rmMaybeTree, "unlinkSync": rmFile, "unlink": rmFile,
	"writeFileSync": writeFile, "appendFileSync": writeFile, "writeFile": writeFile, "appendFile": writeFile,
	"truncateSync": writeFile, "truncate": writeFile, "createWriteStream": writeFile, "outputFileSync": writeFile,
	"Deno.writeTextFile": writeFile, "Deno.writeTextFileSync": writeFile, "Deno.writeFile": writeFile, "Bun.write": writeFile,
	"renameSync": moveFile, "rename": moveFile, "copyFileSync": copyTarget, "copyFile": copyTarget,
	// fs/promises under any name (fs.promises, fsp, import('fs/promises')).
	"promises.unlink": rmFile, "promises.writeFile": writeFile, "promises.appendFile": writeFile,
	"promises.truncate": writeFile, "promises.rename": moveFile, "promises.copyFile": copyTarget,
	"fsp.unlink": rmFile, "fsp.writeFile": writeFile, "fsp.appendFile": writeFile, "fsp.rename": moveFile,
	"eval": evalCode, "Function": evalCode, "vm.runInThisContext": evalCode, "runInThisContext": evalCode,
}

var perlCalls = map[string]callKind{
	"system": shellLine, "exec": shellLine, "readpipe": shellLine,
	"rmtree": rmTree, "remove_tree": rmTree, "File::Path::rmtree": rmTree, "File::Path::remove_tree": rmTree,
	"unlink": rmFile, "open": perlOpen, "rename": moveFile, "File::Copy::move": moveFile, "move": moveFile,
}

var rubyCalls = map[string]callKind{
	"system": shellLine, "exec": shellLine, "spawn": shellLine, "Kernel.system": shellLine, "Kernel.exec": shellLine,
	"Process.spawn": shellLine, "Open3.capture2": shellLine, "Open3.capture2e": shellLine, "Open3.capture3": shellLine,
	"Open3.popen3": shellLine, "Open3.popen2": shellLine, "IO.popen": shellLine,
	"FileUtils.rm_rf": rmTree, "FileUtils.rm_r": rmTree, "FileUtils.remove_dir": rmTree, "FileUtils.remove_entry": rmTree,
	"FileUtils.remove_entry_secure": rmTree, "FileUtils.rmtree": rmTree, "rm_rf": rmTree, "rm_r": rmTree,
	"FileUtils.rm": rmFile, "File.delete": rmFile, "File.unlink": rmFile,
	"File.write": writeFile, "IO.write": writeFile, "File.open": openFile, "File.new": openFile,
	"Pathname": pathObject, "Pathname.new": pathObject,
	"File.truncate": writeFile, "FileUtils.mv": moveFile, "File.rename": moveFile, "FileUtils.cp": copyTarget,
}

var phpCalls = map[string]callKind{
	"system": shellLine, "exec": shellLine, "shell_exec": shellLine, "passthru": shellLine, "popen": shellLine,
	"proc_open": shellLine, "pcntl_exec": program, "unlink": rmFile, "file_put_contents": writeFile, "fopen": openFile,
	"rename": moveFile, "copy": copyTarget,
}

var luaCalls = map[string]callKind{"os.execute": shellLine, "io.popen": shellLine, "os.remove": rmFile,
	"os.rename": moveFile, "io.open": openFile}

var rCalls = map[string]callKind{"system": shellLine, "system2": program, "unlink": rmMaybeTree, "file.remove": rmFile}

var langs = map[string]*lang{
	"python":    {name: "Python", hash: true, triple: true, calls: pythonCalls},
	"node":      {name: "JavaScript", slash: true, calls: jsCalls},
	"perl":      {name: "Perl", hash: true, backticks: true, bare: true, calls: perlCalls},
	"ruby":      {name: "Ruby", hash: true, backticks: true, bare: true, calls: rubyCalls},
	"php":       {name: "PHP", hash: true, slash: true, backticks: true, calls: phpCalls},
	"lua":       {name: "Lua", calls: luaCalls},
	"rscript":   {name: "R", hash: true, calls: rCalls},
	"osascript": {name: "AppleScript"},
	"julia":     {name: "Julia", hash: true, backticks: true, calls: juliaCalls},
	"awk":       {name: "awk", hash: true, calls: awkCalls},
}

var juliaCalls = map[string]callKind{"rm": rmMaybeTree, "run": shellLine, "write": writeFile, "mv": moveFile}

var awkCalls = map[string]callKind{"system": shellLine}

// interpreterName maps a command's canonical name to its language's key in
// langs, or "".
func interpreterName(name string) string {
	switch name {
	case "node", "nodejs", "deno", "bun", "zx":
		return "node"
	case "perl", "ruby", "php", "rscript", "osascript":
		return name
	case "lua", "luajit":
		return "lua"
	case "ipython", "ipython3":
		return "python"
	case "r":
		return "rscript"
	case "tsx", "ts-node":
		return "node"
	case "julia":
		return "julia"
	}
	if strings.HasPrefix(name, "py") && pythonName().MatchString(name) {
		return "python"
	}
	return ""
}

var rVector = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bc\(([^()]*)\)`)
})

// ipythonEscapes judges IPython's shell escapes: a line of Python code that
// starts with ! (or !!, %system, %sx) runs the rest through a shell, as
// ipython -c '!rm -rf x' does. Plain Python has no such line.
func (e *evaluator) ipythonEscapes(k *call, src string) {
	for rest := src; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		t := strings.TrimSpace(line)
		if t == "" || t[0] != '!' && t[0] != '%' {
			continue
		}
		for _, p := range []string{"!!", "!", "%system ", "%sx ", "%%bash"} {
			if rest, ok := strings.CutPrefix(t, p); ok && !strings.HasPrefix(rest, "=") {
				e.payload(k, shell.Lit(rest), Bash)
				break
			}
		}
	}
}

// stringArgNext reports whether src starts a call whose first argument is a
// string literal: ('...'), ("..."), (`...`), (r"...").
func stringArgNext(src string) bool {
	src = strings.TrimLeft(src, " \t")
	if !strings.HasPrefix(src, "(") {
		return false
	}
	src = strings.TrimLeft(src[1:], " \t\n")
	for len(src) > 0 && (src[0]|0x20 == 'r' || src[0]|0x20 == 'b' || src[0]|0x20 == 'u' || src[0]|0x20 == 'f' || src[0] == 'N') {
		src = src[1:]
	}
	return len(src) > 0 && (src[0] == '"' || src[0] == '\'' || src[0] == '`')
}

// shortRecursive reports whether a delete call's first argument is a
// short-option string holding r or R (shelljs's rm('-rf', 'x')).
func shortRecursive(args []interpArg) bool {
	if len(args) < 2 || args[0].kind != argString {
		return false
	}
	t := args[0].text
	return len(t) > 1 && t[0] == '-' && t[1] != '-' && strings.ContainsAny(t, "rR")
}

var pythonName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:python[0-9.]*|pypy[0-9.]*|py)$`)
})

// interpOpts are, per language, the options whose value is code (code), a
// value that is no code (valued), or the code's end of the options.
type interpOpts struct {
	code, valued string
	// attached are options whose value is only ever attached (-Mmod).
	attached string
	long     map[string]bool // long options taking a value; "eval" and "print" are code
}

var interpOptions = map[string]interpOpts{
	"python":    {code: "c", valued: "WXmQ"},
	"node":      {code: "ep", valued: "rC", long: map[string]bool{"require": true, "import": true, "loader": true, "experimental-loader": true, "conditions": true, "input-type": true, "env-file": true, "title": true}},
	"perl":      {code: "eE", attached: "MmIixlC0dD"},
	"ruby":      {code: "e", valued: "rICEF", attached: "xT0W"},
	"php":       {code: "r", valued: "dcfzt"},
	"lua":       {code: "e", valued: "l"},
	"rscript":   {code: "e"},
	"osascript": {code: "e", valued: "ls"},
	"julia":     {code: "eE", valued: "CJLOpt"},
}

// interpreterCommand judges an interpreter's own code: given by option
// (python -c, node -e, perl -e, ruby -e, php -r, deno eval, osascript -e),
// or fed to its standard input (python3 - <<EOF, echo ... | node). A script
// file is judged by its name only.
func interpreterCommand(e *evaluator, k *call) {
	key := interpreterName(k.name)
	l := langs[key]
	if l == nil {
		return
	}
	if key == "perl" || key == "ruby" {
		scriptInPlace(e, k, key)
	}
	if key == "php" && (scriptSQL(e, k, k.args) || e.scriptDBTask(k, k.args)) {
		return
	}
	a := k.args
	opts := interpOptions[key]
	if k.name == "deno" || k.name == "bun" {
		// deno eval CODE; bun -e CODE, bun run -; deno run and bun run FILE
		// are scripts.
		if len(a) > 0 && a[0].Text == "eval" {
			for j := 1; j < len(a); j++ {
				if !strings.HasPrefix(a[j].Text, "-") {
					e.code(k, l, a[j])
					return
				}
			}
			return
		}
		if k.name == "deno" && len(a) > 1 && a[0].Text == "run" {
			// deno run [options] npm:PKG ARGS runs the package's binary.
			for j := 1; j < len(a); j++ {
				t := a[j].Text
				if strings.HasPrefix(t, "-") {
					if !strings.Contains(t, "=") && contains(denoValued, t) {
						j++
					}
					continue
				}
				if strings.HasPrefix(t, "https://") || strings.HasPrefix(t, "http://") {
					// deno run URL: a script downloaded and run, as curl | sh.
					e.add(RuleInstall, k.match(), "deno run %s runs a downloaded script nobody reviewed", t)
					return
				}
				if pkg, ok := strings.CutPrefix(t, "npm:"); ok && !a[j].Dynamic() {
					if i := strings.LastIndexByte(pkg, '@'); i > 0 {
						pkg = pkg[:i]
					}
					if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
						pkg = pkg[i+1:]
					}
					e.argv(k.c, append([]shell.Word{shell.Lit(pkg)}, a[j+1:]...), k.stdin, k.sh, k.depth)
					return
				}
				break
			}
		}
		if len(a) > 1 && a[0].Text == "run" && a[len(a)-1].Text == "-" {
			a = a[1:] // deno run [options] -: the script is standard input
		} else if len(a) > 0 && !strings.HasPrefix(a[0].Text, "-") {
			return // a subcommand or a script
		}
	}
	var code []shell.Word
	script := false
	stdin := false
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if t == "-" || stdinPath(t) {
			stdin = true
			break
		}
		if t == "--" || !strings.HasPrefix(t, "-") || len(t) < 2 {
			script = t != "--" || i+1 < len(a)
			if t != "--" && e.ranDownload(k.match(), a[i]) {
				return // python3 x.py after curl -o x.py URL
			}
			if text, ok := e.writtenText(a[i]); ok && t != "--" {
				e.code(k, l, shell.Lit(text)) // python3 c.py after echo '...' > c.py
				return
			}
			if d := download(a[i].Subst); d != nil && t != "--" {
				// python3 <(curl URL): the script is a download.
				e.add(RuleInstall, k.match(), "the %s script is downloaded (%s) and run unreviewed", l.name, d.Source)
				return
			}
			break
		}
		if strings.HasPrefix(t, "--") {
			name, v, hasValue := strings.Cut(t[2:], "=")
			switch {
			case name == "eval" || name == "print":
				if hasValue {
					code = append(code, withText(a[i], v))
				} else if i+1 < len(a) {
					i++
					code = append(code, a[i])
				}
			case opts.long[name] && !hasValue:
				i++
			}
			continue
		}
		if key == "python" && t == "-m" {
			return // a module: pip is judged by pythonCommand
		}
	cluster:
		for j := 1; j < len(t); j++ {
			c := t[j]
			switch {
			case strings.IndexByte(opts.code, c) >= 0:
				if j+1 < len(t) {
					code = append(code, withText(a[i], t[j+1:]))
				} else if i+1 < len(a) {
					i++
					code = append(code, a[i])
				}
				if key == "python" {
					// Python's -c ends its options; the rest is sys.argv.
					e.codes(k, l, code)
					return
				}
				break cluster
			case strings.IndexByte(opts.valued, c) >= 0:
				if j == len(t)-1 {
					i++
				}
				break cluster
			case key == "perl" && (c == 'l' || c == '0'):
				// -l and -0 take octal digits, then the cluster goes on.
				for j+1 < len(t) && t[j+1] >= '0' && t[j+1] <= '7' {
					j++
				}
			case strings.IndexByte(opts.attached, c) >= 0:
				break cluster
			}
		}
	}
	if len(code) > 0 {
		e.codes(k, l, code)
		return
	}
	if script && !stdin {
		return
	}
	if key == "osascript" || key == "rscript" {
		return
	}
	text, state, from := stdinText(k.stdin, 0)
	switch state {
	case inputKnown:
		e.code(k, l, text)
	case inputDownload:
		e.add(RuleInstall, k.matchInput(), "piping a downloaded script (%s) into %s installs code nobody reviewed", from.Source, k.name)
	case inputUnknown:
		if from == nil {
			from = &shell.Cmd{Source: "an unknown command"}
		}
		e.add(RuleUnresolved, k.matchInput(), "%s code piped into %s from %q cannot be judged", l.name, k.name, from.Source)
	}
}

func (e *evaluator) codes(k *call, l *lang, ws []shell.Word) {
	for _, w := range ws {
		e.code(k, l, w)
		if readsStdinCode(w.Text) {
			// exec(sys.stdin.read()), eval(fs.readFileSync(0)): the
			// text on standard input runs as code too.
			if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
				e.code(k, l, text)
			}
		}
	}
}

// readsStdinCode reports whether code runs what it reads from standard
// input: an exec or eval of stdin.
func readsStdinCode(code string) bool {
	if !strings.Contains(code, "exec") && !strings.Contains(code, "eval") && !strings.Contains(code, "Function") {
		return false
	}
	return strings.Contains(code, "stdin") || strings.Contains(code, "STDIN") || strings.Contains(code, "readFileSync(0") ||
		strings.Contains(code, "/dev/fd/0")
}

// maxCode bounds the interpreter code scanned; longer code is judged by its
// first maxCode bytes.
const maxCode = 64 << 10

// code judges interpreter code in the language l: the shell lines it runs,
// the programs it starts and the trees it deletes.
func (e *evaluator) code(k *call, l *lang, w shell.Word) {
	src := w.Text
	if len(src) > maxCode {
		src = src[:maxCode]
	}
	if k.depth+1 > e.maxDepth {
		e.add(RuleDepth, src, "commands nested more than %d levels deep cannot be judged", e.maxDepth)
		return
	}
	if forkLoop(l, src) {
		e.add(RuleForkBomb, k.match(), "the %s code forks in a loop: a fork bomb", l.name)
	}
	if d := download(w.Subst); d != nil {
		e.add(RuleInstall, k.match(), "running downloaded %s code (%s) installs code nobody reviewed", l.name, d.Source)
		return
	}
	if fetchAndRun(l, src) {
		e.add(RuleInstall, k.match(), "the %s code downloads code and runs it: running a downloaded script installs code nobody reviewed", l.name)
	}
	switch {
	case l.name == "Python" && strings.Contains(src, "local["):
		// plumbum's local["rm"](...) runs rm, as sh.rm(...) does.
		src = plumbumLocal().ReplaceAllString(src, "sh.$1(")
		src = "import sh\n" + src
	}
	switch {
	case l.name == "Perl" && strings.Contains(src, "q"), l.name == "Ruby" && strings.Contains(src, "%"):
		src = quoteLike(l, src)
	}
	if l.name == "Python" && strings.ContainsAny(src, "!%") {
		e.ipythonEscapes(k, src)
	}
	if l.name == "R" && strings.Contains(src, "c(") {
		// R's c("-rf", "x") is a vector: read as a list.
		src = rVector().ReplaceAllString(src, "[$1]")
	}
	src = reflectiveCalls(l, src)
	switch {
	case l.name == "Python" && strings.Contains(src, "getattr("):
		// getattr(os, "system") is os.system.
		src = pythonGetattr().ReplaceAllString(src, "$1.$2")
	case l.name == "AppleScript":
		for _, m := range appleShellScript().FindAllStringSubmatch(src, maxCalls) {
			e.payload(k, shell.Lit(strings.ReplaceAll(m[1], `\"`, `"`)), Bash)
		}
		return
	}
	if l.name == "JavaScript" && strings.Contains(src, "$`") {
		// zx's and Bun's $`cmd` run a shell line.
		for _, m := range zxShell().FindAllStringSubmatch(src, maxCalls) {
			e.payload(k, shell.Lit(m[1]), Bash)
		}
	}
	e.passedCalls(k, l, src)
	e.codeInstall(k, l, src)
	if walkDelete(l, src) {
		e.add(RuleRecursiveDelete, k.match(), "the %s code walks a tree and deletes what it finds: a recursive delete", l.name)
	}
	e.ormBulk(k, l, src)
	for _, c := range scanCalls(l, src) {
		c.src = src
		e.interpCall(k, l, c)
	}
}

// mayPass reports whether src may call what passedFunc matches: a cheap
// test before the regexp.
func mayPass(src string) bool {
	for _, w := range [...]string{"map(", "filter(", "each(", "Each(", "partial(", "submit(", "apply", "call_soon(",
		"run_in_executor(", "then(", "Thread(", "Process("} {
		if strings.Contains(src, w) {
			return true
		}
	}
	return false
}

// passedCalls judges a function that deletes trees or runs commands passed
// as a value to what calls it later (map(shutil.rmtree, dirs),
// dirs.forEach(fs.rmSync), executor.submit(os.system, cmd)): a tree delete
// is fs.recursive-delete, a command runner fails closed.
func (e *evaluator) passedCalls(k *call, l *lang, src string) {
	if !mayPass(src) {
		return
	}
	for _, m := range passedFunc().FindAllStringSubmatch(src, maxCalls) {
		kind, ok := lookupCall(l, m[1])
		if !ok {
			continue
		}
		switch kind {
		case rmTree, rmMaybeTree:
			e.add(RuleRecursiveDelete, k.match(), "the %s code passes %s, a recursive delete, to be called", l.name, m[1])
			return
		case shellLine, program, execArgv, spawnArgv, argvCall, programCall:
			e.add(RuleUnresolved, k.match(), "the %s code passes %s, which runs commands, to be called with values known only at run time", l.name, m[1])
			return
		}
	}
}

var (
	zxShell = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?:^|[^\\w.])\\$`([^`]*)`")
	})
	passedFunc = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:map|imap|starmap|filter|forEach|each|each_entry|partial|submit|apply_async|apply|call_soon|run_in_executor|then|Thread|Process)\(\s*(?:None\s*,\s*)?(?:target\s*=\s*)?([A-Za-z_$][\w.$]*)\s*[,)]`)
	})
	pythonGetattr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgetattr\(\s*([A-Za-z_][\w.]*)\s*,\s*['"]([A-Za-z_]\w*)['"]\s*\)`)
	})
	plumbumLocal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:plumbum\.)?local\[\s*['"]([A-Za-z_][\w]*)['"]\s*\]\s*\(`)
	})
	appleShellScript = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`do\s+shell\s+script\s+"((?:[^"\\]|\\.)*)"`)
	})
)

// quoteLike rewrites Perl's quote-like operators (q{...}, qq(...), qw[...])
// and Ruby's percent literals (%q(...), %Q[...], %(...), %w[...]) as plain
// string and list literals, which the scanner reads: system qq{rm -rf x}
// is system "rm -rf x". Bracket delimiters only; they do not nest.
func quoteLike(l *lang, src string) string {
	var b strings.Builder
	// noClose marks the closing delimiters not found after some position:
	// later searches would fail too, so the work stays linear.
	var noClose [256]bool
	for i := 0; i < len(src); i++ {
		op, n := "", 0
		switch {
		case l.name == "Perl" && src[i] == 'q' && (i == 0 || !identChar(src[i-1]) && src[i-1] != '$' && src[i-1] != '{'):
			switch {
			case strings.HasPrefix(src[i:], "qq"), strings.HasPrefix(src[i:], "qw"):
				op, n = src[i:i+2], 2
			default:
				op, n = "q", 1
			}
		case l.name == "Ruby" && src[i] == '%' && i+1 < len(src):
			if c := src[i+1]; c == 'q' || c == 'Q' || c == 'w' || c == 'W' {
				op, n = strings.ToLower(src[i:i+2]), 2
			} else {
				op, n = "%", 1
			}
		}
		j := i + n
		for op != "" && op != "%" && j < len(src) && (src[j] == ' ' || src[j] == '\t') && l.name == "Perl" {
			j++
		}
		var closeBy byte
		if op != "" && j < len(src) {
			closeBy = map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>'}[src[j]]
		}
		end := -1
		if closeBy != 0 && !noClose[closeBy] {
			if end = strings.IndexByte(src[j+1:], closeBy); end < 0 {
				noClose[closeBy] = true
			}
		}
		if end < 0 {
			b.WriteByte(src[i])
			continue
		}
		body := src[j+1 : j+1+end]
		if op == "qw" || op == "%w" {
			b.WriteByte('[')
			for k, w := range strings.Fields(body) {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(w))
			}
			b.WriteByte(']')
		} else {
			b.WriteString(strconv.Quote(body))
		}
		i = j + 1 + end
	}
	return b.String()
}

// forkLoop reports whether code forks in a loop: perl -e 'fork while fork',
// ruby -e 'loop { fork }', python -c 'while 1: os.fork()'.
func forkLoop(l *lang, src string) bool {
	if strings.Contains(src, "Popen(") || strings.Contains(src, "spawn(") || strings.Contains(src, `&"`) || strings.Contains(src, "&'") {
		// A process started without waiting, in a loop that never ends:
		// while True: Popen(...), for (;;) spawn(...), os.execute("x &").
		if spawnLoopRe().MatchString(src) {
			return true
		}
	}
	if !strings.Contains(src, "fork") {
		return false
	}
	return forkLoopRe().MatchString(src)
}

var spawnLoopRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\b(?:while\s*\(?\s*(?:True|true|1)\s*\)?\s*(?:do\b|:|\{)?|for\s*\(\s*;\s*;\s*\)|loop\s*(?:do\b|\{))[^\n]{0,120}?(?:\bPopen\(|\bspawn\(|&["'])`)
})

var forkLoopRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)\b(?:while|until|loop|for)\b.{0,40}\b(?:os\.|pcntl_)?fork\b|\bfork\b.{0,10}\b(?:while|until)\b|\bfork\s*\(\s*\)\s*;?\s*\}?\s*while`)
})

// interpCall judges one call found in interpreter code.
func (e *evaluator) interpCall(k *call, l *lang, c foundCall) {
	match := k.match()
	switch c.kind {
	case evalCode:
		if len(c.args) > 0 && c.args[len(c.args)-1].kind == argString {
			// Function("a", "body"): the body is last; exec("code") has one.
			inner := *k
			inner.depth++
			e.code(&inner, l, c.args[len(c.args)-1].word())
		}
	case programCall:
		e.interpArgv(k, append([]interpArg{{kind: argString, text: c.name}}, c.args...))
	case pathObject:
		if len(c.args) == 0 || c.args[0].kind != argString {
			return
		}
		switch c.method {
		case "rmtree":
			e.add(RuleRecursiveDelete, match, "%s(...).rmtree in the %s code deletes recursively", c.name, l.name)
			e.write(c.args[0].word(), match, "deletes")
		case "unlink", "rmdir", "delete":
			e.write(c.args[0].word(), match, "deletes")
		case "write_text", "write_bytes", "write", "binwrite":
			e.write(c.args[0].word(), match, "writes")
			// Path(p).write_text(text), File.write(p, text): what is
			// written is somewhere in the code, as for open(p, "w").
			e.secret(c.args[0].word(), c.src)
		case "touch", "rename", "replace", "symlink_to", "hardlink_to":
			e.write(c.args[0].word(), match, "writes")
		}
	case rmTree:
		e.add(RuleRecursiveDelete, match, "%s in the %s code deletes recursively", c.name, l.name)
		for _, a := range c.args[:min(1, len(c.args))] {
			if a.kind == argString {
				e.write(a.word(), match, "deletes")
			}
		}
	case requireModule:
		if len(c.args) > 0 && c.args[0].kind == argString && treeModules[c.args[0].text] {
			e.add(RuleRecursiveDelete, match, "the %s code loads %s, which deletes trees", l.name, c.args[0].text)
		}
	case sqlExec:
		if len(c.args) > 0 && c.args[0].kind == argString {
			if rule, stmt := sqlDanger(c.args[0].text); stmt != "" {
				e.add(rule, match, "%q run by %s in the %s code destroys data", stmt, c.name, l.name)
			}
		}
	case rmMaybeTree:
		if recursiveOption().MatchString(c.raw) || shortRecursive(c.args) {
			e.add(RuleRecursiveDelete, match, "%s with recursive in the %s code deletes recursively", c.name, l.name)
		}
		fallthrough
	case rmFile:
		for _, a := range c.args {
			for _, w := range deletedPaths(a) {
				e.write(w, match, "deletes")
			}
		}
	case shellLine:
		if len(c.args) == 0 {
			return
		}
		if sqlMethods[c.name] && c.args[0].kind == argString {
			// db.exec('DROP TABLE t'): exec is SQL on a database too.
			if rule, stmt := sqlDanger(c.args[0].text); stmt != "" {
				e.add(rule, match, "%q run by %s in the %s code destroys data", stmt, c.name, l.name)
			}
		}
		first := c.args[0]
		switch {
		case first.kind == argList:
			e.interpArgv(k, first.items)
		case l.bare && len(c.args) > 1 && (c.name == "system" || c.name == "exec" || strings.HasSuffix(c.name, ".spawn") || c.name == "spawn"):
			e.interpArgv(k, c.args)
		case first.kind == argString:
			e.payload(k, first.word(), Bash)
		default:
			e.add(RuleUnresolved, match, "%s in the %s code runs a command known only at run time (%s)", c.name, l.name, first.text)
		}
	case argvCall:
		switch {
		case len(c.args) == 0:
		case c.args[0].kind == argList:
			e.interpArgv(k, c.args[0].items)
		case c.args[0].kind == argString:
			e.interpArgv(k, c.args)
		default:
			e.add(RuleUnresolved, match, "%s in the %s code runs a command known only at run time (%s)", c.name, l.name, c.args[0].text)
		}
	case execArgv, spawnArgv:
		args := c.args
		if c.kind == spawnArgv && len(args) > 0 {
			args = args[1:] // the mode
		}
		if len(args) < 2 {
			return
		}
		if args[1].kind == argList {
			e.interpArgv(k, args[1].items) // execvp(file, [argv...])
		} else {
			e.interpArgv(k, args[1:]) // execlp(file, arg0, arg1, ...)
		}
	case writeFile, openFile:
		if len(c.args) == 0 || c.args[0].kind != argString {
			return
		}
		if c.kind == openFile && !writeMode(c.args) {
			return
		}
		path := c.args[0].word()
		e.write(path, match, "writes")
		switch {
		case c.kind == writeFile && len(c.args) > 1 && c.args[1].kind == argString:
			e.wrote(path, c.args[1].text, false)
			e.secret(path, c.args[1].text)
		case c.src != "":
			// open(path, "w").write(text): what is written is somewhere in
			// the code.
			e.secret(path, c.src)
		}
	case moveFile:
		for _, a := range c.args[:min(2, len(c.args))] {
			if a.kind == argString {
				e.write(a.word(), match, "moves")
			}
		}
	case copyTarget:
		if len(c.args) > 1 && c.args[1].kind == argString {
			e.write(c.args[1].word(), match, "overwrites")
		}
	case perlOpen:
		e.perlOpen(k, c)
	case program:
		if len(c.args) == 0 {
			return
		}
		first := c.args[0]
		if first.kind == argList {
			e.interpArgv(k, first.items)
			return
		}
		argv := []interpArg{first}
		if len(c.args) > 1 && c.args[1].kind == argList {
			argv = append(argv, c.args[1].items...)
		} else if len(c.args) > 1 && c.args[1].kind == argObject {
			// Deno.Command("rm", {args: [...]}).
			argv = append(argv, c.args[1].items...)
		}
		if shellOption().MatchString(c.raw) {
			words := make([]shell.Word, len(argv))
			for i, a := range argv {
				words[i] = a.word()
			}
			e.payload(k, joinPlain(words), Bash)
			return
		}
		e.interpArgv(k, argv)
	}
}

var (
	recursiveOption = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\brecursive\s*[:=]\s*(?:true|TRUE|T|!0|1)\b`)
	})
	shellOption = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bshell\s*:\s*(?:true|['"])`)
	})
)

// interpArgv judges arguments given as a list as a program's argv.
func (e *evaluator) interpArgv(k *call, items []interpArg) {
	if len(items) == 0 {
		return
	}
	words := make([]shell.Word, len(items))
	for i, a := range items {
		words[i] = a.word()
	}
	e.argv(k.c, words, shell.Input{}, Bash, k.depth+1)
}

// argKind says what an argument of a call in interpreter code is.
type argKind int

const (
	argOther  argKind = iota // an expression: known only at run time
	argString                // a string literal, text its value
	argList                  // a list or array literal, items its elements
	argObject                // an object literal; items the list under "args" or "cmd", if any
)

// interpArg is one argument of a call in interpreter code.
type interpArg struct {
	kind argKind
	text string
	// dynamic marks a string with interpolation or concatenation: parts
	// known only at run time.
	dynamic bool
	items   []interpArg
}

// deletedPaths returns the paths an argument of a file-deleting call names:
// a string; a list's strings (Perl's unlink LIST); and in an expression
// (unlink glob("/etc/*"), os.remove(Path("/etc/x"))), the absolute paths
// its string literals hold, a pattern's as a glob.
func deletedPaths(a interpArg) []shell.Word {
	switch a.kind {
	case argString:
		return []shell.Word{a.word()}
	case argList:
		var out []shell.Word
		for _, it := range a.items {
			if it.kind == argString {
				out = append(out, it.word())
			}
		}
		return out
	}
	var out []shell.Word
	for rest := a.text; len(out) < 8; {
		i := strings.IndexAny(rest, `"'`)
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], rest[i])
		if j < 0 {
			break
		}
		lit := rest[i+1 : i+1+j]
		rest = rest[i+2+j:]
		if strings.HasPrefix(lit, "/") || isAbs(lit) {
			out = append(out, shell.Word{Text: lit, Glob: strings.ContainsAny(lit, "*?[")})
		}
	}
	return out
}

// word returns a as a shell word: a string's text; anything else dynamic.
func (a interpArg) word() shell.Word {
	switch {
	case a.kind == argString && !a.dynamic:
		return shell.Lit(a.text)
	case a.kind == argString:
		return shell.Word{Text: a.text + "$__dynamic", Segs: []shell.Seg{{Text: a.text}, {Text: "$__dynamic", Dynamic: true}}}
	}
	return dynamicWord(a.text)
}

// foundCall is a call of a known function in interpreter code.
type foundCall struct {
	name string
	// method is, for a pathObject, the method called on it right after.
	method string
	kind   callKind
	args   []interpArg
	raw    string // the argument text, as written
	src    string // the whole code the call is in
}

// writeMode reports whether open's mode argument (the second) writes:
// "w", "a", "x" or "+", or anything not a plain string.
func writeMode(args []interpArg) bool {
	if len(args) < 2 {
		return false
	}
	m := args[1]
	if m.kind != argString {
		return false
	}
	return strings.ContainsAny(m.text, "wax+")
}

// perlOpen judges Perl's open: open(F, "cmd |"), open(F, "| cmd") and
// open(F, "-|", "cmd") run a shell; open(F, ">file") and open(F, ">",
// "file") write the file.
func (e *evaluator) perlOpen(k *call, c foundCall) {
	if len(c.args) < 2 || c.args[1].kind != argString {
		return
	}
	mode := strings.TrimSpace(c.args[1].text)
	if len(c.args) > 2 && c.args[2].kind == argString {
		switch mode {
		case "-|", "|-":
			e.payload(k, c.args[2].word(), Bash)
		case ">", ">>", "+<", "+>":
			e.write(c.args[2].word(), k.match(), "writes")
		}
		return
	}
	w := c.args[1]
	switch {
	case strings.HasSuffix(mode, "|"):
		w.text = strings.TrimSuffix(mode, "|")
		e.payload(k, w.word(), Bash)
	case strings.HasPrefix(mode, "|"):
		w.text = strings.TrimPrefix(mode, "|")
		e.payload(k, w.word(), Bash)
	case strings.HasPrefix(mode, ">"):
		w.text = strings.TrimSpace(strings.TrimLeft(mode, ">"))
		e.write(w.word(), k.match(), "writes")
	}
}

// awkCommand judges awk's program (the first operand, or -e/--source, not
// -f FILE): its system() calls run a shell.
func awkCommand(e *evaluator, k *call) {
	a := k.args
	inplace := false
	prog := -1
	for i := 0; i < len(a) && prog < 0; i++ {
		t := a[i].Text
		switch {
		case t == "--":
			if i+1 < len(a) {
				prog = i + 1
			} else {
				return
			}
		case t == "-f" || t == "--file" || strings.HasPrefix(t, "-f") && len(t) > 2:
			return // the program is a file, judged by its name
		case t == "-e" || t == "--source":
			if i+1 < len(a) {
				prog = i + 1
			} else {
				return
			}
		case t == "-i" || t == "--include":
			// gawk -i inplace edits its files in place.
			if i+1 < len(a) && strings.TrimSuffix(a[i+1].Text, ".awk") == "inplace" {
				inplace = true
			}
			i++
		case t == "-iinplace" || t == "--include=inplace":
			inplace = true
		case t == "-F" || t == "-v" || t == "--assign" || t == "--field-separator":
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			prog = i
		}
	}
	if prog < 0 {
		return
	}
	e.code(k, langs["awk"], a[prog])
	for _, cmd := range awkPipes(a[prog].Text) {
		e.payload(k, shell.Lit(cmd), Bash)
	}
	for _, f := range awkOutputs(a[prog].Text) {
		e.write(shell.Lit(f), k.match(), "writes (awk's print >)")
	}
	if inplace {
		var text strings.Builder // what its strings put in: gsub(/x/, "...")
		for i, j := range awkStrings(a[prog].Text) {
			text.WriteString(a[prog].Text[i+1:j] + "\n")
		}
		for _, w := range a[prog+1:] {
			if !strings.Contains(w.Text, "=") {
				e.write(w, k.match(), "edits in place")
				e.secret(w, text.String())
			}
		}
	}
}

// awkPipes returns the command lines an awk program runs through pipes:
// "cmd" | getline, print ... | "cmd", print ... |& "cmd".
func awkPipes(prog string) []string {
	var out []string
	for i, j := range awkStrings(prog) {
		if len(out) >= maxCalls {
			break
		}
		lit := strings.ReplaceAll(prog[i+1:j], `\"`, `"`)
		before := strings.TrimRight(prog[:i], " \t")
		after := strings.TrimLeft(prog[j+1:], " \t")
		piped := strings.TrimLeft(strings.TrimPrefix(after, "|"), "& \t")
		switch {
		case strings.HasSuffix(before, "|") || strings.HasSuffix(before, "|&"):
			out = append(out, lit)
		case !strings.HasPrefix(after, "|"):
		case strings.HasPrefix(piped, "getline"):
			out = append(out, lit)
		case strings.HasPrefix(piped, `"`):
			// print "cmd" | "sh": the text is the shell's script.
			if end := strings.IndexByte(piped[1:], '"'); end >= 0 && isShellName(strings.Fields(piped[1:1+end])) {
				out = append(out, lit)
			}
		}
	}
	return out
}

// awkOutputs returns the files an awk program's print and printf write
// with > or >> ("file" is a string literal; print > "out/" $1 writes under
// out/). A > outside a print statement compares and writes nothing.
func awkOutputs(prog string) []string {
	if !strings.Contains(prog, ">") || !strings.Contains(prog, "print") {
		return nil
	}
	var out []string
	for i, j := range awkStrings(prog) {
		if len(out) >= maxCalls {
			break
		}
		before := strings.TrimRight(strings.TrimRight(prog[:i], " \t("), " \t")
		if strings.HasSuffix(before, ">") {
			stmt := before[strings.LastIndexAny(before, ";{}\n")+1:]
			if strings.Contains(stmt, "print") {
				out = append(out, strings.ReplaceAll(prog[i+1:j], `\"`, `"`))
			}
		}
	}
	return out
}

// awkStrings yields where each string literal of an awk program starts
// and ends: the indexes of its opening and closing quotes. A literal left
// open ends the program's strings.
func awkStrings(prog string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < len(prog); i++ {
			if prog[i] != '"' {
				continue
			}
			j := i + 1
			for j < len(prog) && prog[j] != '"' {
				if prog[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(prog) || !yield(i, j) {
				return
			}
			i = j
		}
	}
}

// methodAfter returns the name of the method src calls first: ".unlink()"
// gives "unlink".
func methodAfter(src string) string {
	src = strings.TrimLeft(src, " \t")
	if !strings.HasPrefix(src, ".") {
		return ""
	}
	i := 1
	for i < len(src) && identChar(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '(' {
		return src[1:i]
	}
	if name := src[1:i]; name == "rmtree" || name == "delete" || name == "unlink" {
		return name // Ruby calls without parentheses: Pathname("x").rmtree
	}
	return ""
}

// maxCalls bounds the calls judged in one piece of code.
const maxCalls = 64

// scanCalls finds the calls of l.calls in src, outside strings and
// comments, and the shell lines of backticks, qx and %x.
func scanCalls(l *lang, src string) []foundCall {
	var out []foundCall
	s := &codeScanner{l: l, src: src}
	if l.name == "Python" && strings.Contains(src, " as ") {
		// import shutil as s: s.rmtree is shutil.rmtree; from shutil
		// import rmtree as nuke: nuke is shutil.rmtree.
		s.aliases = map[string]string{}
		for _, m := range pythonImportAs().FindAllStringSubmatch(src, 8) {
			if m[1] != "" {
				s.aliases["\x00"+m[4]] = m[1] + "." + m[3]
			} else {
				s.aliases[m[4]] = m[3]
			}
		}
	}
	s.importedNames()
	for s.i < len(src) && len(out) < maxCalls {
		c := src[s.i]
		switch {
		case s.comment():
		case c == '`' && l.backticks:
			text, dyn := s.str('`')
			out = append(out, foundCall{name: "backticks", kind: shellLine, args: []interpArg{{kind: argString, text: text, dynamic: dyn}}})
		case c == '"' || c == '\'' || c == '`':
			s.str(c)
		case identStart(c) && (s.i == 0 || !identChar(src[s.i-1]) && (src[s.i-1] != '.' || s.i > 1 && src[s.i-2] == ')')):
			if fc, ok := s.call(); ok {
				out = append(out, fc)
			}
		case c == '%' && l.name == "Ruby" && s.i+2 < len(src) && src[s.i+1] == 'x' && !identChar(src[s.i+2]):
			s.i += 2
			if fc, ok := s.quoted("qx"); ok {
				out = append(out, fc)
			}
		case c == '$' && l.name == "JavaScript" && s.i+1 < len(src) && src[s.i+1] == '`':
			s.i++
			text, dyn := s.str('`')
			out = append(out, foundCall{name: "$", kind: shellLine, args: []interpArg{{kind: argString, text: text, dynamic: dyn}}})
		default:
			s.i++
		}
	}
	return out
}

// importedNames records the names code imports from a module under their
// own or another name: Python's from subprocess import run (run is
// subprocess.run) and import sh, JavaScript's const {execSync: x} =
// require('child_process') and import {execSync as x} from '...'.
func (s *codeScanner) importedNames() {
	src := s.src
	set := func(local, full string) {
		if s.aliases == nil {
			s.aliases = map[string]string{}
		}
		if _, ok := s.aliases["\x00"+local]; !ok {
			s.aliases["\x00"+local] = full
		}
	}
	switch s.l.name {
	case "Python":
		if strings.Contains(src, "from ") {
			for _, m := range pythonFromImport().FindAllStringSubmatch(src, 8) {
				for _, n := range strings.Split(m[2], ",") {
					if f := strings.Fields(n); len(f) == 1 {
						set(f[0], m[1]+"."+f[0])
					}
				}
			}
		}
		if strings.Contains(src, "import sh") && pythonImportSh().MatchString(src) {
			if s.aliases == nil {
				s.aliases = map[string]string{}
			}
			s.aliases["\x01sh"] = "sh"
		}
	case "JavaScript":
		if !strings.Contains(src, "{") {
			return
		}
		for _, m := range jsDestructure().FindAllStringSubmatch(src, 8) {
			for _, n := range strings.Split(m[1]+m[2], ",") {
				from, to, ok := strings.Cut(n, ":")
				if !ok {
					from, to, ok = strings.Cut(n, " as ")
				}
				if from, to = strings.TrimSpace(from), strings.TrimSpace(to); ok && from != "" && to != "" {
					set(to, from)
				}
			}
		}
	}
}

var (
	pythonFromImport = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bfrom\s+([A-Za-z_][\w.]*)\s+import\s+\(?([\w \t,]+)`)
	})
	pythonImportSh = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(?:^|;)\s*import\s+sh\b`)
	})
	jsDestructure = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\{([^{}]*)\}\s*=\s*(?:await\s+)?(?:require|import)\s*\(|\bimport\s*\{([^{}]*)\}\s*from\b`)
	})
)

// moduleAliases are the names a module is commonly imported as, whose
// functions are looked up by their own name: cp.execSync is execSync.
var moduleAliases = map[string]bool{
	"child_process": true, "cp": true, "childProcess": true, "proc": true, "subprocess": true, "sp": true,
	"fs": true, "fsp": true, "fse": true, "fsExtra": true, "os": true, "shutil": true, "FileUtils": true,
	"Kernel": true, "File::Path": true, "Deno": true, "Bun": true,
}

// lookupCall returns what the call name does in l: by its whole dotted
// name, its last two parts (fs.promises.rm), or its last part after a
// module alias (cp.execSync) or a call (require('fs').rmSync).
func lookupCall(l *lang, name string) (callKind, bool) {
	if k, ok := l.calls[name]; ok {
		return k, true
	}
	j := strings.LastIndexAny(name, ".:")
	if j < 0 {
		if sqlMethods[name] {
			return sqlExec, true // a method after a call: connect(p).execute(...)
		}
		return 0, false
	}
	last := name[j+1:]
	if k, ok := lookupQualified(l, name, last, j); ok {
		return k, true
	}
	if sqlMethods[last] {
		return sqlExec, true
	}
	return 0, false
}

// lookupQualified looks a dotted call up by its last two parts, or by its
// last part under a module alias.
func lookupQualified(l *lang, name, last string, j int) (callKind, bool) {
	prefix := strings.TrimRight(name[:j+1], ".:")
	if i := strings.LastIndexAny(prefix, ".:"); i >= 0 {
		if k, ok := l.calls[prefix[i+1:]+"."+last]; ok {
			return k, true
		}
		prefix = prefix[i+1:]
	}
	if moduleAliases[prefix] || l.name == "JavaScript" && (strings.HasSuffix(last, "Sync") && last != "Sync" || last == "rm" || last == "rmdir") {
		// fs.rmSync, and rm/rmdir, under any name (import('fs/promises').then(m => m.rm(...))).
		// fs.rmSync under any name (import('fs').then(f => f.rmSync(...))).
		k, ok := l.calls[last]
		return k, ok
	}
	return 0, false
}

func identStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

// codeScanner walks interpreter code.
type codeScanner struct {
	l   *lang
	src string
	i   int
	// aliases maps a module's local name to the module (Python's import
	// ... as).
	aliases map[string]string
}

var pythonImportAs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\bfrom\s+([A-Za-z_][\w.]*)\s+)?\bimport\s+([(]?\s*)([A-Za-z_][\w.]*)\s+as\s+([A-Za-z_]\w*)`)
})

// comment skips a comment at the scanner's position and reports whether
// there was one.
func (s *codeScanner) comment() bool {
	src, i := s.src, s.i
	switch {
	case s.l.hash && src[i] == '#' && !(s.l.name == "Ruby" && i+1 < len(src) && src[i+1] == '{'):
		// Perl's $#array and Ruby's #{...} are not comments.
		if i > 0 && src[i-1] == '$' {
			return false
		}
	case s.l.slash && strings.HasPrefix(src[i:], "//"):
	case s.l.slash && strings.HasPrefix(src[i:], "/*"):
		end := strings.Index(src[i+2:], "*/")
		if end < 0 {
			s.i = len(src)
		} else {
			s.i = i + 2 + end + 2
		}
		return true
	default:
		return false
	}
	end := strings.IndexByte(src[i:], '\n')
	if end < 0 {
		s.i = len(src)
	} else {
		s.i = i + end
	}
	return true
}

// str reads the string literal opened by q at the scanner's position (a
// triple quote too, in Python) and returns its value and whether it
// interpolates: ${...}, #{...}, {…} in an f-string, $var in Perl and PHP.
func (s *codeScanner) str(q byte) (string, bool) {
	src := s.src
	start := s.i
	prefix := ""
	for j := start - 1; j >= 0 && j >= start-2 && identChar(src[j]); j-- {
		prefix = strings.ToLower(src[j:start])
	}
	delim := string(q)
	if s.l.triple && strings.HasPrefix(src[start:], strings.Repeat(string(q), 3)) {
		delim = strings.Repeat(string(q), 3)
	}
	i := start + len(delim)
	var b strings.Builder
	raw := strings.Contains(prefix, "r")
	for i < len(src) {
		if strings.HasPrefix(src[i:], delim) {
			i += len(delim)
			break
		}
		c := src[i]
		if c == '\\' && i+1 < len(src) && !(raw || q == '\'' && s.l.name != "Python" && s.l.name != "JavaScript") {
			i++
			switch src[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(src[i])
			}
			i++
			continue
		}
		if c == '\\' && q == '\'' && i+1 < len(src) && (src[i+1] == '\'' || src[i+1] == '\\') {
			b.WriteByte(src[i+1])
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	s.i = i
	text := b.String()
	dyn := false
	switch {
	case q == '`' || q == '"' && s.l.name != "Python" && s.l.name != "JavaScript":
		dyn = strings.Contains(text, "${") || strings.Contains(text, "#{") ||
			(s.l.name == "Perl" || s.l.name == "PHP") && strings.Contains(text, "$")
	case strings.Contains(prefix, "f"):
		dyn = strings.Contains(text, "{")
	}
	return text, dyn
}

// call reads a name at the scanner's position and, when it is a call of
// one of l.calls, its arguments.
func (s *codeScanner) call() (foundCall, bool) {
	src := s.src
	start := s.i
	i := start
	for i < len(src) && (identChar(src[i]) || src[i] == '.' || src[i] == ':' && i+1 < len(src) && src[i+1] == ':') {
		if src[i] == ':' {
			i++
		}
		i++
	}
	name := src[start:i]
	s.i = i
	if prefix, rest, ok := strings.Cut(name, "."); ok && s.aliases[prefix] != "" {
		name = s.aliases[prefix] + "." + rest
	} else if full := s.aliases["\x00"+name]; !ok && full != "" {
		name = full
	}
	kind, known := lookupCall(s.l, name)
	if known && kind == sqlExec && !stringArgNext(src[i:]) {
		known = false // run(main()), query(q): only a literal is SQL to judge, and the arguments are scanned on
	}
	if !known && s.l.name == "Python" && s.aliases["\x01sh"] != "" && strings.HasPrefix(name, "sh.") && !strings.Contains(name[3:], ".") {
		kind, known = programCall, true
	}
	if !known {
		return s.quoted(name)
	}
	if k := strings.LastIndexAny(name, ".:"); k >= 0 {
		name = name[k+1:]
	}
	j := i
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	switch {
	case j < len(src) && src[j] == '(':
		args, raw, end := s.args(j+1, ')')
		s.i = end
		fc := foundCall{name: name, kind: kind, args: args, raw: raw}
		if kind == pathObject {
			fc.method = methodAfter(src[end:])
		}
		return fc, true
	case j < len(src) && src[j] == '`' && (name == "$" || strings.HasSuffix(name, ".$")):
		s.i = j
		text, dyn := s.str('`')
		return foundCall{name: name, kind: kind, args: []interpArg{{kind: argString, text: text, dynamic: dyn}}}, true
	case s.l.bare && j > i && j+3 < len(src) && src[j:j+2] == "qw" && !identChar(src[j+2]):
		// Perl's system qw(rm -rf x): a list of words.
		open := src[j+2]
		closeBy := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>'}[open]
		if closeBy == 0 {
			closeBy = open
		}
		end := strings.IndexByte(src[j+3:], closeBy)
		if end < 0 {
			return foundCall{}, false
		}
		var items []interpArg
		for _, w := range strings.Fields(src[j+3 : j+3+end]) {
			items = append(items, interpArg{kind: argString, text: w})
		}
		s.i = j + 3 + end + 1
		return foundCall{name: name, kind: kind, args: []interpArg{{kind: argList, items: items}}}, true
	case s.l.bare && j > i && j < len(src) && strings.IndexByte(`"'[%`, src[j]) >= 0,
		s.l.bare && name == "qx",
		// unlink glob("/etc/*"): an expression, read to the statement's end.
		s.l.bare && j > i && j < len(src) && (src[j] == '_' || src[j]|0x20 >= 'a' && src[j]|0x20 <= 'z'):
		args, raw, end := s.args(j, '\n')
		s.i = end
		return foundCall{name: name, kind: kind, args: args, raw: raw}, true
	}
	return foundCall{}, false
}

// quoted handles Perl's qx and Ruby's %x, the scanner on the delimiter
// after them; name is what was read before it.
func (s *codeScanner) quoted(name string) (foundCall, bool) {
	if name != "qx" || s.i >= len(s.src) {
		return foundCall{}, false
	}
	open := s.src[s.i]
	closeBy := map[byte]byte{'{': '}', '(': ')', '[': ']', '<': '>'}[open]
	if closeBy == 0 {
		closeBy = open
	}
	end := strings.IndexByte(s.src[s.i+1:], closeBy)
	if end < 0 {
		return foundCall{}, false
	}
	text := s.src[s.i+1 : s.i+1+end]
	s.i += end + 2
	return foundCall{name: "qx", kind: shellLine, args: []interpArg{{kind: argString, text: text, dynamic: strings.Contains(text, "$")}}}, true
}

// args reads a call's arguments from i up to the closing byte end (')' or,
// for a call without parentheses, the end of the statement) and returns
// them, their text, and where the scanner goes on.
func (s *codeScanner) args(i int, end byte) ([]interpArg, string, int) {
	src := s.src
	start := i
	var args []interpArg
	for n := 0; i < len(src) && n < 64; n++ {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' && end != '\n' || src[i] == ',') {
			i++
		}
		if i >= len(src) || src[i] == end || end == '\n' && src[i] == ';' {
			break
		}
		var a interpArg
		a, i = s.arg(i, end)
		args = append(args, a)
	}
	raw := src[start:min(i, len(src))]
	if i < len(src) {
		i++
	}
	return args, raw, i
}

// arg reads one argument at i, up to a comma or the end byte outside
// brackets and strings.
func (s *codeScanner) arg(i int, end byte) (interpArg, int) {
	src := s.src
	start := i
	var a interpArg
	first := true
	depth := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			s.i = i
			text, dyn := s.str(c)
			if first && depth == 0 && strings.TrimSpace(src[start:i]) == strings.TrimRight(src[start:i], " ") && isStrPrefix(src[start:i]) {
				a = interpArg{kind: argString, text: text, dynamic: dyn}
			} else if a.kind == argString && depth == 0 {
				a.text += text
			}
			i = s.i
			first = false
			continue
		case (c == '[' || c == '{') && first && depth == 0 && strings.TrimSpace(src[start:i]) == "":
			closeBy := byte(']')
			if c == '{' {
				closeBy = '}'
			}
			items, raw, next := s.args(i+1, closeBy)
			if c == '[' {
				a = interpArg{kind: argList, items: items, text: raw}
			} else {
				a = interpArg{kind: argObject, text: raw}
				if m := objectArgs().FindStringSubmatchIndex(raw); m != nil {
					sub := &codeScanner{l: s.l, src: raw}
					lst, _, _ := sub.args(m[1], ']')
					a.items = lst
				}
			}
			i = next
			first = false
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return s.finish(a, src[start:i]), i
			}
			depth--
		case depth == 0 && (c == ',' || c == end || end == '\n' && c == ';'):
			return s.finish(a, src[start:i]), i
		case c == '+' || c == '%' || c == '.' && a.kind == argString:
			if depth == 0 && a.kind == argString {
				a.dynamic = true
			}
		case c != ' ' && c != '\t' && c != '\n':
			if !identChar(c) || !isStrPrefix(src[start:i+1]) {
				first = false
			}
		}
		i++
	}
	return s.finish(a, src[start:i]), i
}

func isStrPrefix(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "r", "f", "b", "u", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

func (s *codeScanner) finish(a interpArg, raw string) interpArg {
	raw = strings.TrimSpace(raw)
	if a.kind == argOther {
		a.text = raw
		return a
	}
	if a.kind == argString {
		// Anything beside the literal (a call, a variable) is run time.
		if rest := strings.TrimSpace(raw); rest != "" {
			if q := rest[len(rest)-1]; q != '"' && q != '\'' && q != '`' {
				a.dynamic = true
			}
		}
	}
	return a
}

// objectArgs finds the list of an options object's args or cmd: Deno's
// Command("rm", {args: [...]}) and run({cmd: [...]}).
var objectArgs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:args|cmd)\s*:\s*\[`)
})

// isShellName reports whether argv (a command line's words) starts a POSIX
// shell reading its standard input.
func isShellName(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	return isShell(canonical(Bash, argv[0])) && (len(argv) == 1 || argv[1] == "-s" || argv[1] == "-")
}

// walkDeletes are, per language, a tree walk and a delete call: code with
// both deletes recursively, as find -delete does (os.walk with os.remove,
// File::Find with unlink, Dir.glob("**") with File.delete, ...).
var walkDeletes = sync.OnceValue(func() map[string][2]*regexp.Regexp {
	re := regexp.MustCompile
	return map[string][2]*regexp.Regexp{
		"Python": {re(`\bos\.walk\(|\.rglob\(|\bwalk\(|glob\([^)]*\*\*`), re(`\bos\.(?:remove|unlink|rmdir)\(|\.unlink\(|\.rmdir\(`)},
		"Perl":   {re(`\bfind(?:depth)?\s*\(|File::Find`), re(`\bunlink\b|\brmdir\b`)},
		"Ruby":   {re(`Dir\.glob\([^)]*\*\*|Dir\[[^\]]*\*\*|Find\.find`), re(`File\.(?:delete|unlink)|Dir\.(?:rmdir|delete|unlink)|FileUtils\.rm\b`)},
		"JavaScript": {re(`readdirSync\([^)]*recursive|globSync\([^)]*\*\*|glob\.sync\([^)]*\*\*|\bwalk\(`),
			re(`unlinkSync|rmdirSync|\.unlink\(`)},
		"PHP": {re(`Recursive(?:Iterator|Directory)Iterator`), re(`\bunlink\(|\brmdir\(`)},
	}
})

// walkDelete reports whether src walks a tree and deletes in it.
func walkDelete(l *lang, src string) bool {
	if !strings.Contains(src, "walk") && !strings.Contains(src, "glob") && !strings.Contains(src, "find") &&
		!strings.Contains(src, "Find") && !strings.Contains(src, "Recursive") && !strings.Contains(src, "readdirSync") {
		return false // a cheap test before the regexps
	}
	p, ok := walkDeletes()[l.name]
	return ok && p[0].MatchString(src) && p[1].MatchString(src)
}

// ormBulks are, per language, ORM calls that empty or drop a table without
// SQL text: Rails' Model.delete_all and destroy_all and drop_table,
// Django's Model.objects.all().delete(), Prisma's and Mongo's
// deleteMany() with no filter, knex's dropTable, Laravel's Schema::drop and
// Model::truncate(). Their receivers name a whole table; a scoped call
// (where(...).delete_all, filter(...).delete()) is not matched.
var ormBulks = sync.OnceValue(func() map[string][]struct {
	re   *regexp.Regexp
	rule string
} {
	type bulk = struct {
		re   *regexp.Regexp
		rule string
	}
	re := regexp.MustCompile
	return map[string][]bulk{
		"Ruby": {{re(`(?:^|[^\w.])[A-Z][\w:]*(?:\.all|\.unscoped)?\.(?:delete_all|destroy_all)\b`), RuleSQLDestroy},
			{re(`\bdrop_table\b`), RuleSQLDrop}},
		"Python": {{re(`\.objects(?:\.all\(\))?\.delete\(\)`), RuleSQLDestroy},
			// SQLAlchemy's and Flask-SQLAlchemy's drop of every table.
			{re(`\b(?:metadata|db)\.drop_all\(`), RuleSQLDrop}},
		"JavaScript": {{re(`\.deleteMany\(\s*(?:\{\s*\})?\s*\)`), RuleSQLDestroy},
			{re(`\.dropTable(?:IfExists)?\(`), RuleSQLDrop},
			// Sequelize: drop() and sync({force: true}) drop every table.
			{re(`\bsequelize\.(?:drop\(|sync\(\s*\{[^}]*\bforce\s*:\s*true)`), RuleSQLDrop}},
		"PHP": {{re(`Schema::drop(?:IfExists)?\(`), RuleSQLDrop}, {re(`::truncate\(\)|DB::table\([^)]*\)->(?:delete|truncate)\(\)`), RuleSQLDestroy}},
	}
})

// ormBulk judges ORM calls that empty or drop whole tables, outside the
// code's string literals.
func (e *evaluator) ormBulk(k *call, l *lang, src string) {
	if !strings.Contains(src, "delete") && !strings.Contains(src, "destroy_all") && !strings.Contains(src, "drop") &&
		!strings.Contains(src, "deleteMany") && !strings.Contains(src, "dropTable") && !strings.Contains(src, "truncate(") &&
		!strings.Contains(src, "drop_all(") && !strings.Contains(src, "sync(") {
		return // a cheap test before the regexps
	}
	bulks := ormBulks()[l.name]
	if bulks == nil {
		return
	}
	code := blankStrings(src)
	for _, b := range bulks {
		if m := b.re.FindString(code); m != "" {
			e.add(b.rule, k.match(), "%s in the %s code empties or drops a whole table", strings.TrimSpace(m), l.name)
			return
		}
	}
}

// blankStrings replaces the contents of the quoted strings in src ('...',
// "...", `...`, with backslash escapes) by blanks, keeping its length.
func blankStrings(src string) string {
	b := []byte(src)
	var q byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case q == 0 && (c == '\'' || c == '"' || c == '`'):
			q = c
		case q != 0 && c == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case q != 0 && c == q:
			q = 0
		case q != 0:
			b[i] = ' '
		}
	}
	return string(b)
}
