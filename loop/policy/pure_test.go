package policy_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// TestPure: the decision core does no I/O. It imports task and pure
// standard packages only, and brings in nothing that task does not: no os,
// os/exec, net, syscall or I/O of its own. (task, which loads plans from
// files, brings os with it; the model alone would not.)
func TestPure(t *testing.T) {
	list := func(args ...string) []string {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
		if err != nil {
			t.Skipf("go list: %v", err)
		}
		return strings.Fields(string(out))
	}
	imports := list("-f", `{{join .Imports " "}}`, ".")
	impure := []string{"os", "os/exec", "os/signal", "net", "net/http", "syscall", "io/fs", "path/filepath", "log", "log/slog", "math/rand", "math/rand/v2", "crypto/rand", "unsafe", "runtime"}
	for _, p := range imports {
		if p != "github.com/harnish/harnish/task" && (strings.Contains(p, ".") || slices.Contains(impure, p)) {
			t.Errorf("the decision core imports %s", p)
		}
	}
	taskDeps := list("-deps", "github.com/harnish/harnish/task")
	for _, p := range list("-deps", ".") {
		if !slices.Contains(taskDeps, p) && p != "github.com/harnish/harnish/loop/policy" && slices.Contains(impure, p) {
			t.Errorf("the decision core depends on %s, which task does not", p)
		}
	}
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
