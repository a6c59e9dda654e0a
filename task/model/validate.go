package model

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/task/internal/quote"
	"github.com/harnish/harnish/task/internal/source"
)

// idPattern keeps IDs and plan names safe as file names and in commit messages.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Validate checks the plan's meaning: version, unique IDs, dependencies that
// exist and form no cycle, budgets within bounds, well-formed checks and
// components. It returns every problem, warnings included, in source order
// for a plan that package task parsed, each at its file, line and column.
// Use [Problems.Err] to decide whether the plan may run.
func (p *Plan) Validate() Problems {
	return (&validator{plan: p}).validate()
}

type validator struct {
	plan     *Plan
	problems Problems
}

// unread returns the fields a parse could not read; nil for none.
func (v *validator) unread() *source.Unread {
	if v.plan.src == nil {
		return nil
	}
	return v.plan.src.Unread
}

func (v *validator) validate() Problems {
	p := v.plan
	v.version()
	v.id("name", p.Name)
	v.budget("budget", p.Budget, false)
	v.component("executor", p.Executor, KindCommand, KindPlugin, KindCodex, KindClaude, KindACP)
	v.component("debugger", p.Debugger, KindCommand, KindPlugin)
	v.component("reviewer", p.Reviewer, KindCommand, KindPlugin)
	v.advisor()
	v.stuck()
	v.context()
	v.guardrails()
	v.parallel("parallel", p.Parallel)
	if p.Pacing != 0 {
		v.duration("pacing", p.Pacing, 24*time.Hour)
	}
	v.phases()
	slices.SortStableFunc(v.problems, bySource)
	return v.problems
}

func (v *validator) add(field string, warning bool, class error, format string, args ...any) {
	if v.unread().Covers(field) {
		return
	}
	v.report(field, warning, class, format, args...)
}

// missing adds a problem that something is missing (required, no acceptance
// criteria), which a field of the same object that could not be read may
// explain.
func (v *validator) missing(field string, warning bool, class error, format string, args ...any) {
	if v.unread().Near(field) {
		return
	}
	v.add(field, warning, class, format, args...)
}

func (v *validator) report(field string, warning bool, class error, format string, args ...any) {
	p := Problem{Field: field, Message: fmt.Sprintf(format, args...), Warning: warning, Err: class}
	if src := v.plan.src; src != nil {
		p.File = src.Name
		if at, ok := src.Locate(field); ok {
			p.Line, p.Column = at.Line, at.Col
		}
	}
	v.problems = append(v.problems, p)
}

// where names a field for a message: its line when known, else its path.
func (v *validator) where(field string) string {
	if src := v.plan.src; src != nil {
		if at, ok := src.Pos[field]; ok {
			return fmt.Sprintf("line %d", at.Line)
		}
	}
	return field
}

func (v *validator) errorf(field, format string, args ...any) {
	v.add(field, false, ErrSchema, format, args...)
}

// bySource orders problems by position, for a stable sort; problems without
// one come first.
func bySource(a, b Problem) int {
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Column - b.Column
}

func (v *validator) version() {
	ver := v.plan.Version
	if ver == "" {
		v.missing("version", false, ErrSchema, "required (this harnish reads version %d)", SchemaMajor)
		return
	}
	if _, ok := versionMajor(ver); !ok {
		v.errorf("version", "invalid version %s: want a semantic version such as %d", quote.String(ver), SchemaMajor)
		return
	}
	if msg, bad := unsupportedVersion(ver); bad {
		v.add("version", false, ErrUnsupportedVersion, "%s", msg)
	}
}

func (v *validator) id(field, id string) bool {
	switch {
	case id == "":
		v.missing(field, false, ErrSchema, "required")
	case !idPattern().MatchString(id):
		v.errorf(field, "%s is not a valid ID: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 characters", quote.String(id))
	default:
		return true
	}
	return false
}

