package policy_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// TestPure: the decision core does no I/O and reads no clock, and the
// compiler keeps it so. All it is built from is loop/policy itself, the plan
// model (task/model, with the two helpers under task/internal that the model
// uses) and standard packages: no other module, and not package task, whose
// readers bring os, path/filepath and a YAML parser with them.
//
// The deny-list below cannot hold for the whole of `go list -deps`: standard
// packages the core needs import the world for their own ends. fmt imports
// os (for Println), time imports syscall (to read zoneinfo files), and
// encoding/json and crypto/sha256 come with os too. So the test holds each
// of our packages to the deny-list in what it imports itself, which leaves
// an impure package in the closure only where a standard package brought
// it. And since fmt, time and context are admitted, it forbids in our
// sources the few functions of theirs that reach the world or the clock.
func TestPure(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command("go", "list", "-deps", "-f",
		`{{.ImportPath}}|{{.Standard}}|{{join .Imports " "}}|{{.Dir}}|{{join .GoFiles " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	ours := []string{
		"github.com/harnish/harnish/loop/policy",
		"github.com/harnish/harnish/schema", // the shared vocabulary, a leaf
		"github.com/harnish/harnish/task/model",
		"github.com/harnish/harnish/task/internal/quote",  // cuts long values in the model's messages
		"github.com/harnish/harnish/task/internal/source", // where a parsed plan's fields were, for Validate
	}
	// Packages that do I/O, read the environment, break the type system or
	// are random.
	deny := []string{
		"os", "syscall", "net", "io/fs", "io/ioutil", "path/filepath", "log",
		"runtime", "internal", "unsafe", "C", "plugin", "debug", "expvar",
		"math/rand", "crypto/rand", "hash/maphash",
	}
	impure := func(p string) bool {
		return slices.ContainsFunc(deny, func(d string) bool { return p == d || strings.HasPrefix(p, d+"/") })
	}
	var seen []string
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimSpace(line), "|")
		path, std, imports, dir, files := f[0], f[1] == "true", strings.Fields(f[2]), f[3], strings.Fields(f[4])
		if std {
			continue
		}
		seen = append(seen, path)
		if !slices.Contains(ours, path) {
			t.Errorf("the decision core depends on %s, which is neither the plan model nor the standard library", path)
			continue
		}
		for _, imp := range imports {
			if impure(imp) {
				t.Errorf("%s imports %s", path, imp)
			}
		}
		for _, name := range files {
			worldly(t, filepath.Join(dir, name))
		}
	}
	if !slices.Contains(seen, "github.com/harnish/harnish/loop/policy") {
		t.Errorf("go list -deps . lists no loop/policy:\n%s", out)
	}
}

// reach lists, by standard package the decision core may import, the
// functions and variables that reach the world, the clock or the local time
// zone, or make a context with a timer.
var reach = map[string][]string{
	"fmt":     {"Print", "Printf", "Println", "Scan", "Scanf", "Scanln"},
	"time":    {"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker", "LoadLocation", "Local"},
	"context": {"Background", "TODO", "WithDeadline", "WithDeadlineCause", "WithTimeout", "WithTimeoutCause"},
}

// worldly reports each use in the Go file at name of a name in reach.
func worldly(t *testing.T, name string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	local := map[string]string{} // import name in this file -> path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		n := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		local[n] = p
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && slices.Contains(reach[local[x.Name]], sel.Sel.Name) {
			t.Errorf("%s: %s.%s reaches outside the decision core", fset.Position(sel.Pos()), local[x.Name], sel.Sel.Name)
		}
		return true
	})
}

// TestNextRefuses: a state the policy did not make is an error, not a panic.
func TestNextRefuses(t *testing.T) {
	p := &policy.Policy{}
	plan := onePhase(check("T1"))
	for name, st := range map[string]*policy.RunState{
		"no run started": {},
		"no state":       nil,
	} {
		if _, err := p.Next(plan, st, time.Unix(0, 0)); err == nil {
			t.Errorf("%s: Next gave no error", name)
		}
	}
}
