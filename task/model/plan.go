package model

import (
	"cmp"
	"slices"
	"time"

	"github.com/harnish/harnish/task/internal/source"
)

// Plan is a whole implementation plan: phases of tasks, run in order, with the
// budgets and components that carry them out. The YAML and JSON forms that
// package task reads share one schema; field names in comments are the
// plan's keys.
type Plan struct {
	// Version is the plan schema version (key "version"), a semver whose major
	// must be [SchemaMajor]. Written as 1, "1" or "1.2".
	Version string `json:"version,omitempty"`
	// Name names the plan (key "name"); it is used in log paths, so it is
	// restricted like an ID.
	Name string `json:"name,omitempty"`
	// Budget holds the plan-wide limits; zero fields take the defaults of [Budget].
	Budget Budget `json:"budget,omitzero"`
	// Executor carries out each task. Nil means the host chooses.
	Executor *Component `json:"executor,omitempty"`
	// Debugger investigates a failure that repeated. Nil means no debugger: a
	// two-strike failure is treated as "no root cause found".
	Debugger *Component `json:"debugger,omitempty"`
	// Reviewer reviews each change whose checks passed. Nil means no review.
	Reviewer *Component `json:"reviewer,omitempty"`
	// Advisor is consulted at the points it names, when a task struggles
	// or is risky. Nil means no advisor.
	Advisor *Advisor `json:"advisor,omitempty"`
	// Guardrails holds the plan's guardrail settings.
	Guardrails Guardrails `json:"guardrails,omitzero"`
	// Parallel is how many tasks of a phase may run at once (key
	// "parallel"), when their dependencies allow it; a phase's own Parallel
	// overrides it. Zero means one: tasks run one after another.
	Parallel int `json:"parallel,omitempty"`
	// Context names the project's context files every prompt carries (key
	// "context"): paths or globs relative to the working tree, such as
	// AGENTS.md or docs/*.md, read at each attempt.
	Context []string `json:"context,omitempty"`
	// Stuck sets when an attempt counts as stuck (key "stuck"); zero
	// fields take the defaults of [Stuck].
	Stuck Stuck `json:"stuck,omitzero"`
	// Pacing is a wait before each task starts, but the run's first (key
	// "pacing"): for runs that wait on CI or a rate limit. Zero: none.
	Pacing Duration `json:"pacing,omitempty"`
	// Phases run in order; a milestone gate separates each from the next.
	Phases []Phase `json:"phases,omitempty"`

	src *source.File // where a parsed plan came from; nil for a plan built in code
}

// Package task parses plans, and attaches to each where its fields were, so
// that Validate can say where a problem is.
func init() {
	source.Attach = func(plan any, f *source.File) { plan.(*Plan).src = f }
}

// Phase is a group of tasks ending at a milestone.
type Phase struct {
	ID    string `json:"id,omitempty"`
	Title string `json:"title,omitempty"`
	// Parallel is how many of the phase's tasks may run at once; zero means
	// the plan's [Plan.Parallel]. depends_on still orders them, and the
	// milestone gate waits for all of them.
	Parallel  int        `json:"parallel,omitempty"`
	Milestone *Milestone `json:"milestone,omitempty"`
	Tasks     []Task     `json:"tasks,omitempty"`
}

// MaxParallel bounds [Plan.Parallel] and [Phase.Parallel].
const MaxParallel = 64

// Parallelism returns how many of the phase's tasks may run at once under
// plan p: the phase's Parallel, else the plan's, else one.
func (p *Plan) Parallelism(ph *Phase) int {
	switch {
	case ph.Parallel > 0:
		return ph.Parallel
	case p.Parallel > 0:
		return p.Parallel
	}
	return 1
}

// Milestone configures the gate at the end of a phase.
type Milestone struct {
	// Gate says whether the loop stops for approval after the phase. Nil means
	// true for every phase but the last, whose end completes the run.
	Gate *bool `json:"gate,omitempty"`
	// Manual lists what a person checks by hand before approving.
	Manual []string `json:"manual,omitempty"`
}