// budget checks a plan's budget, or with task set a task's, which may set
// only attempts and task_timeout.
func (v *validator) budget(field string, b Budget, task bool) {
	written := func(name string) bool { return v.plan.src.Written(field + "." + name) }
	if b.Attempts < 0 || b.Attempts > MaxAttempts || (b.Attempts == 0 && written("attempts")) {
		v.errorf(field+".attempts", "%d is out of range 1..%d", b.Attempts, MaxAttempts)
	}
	v.duration(field+".task_timeout", b.TaskTimeout, MaxTaskTimeout)
	if task {
		for _, name := range []string{"cycles", "run_timeout", "tokens", "cost_usd"} {
			if written(name) || !b.runWideZero(name) {
				v.errorf(field+"."+name, "run-wide: set it in the plan's budget; a task's budget sets only attempts and task_timeout")
			}
		}
		return
	}
	if b.Cycles < 0 || b.Cycles > MaxCycles || (b.Cycles == 0 && written("cycles")) {
		v.errorf(field+".cycles", "%d is out of range 1..%d", b.Cycles, MaxCycles)
	}
	v.duration(field+".run_timeout", b.RunTimeout, MaxRunTimeout)
	if b.Tokens < 0 {
		v.errorf(field+".tokens", "%d is negative", b.Tokens)
	}
	if b.CostUSD < 0 {
		v.errorf(field+".cost_usd", "%g is negative", b.CostUSD)
	}
}

// runWideZero reports whether the run-wide field name of b is unset.
func (b Budget) runWideZero(name string) bool {
	switch name {
	case "cycles":
		return b.Cycles == 0
	case "run_timeout":
		return b.RunTimeout == 0
	case "tokens":
		return b.Tokens == 0
	}
	return b.CostUSD == 0
}

// duration checks a duration that is set (or written, even as "0s") lies in
// MinDuration..limit.
func (v *validator) duration(field string, d Duration, limit time.Duration) {
	if (d != 0 || v.plan.src.Written(field)) && (d.Std() < MinDuration || d.Std() > limit) {
		v.errorf(field, "%s is out of range %s..%s", d, MinDuration, fmtDuration(limit))
	}
}

// fmtDuration writes whole hours without the trailing "0m0s".
func fmtDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}

func (v *validator) component(field string, c *Component, kinds ...string) {
	if c == nil {
		return
	}
	if !slices.Contains(kinds, c.Kind) {
		if c.Kind == "" {
			v.missing(field+".kind", false, ErrSchema, "required: one of %s", strings.Join(kinds, ", "))
		} else {
			v.errorf(field+".kind", "%s is not one of %s", quote.String(c.Kind), strings.Join(kinds, ", "))
		}
		return
	}
	switch {
	case c.Kind == KindCommand && (len(c.Argv) == 0 || c.Argv[0] == ""):
		v.missing(field+".argv", false, ErrSchema, "required for kind %q: the program and its arguments", c.Kind)
	case c.Kind == KindACP && c.Agent == "" && (len(c.Argv) == 0 || c.Argv[0] == ""):
		v.missing(field+".agent", false, ErrSchema, "required for kind %q without argv: gemini, claude or codex", c.Kind)
	case c.Kind != KindCommand && c.Kind != KindACP && len(c.Argv) > 0:
		if slices.Contains(kinds, KindACP) {
			v.errorf(field+".argv", "only for kinds %q and %q", KindCommand, KindACP)
		} else {
			v.errorf(field+".argv", "only for kind %q", KindCommand)
		}
	}
	if c.Agent != "" && c.Kind != KindACP {
		v.errorf(field+".agent", "only for kind %q", KindACP)
	}
	switch {
	case c.Kind == KindPlugin && c.Plugin == "":
		v.missing(field+".plugin", false, ErrSchema, "required for kind %q: a plugin name from the manifest", c.Kind)
	case c.Kind != KindPlugin && c.Plugin != "":
		v.errorf(field+".plugin", "only for kind %q", KindPlugin)
	}
	if c.Model != "" && c.Kind != KindCodex && c.Kind != KindClaude && c.Kind != KindACP {
		v.errorf(field+".model", "only for kinds %q, %q and %q", KindCodex, KindClaude, KindACP)
	}
	v.agentSettings(field, c)
	for _, name := range slices.Sorted(maps.Keys(c.Env)) {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			v.errorf(source.Join(field+".env", name), "invalid variable name %s", quote.String(name))
		}
	}
}

