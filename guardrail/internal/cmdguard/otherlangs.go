package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Languages harnish has no scanner for (Elixir, Groovy, Scala, Clojure,
// Racket, Erlang, Swift, Raku, ...) and Tcl. Their code, given by argument
// or standard input, is read coarsely and fails closed: a string literal
// that is a command line, or string literals whose first names a program
// and whose others are its arguments (System.cmd("rm", ["-rf", "x"])), are
// judged as that command; a call named as a recursive delete in any
// language (rm_rf, rmtree, remove_tree, deleteDir, deleteRecursively,
// delete_recursively) is fs.recursive-delete. Tcl's exec runs argv and its
// file delete -force deletes trees.

var otherLangs = []string{"elixir", "iex", "groovy", "groovysh", "scala", "scala-cli", "kotlin", "kotlinc", "clojure", "clj",
	"bb", "racket", "guile", "sbcl", "clisp", "erl", "escript", "ocaml", "swift", "crystal", "nim", "raku", "perl6", "janet",
	"jshell", "dotnet-script", "csi", "fsi", "gforth", "newlisp", "hy", "fennel", "jruby", "jython", "rhino", "jjs", "qjs", "d8",
	"emacs"}

func init() {
	handle(otherLangCommand, otherLangs...)
	handle(tclCommand, "tclsh", "wish", "jimsh")
}

// treeDeleteCalls are names that mean a recursive delete in any language.
var treeDeleteCalls = []string{"rm_rf", "rm_r(", "rmtree", "remove_tree", "deleteDir(", "deleteRecursively", "delete_recursively",
	"removeRecursive", "remove_dir_all", "RemoveAll(", "rmdir_p", "recursive=true", "recursive = true", "recursive: true"}

var elispDeletes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(delete-(directory|file)\s+"([^"]*)"(\s+(?:t|'t|1)\b)?`)
})

// otherLangCommand judges code of a language without a scanner.
func otherLangCommand(e *evaluator, k *call) {
	var code []string
	for _, w := range k.args {
		if !w.Dynamic() && strings.ContainsAny(w.Text, `"'(`) {
			code = append(code, w.Text)
		}
	}
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		code = append(code, text.Text)
	}
	for _, c := range code {
		if len(c) > maxCode {
			e.add(RuleUnresolved, k.match(), "%s code longer than %d bytes cannot be judged", k.name, maxCode)
			return
		}
		e.otherCode(k, c)
	}
}

func (e *evaluator) otherCode(k *call, c string) {
	if k.name == "emacs" {
		// Emacs Lisp: (delete-directory "x" t) deletes a tree, (delete-file
		// "x") a file.
		for _, m := range elispDeletes().FindAllStringSubmatch(c, maxCalls) {
			if m[1] == "directory" && m[3] != "" {
				e.add(RuleRecursiveDelete, k.match(), "delete-directory with its recursive argument deletes recursively")
			}
			e.write(shell.Lit(m[2]), k.match(), "deletes")
		}
	}
	for _, n := range treeDeleteCalls {
		if strings.Contains(c, n) && (!strings.HasPrefix(n, "recursive") || strings.Contains(c, "rm") || strings.Contains(c, "delete") || strings.Contains(c, "remove")) {
			e.add(RuleRecursiveDelete, k.match(), "the %s code calls %s, a recursive delete", k.name, strings.TrimRight(n, "("))
			return
		}
	}
	lits := stringLiterals(c, maxCalls)
	if len(lits) == 0 {
		return
	}
	before := len(e.found)
	for _, l := range lits {
		if f := strings.Fields(l); len(f) > 1 && runsCommand(f[0]) {
			e.script(l, Bash, k.depth+1)
		}
	}
	if len(e.found) == before && len(lits) > 1 && runsCommand(lits[0]) {
		argv := make([]shell.Word, 0, len(lits))
		for _, l := range lits {
			argv = append(argv, shell.Lit(l))
		}
		e.argv(k.c, argv, shell.Input{}, Bash, k.depth+1)
	}
}

// stringLiterals returns the contents of the single- and double-quoted
// literals in code, at most limit of them, backslash escapes kept as
// written.
func stringLiterals(code string, limit int) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < limit; i++ {
		q := code[i]
		if q != '"' && q != '\'' {
			continue
		}
		j := i + 1
		for j < len(code) && code[j] != q {
			if code[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(code) {
			break
		}
		out = append(out, code[i+1:j])
		i = j
	}
	return out
}

// tclCommand judges Tcl code from standard input or -c-like arguments:
// exec runs argv (exec rm -rf x), file delete -force deletes trees.
func tclCommand(e *evaluator, k *call) {
	var code []string
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		code = append(code, text.Text)
	}
	for _, c := range code {
		if len(c) > maxCode {
			e.add(RuleUnresolved, k.match(), "Tcl code longer than %d bytes cannot be judged", maxCode)
			return
		}
		n := 0
		for _, line := range strings.FieldsFunc(c, func(r rune) bool { return r == '\n' || r == ';' || r == '[' || r == ']' }) {
			f := strings.Fields(strings.TrimSpace(line))
			if len(f) == 0 {
				continue
			}
			switch {
			case f[0] == "exec" && len(f) > 1:
				if n++; n > maxCalls {
					return
				}
				args := f[1:]
				for len(args) > 0 && strings.HasPrefix(args[0], "-") {
					args = args[1:] // -ignorestderr, -keepnewline, --
				}
				argv := make([]shell.Word, 0, len(args))
				for _, a := range args {
					if a == "&" || strings.HasPrefix(a, ">") || strings.HasPrefix(a, "<") || strings.HasPrefix(a, "2>") {
						break
					}
					argv = append(argv, shell.Lit(strings.Trim(a, `{}"`)))
				}
				e.argv(k.c, argv, shell.Input{}, Bash, k.depth+1)
			case f[0] == "file" && len(f) > 2 && f[1] == "delete" && contains(f[2:], "-force"):
				e.add(RuleRecursiveDelete, k.match(), "Tcl's file delete -force deletes directories recursively")
			}
		}
	}
}