// Gated reports whether the boundary after phase i of n phases is a gate.
func (m *Milestone) Gated(i, n int) bool {
	if i >= n-1 {
		return false
	}
	return m == nil || m.Gate == nil || *m.Gate
}

// Task is one unit of work with acceptance criteria.
type Task struct {
	ID        string `json:"id,omitempty"`
	Title     string `json:"title,omitempty"`
	Objective string `json:"objective,omitempty"`
	// Files is the declared scope: the paths the task is expected to change,
	// relative to the working tree's root.
	Files []string `json:"files,omitempty"`
	// DependsOn names tasks (of this phase or an earlier one) that must be done
	// before this one starts.
	DependsOn []string `json:"depends_on,omitempty"`
	// Acceptance lists the checks that decide the task is done. A task without
	// any never starts: the loop escalates it.
	Acceptance []Check  `json:"acceptance,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	// Budget overrides the plan's budget field by field; zero fields inherit.
	Budget Budget `json:"budget,omitzero"`
	// Status is the task's state when the plan was written or imported; the
	// empty string means [StatusTodo]. A run's own record takes precedence.
	Status Status `json:"status,omitempty"`
	// Risk is "high" for a task the advisor is consulted about before its
	// first attempt (key "risk"); "" or "low" otherwise.
	Risk string `json:"risk,omitempty"`
}

// The task risks.
const (
	RiskLow  = "low"
	RiskHigh = "high"
)

// Status is a task's progress as a plan records it.
type Status string

// The statuses a plan may record.
const (
	StatusTodo  Status = "todo"
	StatusDoing Status = "doing"
	StatusDone  Status = "done"
)

// Check is one acceptance criterion. Exactly one of Run, Sh, Manual, GoTest,
// CMake or Plugin is set.
type Check struct {
	// Run is an argv run without a shell (key "run").
	Run []string `json:"run,omitempty"`
	// Sh is a script for "sh -c", an explicit opt-in to a shell (key "sh").
	Sh string `json:"sh,omitempty"`
	// Manual is an item a person checks; it never runs (key "manual").
	Manual string `json:"manual,omitempty"`
	// GoTest runs go test -json and counts the tests (key "gotest").
	GoTest *GoTestCheck `json:"gotest,omitempty"`
	// CMake configures and builds a CMake project and runs its CTest tests
	// (key "cmake").
	CMake *CMakeCheck `json:"cmake,omitempty"`
	// Plugin names a verifier plugin of the plugin manifest that checks the
	// working tree its own way (key "plugin"), such as msvc, which builds
	// and tests an MSBuild or CMake project with the MSVC toolchain.
	Plugin string `json:"plugin,omitempty"`
	// Dir is the working directory, relative to the working tree's root.
	Dir string `json:"dir,omitempty"`
	// Timeout bounds the check; zero means the verifier's default.
	Timeout Duration `json:"timeout,omitzero"`
}

// Kind names the kind of the check: "run", "sh", "manual", "gotest",
// "cmake", "plugin", or "" when none is set.
func (c Check) Kind() string {
	switch {
	case len(c.Run) > 0:
		return "run"
	case c.Sh != "":
		return "sh"
	case c.Manual != "":
		return "manual"
	case c.GoTest != nil:
		return "gotest"
	case c.CMake != nil:
		return "cmake"
	case c.Plugin != "":
		return "plugin"
	}
	return ""
}

// GoTestCheck configures a check that runs "go test -json" in the check's
// directory. It passes when go test exits 0, no test failed and at least
// MinTests tests ran: zero tests never pass.
type GoTestCheck struct {
	// Packages are the package patterns to test (key "packages"). Empty
	// means ./... .
	Packages []string `json:"packages,omitempty"`
	// Flags are passed to go test before the packages (key "flags"), e.g.
	// [-race, -count=1]. -json is always added.
	Flags []string `json:"flags,omitempty"`
	// MinTests is the fewest tests (subtests included) that must run (key
	// "min_tests"), 1..MaxMinTests. Zero means 1.
	MinTests int `json:"min_tests,omitempty"`
}

// MaxMinTests bounds [GoTestCheck.MinTests].
const MaxMinTests = 1_000_000

// CMakeCheck configures a check that configures a CMake project (the check's
// directory is its source directory), builds it, requires CTest to list at
// least one test and runs them.
type CMakeCheck struct {
	// Preset names a configure preset of the project's CMakePresets.json
	// (key "preset"); the build and the tests use the build and test
	// presets of the same name. Empty means no presets.
	Preset string `json:"preset,omitempty"`
	// BuildDir is the build tree, relative to the source directory (key
	// "build_dir"); only without a preset, whose binaryDir decides. Empty
	// means "build".
	BuildDir string `json:"build_dir,omitempty"`
	// Config is the configuration to build and test with a multi-config
	// generator, e.g. Release (key "config"). Empty means the generator's
	// default.
	Config string `json:"config,omitempty"`
	// CompilerID, when set, is the CMAKE_CXX_COMPILER_ID the configured
	// build tree must have, e.g. GNU, Clang or MSVC (key "compiler_id").
	CompilerID string `json:"compiler_id,omitempty"`
}

// Component configures an executor, debugger or reviewer.
type Component struct {
	// Kind is "command", "plugin", "codex", "claude" or "acp" ("codex",
	// "claude" and "acp" only for an executor).
	Kind string `json:"kind,omitempty"`
	// Argv is the program and its arguments, for kind "command"; for kind
	// "acp", the command of the agent (with Agent: in place of its
	// program). Relative paths resolve from the working tree's root.
	Argv []string `json:"argv,omitempty"`
	// Agent names the agent of kind "acp" whose profile harnish applies:
	// "gemini", "claude" or "codex". Empty with Argv: any other ACP agent.
	Agent string `json:"agent,omitempty"`
	// Env adds variables to the component's environment.
	Env map[string]string `json:"env,omitempty"`
	// Plugin names a plugin from the plugin manifest, for kind "plugin".
	Plugin string `json:"plugin,omitempty"`
	// Model selects the model of an agent CLI; empty means the CLI's default.
	Model string `json:"model,omitempty"`
	// Sandbox is Codex's sandbox for the commands the model runs (key
	// "sandbox", kind codex only): workspace-write (the default: the agent
	// writes in the working tree only) or danger-full-access (for a host
	// that is a sandbox itself).
	Sandbox string `json:"sandbox,omitempty"`
	// PermissionMode is Claude Code's --permission-mode (key
	// "permission_mode", kind claude only): default, acceptEdits, plan or
	// bypassPermissions.
	PermissionMode string `json:"permission_mode,omitempty"`
	// AllowedTools are the tools Claude Code may use without asking (key
	// "allowed_tools", kind claude only), such as Bash(go test:*) or Edit;
	// absent: harnish's defaults.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Args are more arguments for the agent CLI (key "args", kinds codex,
	// claude and acp), put before the ones harnish sets; none may turn its
	// guards off (--dangerously-…).
	Args []string `json:"args,omitempty"`
}

// The Codex sandboxes and Claude Code permission modes a plan may name.
var (
	CodexSandboxes        = []string{"workspace-write", "danger-full-access"}
	ClaudePermissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions"}
)

// Advisor configures the advisor: its program (kind command or plugin, as
// a debugger's) and the points at which the loop consults it.
type Advisor struct {
	Kind   string            `json:"kind,omitempty"`
	Argv   []string          `json:"argv,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
	Plugin string            `json:"plugin,omitempty"`
	// When lists the points (key "when"): "high-risk", before the first
	// attempt of a task with risk high; "repeat", after the second failure
	// with the same cause; "plateau", just before a review plateau would
	// escalate. Empty means all three.
	When []string `json:"when,omitempty"`
	// Repeat says how the advisor stands to the debugger at a repeated
	// failure (key "repeat"): "alongside" (the default), asked first and
	// its advice given with the debugger's fix; or "instead", in the
	// debugger's place, its PLAN or CORRECTION buying the one more attempt a
	// root cause buys.
	Repeat string `json:"repeat,omitempty"`
}