// agentSettings checks the settings of an agent CLI: each for its kinds.
func (v *validator) agentSettings(field string, c *Component) {
	switch {
	case c.Sandbox != "" && c.Kind != KindCodex:
		v.errorf(field+".sandbox", "only for kind %q", KindCodex)
	case c.Sandbox != "" && !slices.Contains(CodexSandboxes, c.Sandbox):
		v.errorf(field+".sandbox", "%s is not one of %s", quote.String(c.Sandbox), strings.Join(CodexSandboxes, ", "))
	}
	switch {
	case c.PermissionMode != "" && c.Kind != KindClaude:
		v.errorf(field+".permission_mode", "only for kind %q", KindClaude)
	case c.PermissionMode != "" && !slices.Contains(ClaudePermissionModes, c.PermissionMode):
		v.errorf(field+".permission_mode", "%s is not one of %s", quote.String(c.PermissionMode), strings.Join(ClaudePermissionModes, ", "))
	}
	if c.AllowedTools != nil && c.Kind != KindClaude {
		v.errorf(field+".allowed_tools", "only for kind %q", KindClaude)
	}
	for i, t := range c.AllowedTools {
		if strings.TrimSpace(t) == "" {
			v.errorf(fmt.Sprintf("%s.allowed_tools[%d]", field, i), "empty tool name")
		}
	}
	if c.Args != nil && c.Kind != KindCodex && c.Kind != KindClaude && c.Kind != KindACP {
		v.errorf(field+".args", "only for kinds %q, %q and %q", KindCodex, KindClaude, KindACP)
	}
	for i, a := range c.Args {
		if strings.HasPrefix(a, "--dangerously") {
			v.errorf(fmt.Sprintf("%s.args[%d]", field, i), "%s turns the agent's guards off; harnish keeps them (a host that is a sandbox sets it in code)", quote.String(a))
		}
	}
}

func (v *validator) advisor() {
	a := v.plan.Advisor
	if a == nil {
		return
	}
	v.component("advisor", a.Component(), KindCommand, KindPlugin)
	for i, w := range a.When {
		switch w {
		case AdviseAtHighRisk, AdviseAtRepeat, AdviseAtPlateau:
		default:
			v.errorf(fmt.Sprintf("advisor.when[%d]", i), "%s is not one of %s, %s, %s",
				quote.String(w), AdviseAtHighRisk, AdviseAtRepeat, AdviseAtPlateau)
		}
	}
	switch a.Repeat {
	case "", RepeatAlongside, RepeatInstead:
	default:
		v.errorf("advisor.repeat", "%s is not one of %s, %s", quote.String(a.Repeat), RepeatAlongside, RepeatInstead)
	}
}

func (v *validator) context() {
	for i, c := range v.plan.Context {
		field := fmt.Sprintf("context[%d]", i)
		if _, err := path.Match(c, ""); err != nil || c == "" {
			v.errorf(field, "%s is not a path or a glob", quote.String(c))
			continue
		}
		if clean := path.Clean(c); strings.HasPrefix(c, "/") || clean == ".." || strings.HasPrefix(clean, "../") {
			v.errorf(field, "%s is not a path inside the working tree (relative, slash-separated, no ..)", quote.String(c))
		}
	}
}

func (v *validator) stuck() {
	s := v.plan.Stuck
	for _, f := range []struct {
		key   string
		n, lo int
	}{{"no_progress", s.NoProgress, 2}, {"alternation", s.Alternation, 3}, {"repeated_command", s.RepeatedCommand, 2}, {"silent_turns", s.SilentTurns, 2}} {
		if f.n != 0 && (f.n < f.lo || f.n > MaxStuckThreshold) {
			v.errorf("stuck."+f.key, "%d is out of range %d..%d", f.n, f.lo, MaxStuckThreshold)
		}
	}
}

