package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// interactivePrograms are the shells and REPLs that, started with no
// script, read their commands from standard input (canonical names:
// lowercase, so R is r).
var interactivePrograms = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:bash|sh|zsh|dash|ksh|mksh|fish|csh|tcsh|ash|busybox|python[0-9.]*|ipython[0-9.]*|pypy[0-9.]*|node|nodejs|irb|ruby|perl|php|lua[0-9.]*|tclsh|wish|r|julia|ghci|sqlite3|psql|mysql|osascript|pwsh|powershell)$`)
})

// infoFlags make a shell or REPL print something and exit, never read
// commands: agents run "python3 --version" all the time.
var infoFlags = map[string]bool{"--version": true, "-version": true, "-V": true, "--help": true, "-help": true, "-h": true}

// interactive judges k, after its wrappers (sudo, env, timeout, ...), as a
// shell or REPL started bare: options at most, and standard input the
// terminal it inherits, not a pipe, a file or a here-document.
func (e *evaluator) interactive(k *call) {
	if !e.p.RefuseInteractive || k.stdin.Kind != shell.Inherited || !interactivePrograms().MatchString(k.name) {
		return
	}
	for _, w := range k.args {
		t := w.Text
		if w.Dynamic() || !strings.HasPrefix(t, "-") || t == "-c" || t == "-e" {
			return // a script, or code to run, or what it cannot tell
		}
		if infoFlags[t] || t == "-v" && (k.name == "node" || k.name == "nodejs") {
			return // prints its version or help and exits
		}
	}
	e.add(RuleInteractive, k.match(),
		"%s started without a script reads its commands from a terminal no guard judges; run the commands themselves, or %s with -c or a script file", k.name, k.name)
}