// The advisor's points and its stances at a repeated failure.
const (
	AdviseAtHighRisk = "high-risk"
	AdviseAtRepeat   = "repeat"
	AdviseAtPlateau  = "plateau"
	RepeatAlongside  = "alongside"
	RepeatInstead    = "instead"
)

// Consults reports whether the advisor is asked at point.
func (a *Advisor) Consults(point string) bool {
	if a == nil {
		return false
	}
	return len(a.When) == 0 || slices.Contains(a.When, point)
}

// Instead reports whether the advisor takes the debugger's place.
func (a *Advisor) Instead() bool { return a != nil && a.Repeat == RepeatInstead }

// Component returns the advisor's program as a component.
func (a *Advisor) Component() *Component {
	return &Component{Kind: a.Kind, Argv: a.Argv, Env: a.Env, Plugin: a.Plugin}
}

// Stuck sets the thresholds of the stuck rules: an attempt that goes round
// in circles fails with its own kind, counts as an attempt, and the next
// prompt says what was repeated. Zero fields take the defaults.
type Stuck struct {
	// Off turns the rules off (key "off").
	Off bool `json:"off,omitempty"`
	// NoProgress is how many attempts in a row that failed and changed
	// nothing in the tree are stuck (key "no_progress"); default 2.
	NoProgress int `json:"no_progress,omitempty"`
	// Alternation is how many failed attempts in a row whose fingerprints
	// alternate between two are stuck (key "alternation"); default 4.
	Alternation int `json:"alternation,omitempty"`
	// RepeatedCommand is how many times in a row the agent may run the same
	// command with the same result before its attempt ends stuck (key
	// "repeated_command"); default 5. Commands that wait (sleep, watch,
	// wait, CI watchers) are never counted: a long wait is not stuck.
	RepeatedCommand int `json:"repeated_command,omitempty"`
	// SilentTurns is how many agent turns in a row without a tool call end
	// its attempt stuck (key "silent_turns"); default 4.
	SilentTurns int `json:"silent_turns,omitempty"`
}