func (v *validator) guardrails() {
	g := v.plan.Guardrails
	for _, eco := range slices.Sorted(maps.Keys(g.Packages)) {
		for i, pkg := range g.Packages[eco] {
			if strings.TrimSpace(pkg) == "" {
				v.errorf(fmt.Sprintf("%s[%d]", source.Join("guardrails.packages", eco), i), "empty package name")
			}
		}
	}
	for i, p := range g.Protected {
		v.relPath(fmt.Sprintf("guardrails.protected[%d]", i), p)
	}
	if m := g.MaxChangedLines; m < 0 || m > MaxChangedLinesLimit || (m == 0 && v.plan.src.Written("guardrails.max_changed_lines")) {
		v.errorf("guardrails.max_changed_lines", "%d is out of range 1..%d", m, MaxChangedLinesLimit)
	}
	v.tdd("guardrails.tdd", g.TDD)
}

// tdd checks the test-first rule's settings.
func (v *validator) tdd(field string, t *TDD) {
	if t == nil {
		return
	}
	switch t.Level {
	case "", TDDOff, TDDSoft, TDDHard:
	default:
		v.errorf(field+".level", "%s is not one of %s, %s, %s", quote.String(t.Level), TDDOff, TDDSoft, TDDHard)
	}
	for _, ext := range slices.Sorted(maps.Keys(t.Patterns)) {
		pf := source.Join(field+".patterns", ext)
		if len(ext) < 2 || ext[0] != '.' || strings.ContainsAny(ext[1:], "./\\") {
			v.errorf(pf, "%s is not a file extension such as .go", quote.String(ext))
		}
		for i, p := range t.Patterns[ext] {
			_, err := path.Match(strings.ReplaceAll(p, "{stem}", "*"), "")
			if !strings.Contains(p, "{stem}") || strings.ContainsAny(p, "/\\") || err != nil {
				v.errorf(fmt.Sprintf("%s[%d]", pf, i), "%s is not a test file name with {stem}, such as {stem}_test.go", quote.String(p))
			}
		}
	}
	for i, r := range t.Roots {
		if r == "" || strings.ContainsAny(r, "/\\") || r == "." || r == ".." {
			v.errorf(fmt.Sprintf("%s.roots[%d]", field, i), "%s is not a directory name such as tests", quote.String(r))
		}
	}
	for i, e := range t.Exempt {
		if _, err := path.Match(strings.TrimSuffix(e, "/"), ""); err != nil || strings.TrimSpace(e) == "" {
			v.errorf(fmt.Sprintf("%s.exempt[%d]", field, i), "%s is not a valid pattern", quote.String(e))
		}
	}
}

// relPath requires a path relative to the working tree that stays inside it.
func (v *validator) relPath(field, p string) {
	switch {
	case p == "":
		v.errorf(field, "empty path")
	case path.IsAbs(p) || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':'):
		v.errorf(field, "%s is absolute; paths are relative to the working tree's root", quote.String(p))
	case path.Clean(p) == ".." || strings.HasPrefix(path.Clean(p), "../"):
		v.errorf(field, "%s leaves the working tree", quote.String(p))
	}
}

