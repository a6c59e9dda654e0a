package preflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/task"
)

// The kinds of finding.
const (
	KindChecks = "checks" // a task without a check that runs
	KindTree   = "tree"   // uncommitted changes
	KindBudget = "budget" // no run-wide cap
	KindInput  = "input"  // a file the plan says exists does not, or the like
	KindTool   = "tool"   // a program a check runs is not on PATH
)

// Finding is one thing found. Blocking ones stop a run before it starts.
type Finding struct {
	Kind     string `json:"kind"`
	Task     string `json:"task,omitempty"`
	Blocking bool   `json:"blocking"`
	// Expected and Found say what the plan expects and what the tree holds,
	// for a contradiction; Message says it in one line otherwise.
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
	Message  string `json:"message,omitempty"`
}

// String prints a contradiction as a question to a person, anything else
// as one line.
func (f Finding) String() string {
	if f.Expected != "" {
		return "Expected: " + f.Expected + "\nFound: " + f.Found + "\nHow should I proceed?"
	}
	if f.Task != "" {
		return f.Kind + ": task " + f.Task + ": " + f.Message
	}
	return f.Kind + ": " + f.Message
}

// Tool is a program the checks run, as found on PATH.
type Tool struct {
	Name    string `json:"name"`
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
}

// Report is what [Run] found.
type Report struct {
	Findings []Finding `json:"findings"`
	Tools    []Tool    `json:"tools"`
}

// Blocking reports whether any finding stops a run.
func (r *Report) Blocking() bool {
	return slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Blocking })
}

// Config says what to check.
type Config struct {
	// Plan is the plan to run. Required.
	Plan *task.Plan
	// Dir is the working tree. Empty means the current directory.
	Dir string
	// Skip lists paths, relative to Dir, whose changes do not make the tree
	// dirty (the plan file, the state directory).
	Skip []string
	// DirtyBlocks makes uncommitted changes a blocking finding.
	DirtyBlocks bool
	// BudgetBlocks makes a run with no cap on tokens, cost or time a
	// blocking finding.
	BudgetBlocks bool
}

// Run checks cfg. Only a missing plan is an error; everything else is in
// the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Plan == nil {
		return nil, errors.New("preflight: Config.Plan is required")
	}
	dir := cfg.Dir
	if dir == "" {
		dir = "."
	}
	r := &Report{Findings: []Finding{}, Tools: []Tool{}}
	p := cfg.Plan
	if err := p.Validate().Err(); err != nil {
		r.Findings = append(r.Findings, Finding{Kind: KindChecks, Blocking: true, Message: "the plan does not validate: " + err.Error()})
	}
	tools := map[string]bool{}
	var order []string
	tree := &treeIndex{ctx: ctx, dir: dir}
	planned := map[string]bool{}
	for _, pt := range p.Tasks() {
		t := pt.Task
		if t.Status == task.StatusDone {
			continue
		}
		if !slices.ContainsFunc(t.Acceptance, func(c task.Check) bool { k := c.Kind(); return k != "" && k != "manual" }) {
			r.Findings = append(r.Findings, Finding{Kind: KindChecks, Task: t.ID, Blocking: true,
				Message: "no check that runs: nothing would tell it is done"})
		}
		for _, name := range checkTools(t.Acceptance) {
			if !tools[name] {
				tools[name] = true
				order = append(order, name)
			}
		}
		r.Findings = append(r.Findings, contradictions(tree, *t, planned)...)
	}
	for _, c := range missingContext(p, os.DirFS(dir)) {
		r.Findings = append(r.Findings, Finding{Kind: KindInput,
			Message: fmt.Sprintf("context %q names no file in the working tree: the prompts go without it", c)})
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		changes, err := gitx.Changes(ctx, dir, cfg.Skip...)
		switch {
		case err != nil:
			r.Findings = append(r.Findings, Finding{Kind: KindTree, Blocking: cfg.DirtyBlocks, Message: "git status: " + err.Error()})
		case len(changes) > 0:
			r.Findings = append(r.Findings, Finding{Kind: KindTree, Blocking: cfg.DirtyBlocks,
				Message: fmt.Sprintf("uncommitted changes (%s): commit or stash them", strings.Join(changes[:min(len(changes), 5)], ", "))})
		}
	}
	if b := p.Budget; b.Tokens == 0 && b.CostUSD == 0 && b.RunTimeout == 0 {
		r.Findings = append(r.Findings, Finding{Kind: KindBudget, Blocking: cfg.BudgetBlocks,
			Message: "no cap on the run's tokens, cost or time: set budget.tokens, budget.cost_usd or budget.run_timeout"})
	}
	r.Tools = lookTools(ctx, order)
	for _, tool := range r.Tools {
		if tool.Path == "" {
			r.Findings = append(r.Findings, Finding{Kind: KindTool, Blocking: true,
				Message: fmt.Sprintf("%s is not on PATH; the checks run it", tool.Name)})
		}
	}
	return r, nil
}

// checkTools lists the programs the checks run.
func checkTools(checks []task.Check) []string {
	var out []string
	for _, c := range checks {
		switch c.Kind() {
		case "run":
			if !strings.Contains(c.Run[0], "/") {
				out = append(out, c.Run[0])
			}
		case "sh":
			out = append(out, "sh")
			out = append(out, scriptTools(c.Sh)...)
		case "gotest":
			out = append(out, "go")
		case "cmake":
			out = append(out, "cmake", "ctest")
		}
	}
	return out
}

// builtins are shell words that are not programs.
var builtins = []string{"cd", "export", "source", ".", "set", "unset", "test", "[", "echo", "printf", "true", "false",
	"exit", "if", "then", "else", "elif", "fi", "for", "while", "do", "done", "case", "esac", "!", "{", "}", "local", "read", "pushd", "popd", "eval", "exec", "shift", "return"}

var scriptWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|&&|\|\||;|\||\n|\$\(|\bthen\b|\bdo\b)\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*([A-Za-z0-9_.+-]+)`)
})

// scriptTools finds the programs a shell script runs: the first word of
// each command, builtins left out.
func scriptTools(script string) []string {
	var out []string
	for _, m := range scriptWord().FindAllStringSubmatch(script, -1) {
		if w := m[1]; !slices.Contains(builtins, w) && !slices.Contains(out, w) && !strings.HasPrefix(w, "-") {
			out = append(out, w)
		}
	}
	return out
}

// lookTools finds each tool on PATH and asks it its version.
func lookTools(ctx context.Context, names []string) []Tool {
	out := make([]Tool, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		out[i].Name = name
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		out[i].Path = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].Version = version(ctx, p)
		}()
	}
	wg.Wait()
	return out
}

// version is the first line a program prints for --version (go: "go
// version"), or "" when it says nothing within two seconds.
func version(ctx context.Context, prog string) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	args := []string{"--version"}
	if filepath.Base(prog) == "go" {
		args = []string{"version"}
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin = nil
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(line)
}

// missingContext returns the entries of the plan's context that name no
// file in fsys (the working tree): a file named on purpose that is not
// there is likely a typo.
func missingContext(p *task.Plan, fsys fs.FS) []string {
	var out []string
	for _, c := range p.Context {
		if names, err := fs.Glob(fsys, path.Clean(c)); err != nil || len(names) == 0 {
			out = append(out, c)
		}
	}
	return out
}