// The defaults of [Stuck], and the bound of its thresholds.
const (
	DefaultNoProgress      = 2
	DefaultAlternation     = 4
	DefaultRepeatedCommand = 5
	DefaultSilentTurns     = 4
	MaxStuckThreshold      = 1000
)

// Resolve returns s with its zero thresholds set to the defaults.
func (s Stuck) Resolve() Stuck {
	s.NoProgress = cmp.Or(s.NoProgress, DefaultNoProgress)
	s.Alternation = cmp.Or(s.Alternation, DefaultAlternation)
	s.RepeatedCommand = cmp.Or(s.RepeatedCommand, DefaultRepeatedCommand)
	s.SilentTurns = cmp.Or(s.SilentTurns, DefaultSilentTurns)
	return s
}

// The component kinds.
const (
	KindCommand = "command"
	KindPlugin  = "plugin"
	KindCodex   = "codex"
	KindClaude  = "claude"
	KindACP     = "acp"
)

// Guardrails holds the plan's guardrail settings.
type Guardrails struct {
	// Packages lists, per ecosystem ("go", "npm", "pypi", ...), the packages an
	// agent may install. Anything else is a hard stop.
	Packages map[string][]string `json:"packages,omitempty"`
	// Protected lists paths no action may delete, move or overwrite, in
	// addition to the state directory .harnish/.
	Protected []string `json:"protected,omitempty"`
	// MaxChangedLines is the most lines (added plus removed) one file may
	// change before a soft warning (key "max_changed_lines"), 1..MaxChangedLinesLimit.
	// Zero means the default, 100.
	MaxChangedLines int `json:"max_changed_lines,omitempty"`
	// TDD configures the test-first rule (key "tdd"). Nil means level soft
	// with the default patterns, roots and exemptions.
	TDD *TDD `json:"tdd,omitempty"`
}

// MaxChangedLinesLimit bounds [Guardrails.MaxChangedLines].
const MaxChangedLinesLimit = 1_000_000