func (v *validator) phases() {
	p := v.plan
	if len(p.Phases) == 0 {
		v.missing("phases", false, ErrSchema, "required: a plan has at least one phase")
		return
	}
	phaseIDs := map[string]string{}
	taskPhase := map[string]int{} // task ID -> index of its phase
	taskField := map[string]string{}
	for i, ph := range p.Phases {
		field := fmt.Sprintf("phases[%d]", i)
		if v.id(field+".id", ph.ID) {
			if prev, dup := phaseIDs[ph.ID]; dup {
				v.errorf(field+".id", "duplicate phase ID %s (first at %s)", quote.String(ph.ID), v.where(prev+".id"))
			} else {
				phaseIDs[ph.ID] = field
			}
		}
		if ph.Milestone != nil {
			for j, item := range ph.Milestone.Manual {
				if strings.TrimSpace(item) == "" {
					v.errorf(fmt.Sprintf("%s.milestone.manual[%d]", field, j), "empty checklist item")
				}
			}
			if len(ph.Milestone.Manual) > 0 && !ph.Milestone.Gated(i, len(p.Phases)) {
				why := "gate: false"
				if i == len(p.Phases)-1 {
					why = "it is the last phase"
				}
				v.add(field+".milestone.manual", true, ErrSchema,
					"no gate follows this phase (%s), so nobody is shown its checklist", why)
			}
		}
		v.parallel(field+".parallel", ph.Parallel)
		if len(ph.Tasks) == 0 {
			v.missing(field+".tasks", false, ErrSchema, "required: a phase has at least one task")
		}
		for j, t := range ph.Tasks {
			tf := fmt.Sprintf("%s.tasks[%d]", field, j)
			// An invalid ID is still registered, so tasks that depend on it
			// do not also report it missing.
			if !v.id(tf+".id", t.ID) && t.ID == "" {
				continue
			}
			if prev, dup := taskField[t.ID]; dup {
				v.errorf(tf+".id", "duplicate task ID %s (first at %s)", quote.String(t.ID), v.where(prev+".id"))
				continue
			}
			taskField[t.ID] = tf
			taskPhase[t.ID] = i
		}
	}
	for i, ph := range p.Phases {
		for j := range ph.Tasks {
			v.task(fmt.Sprintf("phases[%d].tasks[%d]", i, j), i, &ph.Tasks[j], taskPhase)
		}
	}
	v.cycles(taskField)
	for i := range p.Phases {
		v.sharedFiles(i, taskField)
	}
}

func (v *validator) parallel(field string, n int) {
	if n < 0 || n > MaxParallel {
		v.errorf(field, "%d is out of range: at most %d tasks run at once (0 or 1: one after another)", n, MaxParallel)
	}
}

// sharedFiles reports two tasks of phase i that may run at the same time
// (neither depends on the other) and declare the same file, or one a
// directory holding the other's: their changes would conflict for certain,
// and one of them would be retried on the other's work for nothing. An
// error rather than a warning, since the fix (a depends_on) is the plan's
// to state.
func (v *validator) sharedFiles(i int, taskField map[string]string) {
	ph := &v.plan.Phases[i]
	if v.plan.Parallelism(ph) < 2 {
		return
	}
	deps := map[string][]string{}
	for _, t := range ph.Tasks {
		deps[t.ID] = t.DependsOn
	}
	// ancestors returns the tasks id depends on, directly or not (a cycle,
	// reported elsewhere, ends the walk).
	memo := map[string]map[string]bool{}
	ancestors := func(id string) map[string]bool {
		if a, ok := memo[id]; ok {
			return a
		}
		a := map[string]bool{}
		stack := slices.Clone(deps[id])
		for len(stack) > 0 {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !a[d] {
				a[d] = true
				stack = append(stack, deps[d]...)
			}
		}
		memo[id] = a
		return a
	}
	ordered := func(a, b string) bool { return ancestors(a)[b] || ancestors(b)[a] }
	type claim struct{ task, file string }
	var claims []claim
	for j, t := range ph.Tasks {
		if taskField[t.ID] != fmt.Sprintf("phases[%d].tasks[%d]", i, j) {
			continue // a duplicate, reported elsewhere
		}
		for _, f := range t.Files {
			f = path.Clean(strings.TrimSpace(f))
			for _, c := range claims {
				if c.task == t.ID || !overlaps(c.file, f) || ordered(c.task, t.ID) {
					continue
				}
				v.errorf(fmt.Sprintf("phases[%d].tasks[%d].files", i, j),
					"task %s may run at the same time as task %s (phase %s runs %d at once), and both declare %s; make one depend on the other",
					quote.Bare(t.ID), quote.Bare(c.task), quote.Bare(ph.ID), v.plan.Parallelism(ph), quote.String(f))
				break
			}
			claims = append(claims, claim{t.ID, f})
		}
	}
}

// overlaps reports whether two cleaned paths name the same file or one is a
// directory holding the other.
func overlaps(a, b string) bool {
	return a == b || strings.HasPrefix(b, a+"/") || strings.HasPrefix(a, b+"/") || a == "." || b == "."
}

func (v *validator) task(field string, phase int, t *Task, taskPhase map[string]int) {
	if strings.TrimSpace(t.Title) == "" {
		v.missing(field+".title", false, ErrSchema, "required")
	}
	switch t.Risk {
	case "", RiskLow, RiskHigh:
	default:
		v.errorf(field+".risk", "%s is not one of low, high", quote.String(t.Risk))
	}
	switch t.Status {
	case "", StatusTodo, StatusDoing, StatusDone:
	default:
		v.errorf(field+".status", "%s is not one of todo, doing, done", quote.String(string(t.Status)))
	}
	for i, f := range t.Files {
		v.relPath(fmt.Sprintf("%s.files[%d]", field, i), f)
	}
	seen := map[string]bool{}
	for i, dep := range t.DependsOn {
		df := fmt.Sprintf("%s.depends_on[%d]", field, i)
		depPhase, ok := taskPhase[dep]
		switch {
		case dep == t.ID:
			v.errorf(df, "task %s depends on itself", quote.String(dep))
		case seen[dep]:
			v.errorf(df, "%s is listed twice", quote.String(dep))
		case !ok:
			v.errorf(df, "no task %s in the plan", quote.String(dep))
		case depPhase > phase:
			v.errorf(df, "task %s is in a later phase (%s); a task may depend only on tasks of its own or earlier phases",
				quote.String(dep), quote.Bare(v.plan.Phases[depPhase].ID))
		}
		seen[dep] = true
	}
	if len(t.Acceptance) == 0 {
		v.missing(field+".acceptance", true, ErrNoAcceptance,
			"task %s has no acceptance criteria; the loop will escalate it instead of starting it", quote.String(t.ID))
	}
	for i, c := range t.Acceptance {
		v.check(fmt.Sprintf("%s.acceptance[%d]", field, i), c)
	}
	v.budget(field+".budget", t.Budget, true)
}

func (v *validator) check(field string, c Check) {
	var kinds []string
	if c.Run != nil {
		kinds = append(kinds, "run")
	}
	if c.Sh != "" {
		kinds = append(kinds, "sh")
	}
	if c.Manual != "" {
		kinds = append(kinds, "manual")
	}
	if c.GoTest != nil {
		kinds = append(kinds, "gotest")
	}
	if c.CMake != nil {
		kinds = append(kinds, "cmake")
	}
	if c.Plugin != "" {
		kinds = append(kinds, "plugin")
	}
	switch len(kinds) {
	case 0:
		v.missing(field, false, ErrSchema, "a check needs one of run, sh, manual, gotest, cmake, plugin")
		return
	case 1:
	default:
		v.errorf(field, "a check has exactly one of run, sh, manual, gotest, cmake, plugin; this one has %s", strings.Join(kinds, " and "))
		return
	}
	v.goTest(field+".gotest", c.GoTest)
	v.cmake(field+".cmake", c.CMake)
	if c.Plugin != "" {
		v.id(field+".plugin", c.Plugin)
	}
	switch {
	case c.Run != nil && (len(c.Run) == 0 || c.Run[0] == ""):
		v.errorf(field+".run", "needs a program: an argv such as [go, test, ./...]")
	case c.Sh != "" && strings.TrimSpace(c.Sh) == "":
		v.errorf(field+".sh", "empty script")
	case c.Manual != "" && strings.TrimSpace(c.Manual) == "":
		v.errorf(field+".manual", "empty checklist item")
	}
	if c.Manual != "" && (c.Dir != "" || c.Timeout != 0) {
		v.errorf(field, "a manual check never runs; dir and timeout do not apply")
		return
	}
	if c.Dir != "" {
		v.relPath(field+".dir", c.Dir)
	}
	v.duration(field+".timeout", c.Timeout, MaxTaskTimeout)
}