// TDD configures the test-first rule: a changed product file needs its test
// file, in the same change or already in the working tree.
type TDD struct {
	// Level is TDDOff, TDDSoft or TDDHard. Empty means TDDSoft.
	Level string `json:"level,omitempty"`
	// Patterns maps a source extension (".go") to the names its test file may
	// have, "{stem}" standing for the file's name without its extension
	// ("{stem}_test.go"). An extension listed here replaces its defaults;
	// an empty list makes files of that extension need no test.
	Patterns map[string][]string `json:"patterns,omitempty"`
	// Roots replaces the default test directories (test, tests, __tests__),
	// beside a file or at the top of a tree mirroring the source.
	Roots []string `json:"roots,omitempty"`
	// Exempt adds patterns of files that need no test to the defaults (entry
	// points, build output, vendored and generated code): "dir/" names a
	// directory anywhere, a pattern with "/" is a glob on the whole path, any
	// other a glob on the file's name.
	Exempt []string `json:"exempt,omitempty"`
}

// The levels of the test-first rule.
const (
	TDDOff  = "off"
	TDDSoft = "soft"
	TDDHard = "hard"
)

// Budget limits a task or a run. A zero field means "inherit" on a task and
// "default" on a plan; [Budget.Resolve] fills the defaults.
type Budget struct {
	// Attempts per task. Default 3.
	Attempts int `json:"attempts,omitempty"`
	// TaskTimeout is the wall time a task may take over all its attempts.
	// Default 30m.
	TaskTimeout Duration `json:"task_timeout,omitzero"`
	// Cycles caps the attempts of the whole run. Default 100.
	Cycles int `json:"cycles,omitempty"`
	// RunTimeout caps the run's wall time. Zero means no cap.
	RunTimeout Duration `json:"run_timeout,omitzero"`
	// Tokens caps the tokens the executor reports over the run. Zero means no cap.
	Tokens int64 `json:"tokens,omitempty"`
	// CostUSD caps the cost the executor reports over the run. Zero means no cap.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Budget defaults and bounds.
const (
	DefaultAttempts    = 3
	DefaultTaskTimeout = 30 * time.Minute
	DefaultCycles      = 100

	MaxAttempts    = 100
	MaxCycles      = 100_000
	MinDuration    = time.Second
	MaxTaskTimeout = 24 * time.Hour
	MaxRunTimeout  = 30 * 24 * time.Hour
)

// Over returns b with every non-zero field of override taking precedence.
func (b Budget) Over(override Budget) Budget {
	if override.Attempts != 0 {
		b.Attempts = override.Attempts
	}
	if override.TaskTimeout != 0 {
		b.TaskTimeout = override.TaskTimeout
	}
	if override.Cycles != 0 {
		b.Cycles = override.Cycles
	}
	if override.RunTimeout != 0 {
		b.RunTimeout = override.RunTimeout
	}
	if override.Tokens != 0 {
		b.Tokens = override.Tokens
	}
	if override.CostUSD != 0 {
		b.CostUSD = override.CostUSD
	}
	return b
}

// Resolve returns b with the defaults filled in for attempts, task timeout and cycles.
func (b Budget) Resolve() Budget {
	return Budget{
		Attempts:    DefaultAttempts,
		TaskTimeout: Duration(DefaultTaskTimeout),
		Cycles:      DefaultCycles,
	}.Over(b)
}

// TaskBudget returns the effective budget of t: the defaults, then the plan's
// budget, then the task's own.
func (p *Plan) TaskBudget(t *Task) Budget {
	return p.Budget.Resolve().Over(t.Budget)
}

// Tasks returns every task of the plan in order, with the phase that holds it.
func (p *Plan) Tasks() []PhaseTask {
	var out []PhaseTask
	for i := range p.Phases {
		for j := range p.Phases[i].Tasks {
			out = append(out, PhaseTask{Phase: &p.Phases[i], Task: &p.Phases[i].Tasks[j]})
		}
	}
	return out
}

// PhaseTask is a task with the phase that holds it.
type PhaseTask struct {
	Phase *Phase
	Task  *Task
}