// goTest checks a gotest check's options; nil is fine.
func (v *validator) goTest(field string, g *GoTestCheck) {
	if g == nil {
		return
	}
	for i, p := range g.Packages {
		if strings.TrimSpace(p) == "" || strings.HasPrefix(p, "-") {
			v.errorf(fmt.Sprintf("%s.packages[%d]", field, i), "%s is not a package pattern such as ./...; flags go in flags", quote.String(p))
		}
	}
	for i, f := range g.Flags {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch {
		case !strings.HasPrefix(f, "-") || name == "":
			v.errorf(fmt.Sprintf("%s.flags[%d]", field, i), "%s is not a flag; packages go in packages", quote.String(f))
		case name == "json":
			v.errorf(fmt.Sprintf("%s.flags[%d]", field, i), "-json is always passed")
		case name == "c" || name == "o" || name == "exec" || name == "list":
			v.errorf(fmt.Sprintf("%s.flags[%d]", field, i), "%s does not run tests", quote.String(f))
		}
	}
	if m := g.MinTests; m < 0 || m > MaxMinTests || (m == 0 && v.plan.src.Written(field+".min_tests")) {
		v.errorf(field+".min_tests", "%d is out of range 1..%d", m, MaxMinTests)
	}
}

// cmakeName matches preset names, configurations and compiler IDs.
var cmakeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$`) })

// cmake checks a cmake check's options; nil is fine.
func (v *validator) cmake(field string, c *CMakeCheck) {
	if c == nil {
		return
	}
	written := func(name string) bool { return v.plan.src.Written(field + "." + name) }
	for _, f := range []struct{ name, value, what string }{
		{"preset", c.Preset, "a preset name"},
		{"config", c.Config, "a configuration such as Release"},
		{"compiler_id", c.CompilerID, "a compiler ID such as GNU, Clang or MSVC"},
	} {
		if (f.value != "" || written(f.name)) && !cmakeName().MatchString(f.value) {
			v.errorf(field+"."+f.name, "%s is not %s", quote.String(f.value), f.what)
		}
	}
	switch {
	case c.BuildDir != "" && c.Preset != "":
		v.errorf(field+".build_dir", "with a preset, the preset's binaryDir is the build directory")
	case c.BuildDir != "" || written("build_dir"):
		v.relPath(field+".build_dir", c.BuildDir)
	}
}

// cycles reports each dependency cycle once, spelled out: "T1 -> T3 -> T1"
// reads "T1 depends on T3, which depends on T1". Only the first task of each
// ID takes part; duplicates are reported elsewhere.
func (v *validator) cycles(taskField map[string]string) {
	deps := map[string][]string{}
	var order []string
	for i, ph := range v.plan.Phases {
		for j, t := range ph.Tasks {
			if taskField[t.ID] != fmt.Sprintf("phases[%d].tasks[%d]", i, j) {
				continue
			}
			order = append(order, t.ID)
			var ds []string
			for _, d := range t.DependsOn {
				if _, known := taskField[d]; known && d != t.ID && !slices.Contains(ds, d) {
					ds = append(ds, d)
				}
			}
			deps[t.ID] = ds
		}
	}
	const (
		unvisited = iota
		onStack
		finished
	)
	state := map[string]int{}
	var stack []string
	var visit func(id string)
	visit = func(id string) {
		state[id] = onStack
		stack = append(stack, id)
		for _, dep := range deps[id] {
			switch state[dep] {
			case unvisited:
				visit(dep)
			case onStack:
				start := slices.Index(stack, dep)
				cycle := append(slices.Clone(stack[start:]), dep)
				for i, id := range cycle {
					cycle[i] = quote.Bare(id)
				}
				v.add(taskField[dep]+".depends_on", false, ErrCycle, "dependency cycle: %s", strings.Join(cycle, " -> "))
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = finished
	}
	for _, id := range order {
		if state[id] == unvisited {
			visit(id)
		}
	}
}
