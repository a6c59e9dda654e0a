package task

import "time"

// Plan is a whole implementation plan: phases of tasks, run in order, with the
// budgets and components that carry them out. The YAML and JSON forms share one
// schema; field names in comments are the plan's keys.
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
	// Guardrails holds the plan's guardrail settings.
	Guardrails Guardrails `json:"guardrails,omitzero"`
	// Phases run in order; a milestone gate separates each from the next.
	Phases []Phase `json:"phases,omitempty"`

	src *source // where a parsed plan came from; nil for a plan built in code
}

// Phase is a group of tasks ending at a milestone.
type Phase struct {
	ID        string     `json:"id,omitempty"`
	Title     string     `json:"title,omitempty"`
	Milestone *Milestone `json:"milestone,omitempty"`
	Tasks     []Task     `json:"tasks,omitempty"`
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
}

// Status is a task's progress as a plan records it.
type Status string

// The statuses a plan may record.
const (
	StatusTodo  Status = "todo"
	StatusDoing Status = "doing"
	StatusDone  Status = "done"
)

// Check is one acceptance criterion. Exactly one of Run, Sh or Manual is set.
type Check struct {
	// Run is an argv run without a shell (key "run").
	Run []string `json:"run,omitempty"`
	// Sh is a script for "sh -c", an explicit opt-in to a shell (key "sh").
	Sh string `json:"sh,omitempty"`
	// Manual is an item a person checks; it never runs (key "manual").
	Manual string `json:"manual,omitempty"`
	// Dir is the working directory, relative to the working tree's root.
	Dir string `json:"dir,omitempty"`
	// Timeout bounds the check; zero means the verifier's default.
	Timeout Duration `json:"timeout,omitzero"`
}

// Kind names the kind of the check: "run", "sh", "manual", or "" when none is set.
func (c Check) Kind() string {
	switch {
	case len(c.Run) > 0:
		return "run"
	case c.Sh != "":
		return "sh"
	case c.Manual != "":
		return "manual"
	}
	return ""
}

// Component configures an executor, debugger or reviewer.
type Component struct {
	// Kind is "command", "plugin", "codex" or "claude" ("codex" and "claude"
	// only for an executor).
	Kind string `json:"kind,omitempty"`
	// Argv is the program and its arguments, for kind "command". Relative
	// paths resolve from the working tree's root.
	Argv []string `json:"argv,omitempty"`
	// Env adds variables to the component's environment.
	Env map[string]string `json:"env,omitempty"`
	// Plugin names a plugin from the plugin manifest, for kind "plugin".
	Plugin string `json:"plugin,omitempty"`
	// Model selects the model of an agent CLI; empty means the CLI's default.
	Model string `json:"model,omitempty"`
}

// The component kinds.
const (
	KindCommand = "command"
	KindPlugin  = "plugin"
	KindCodex   = "codex"
	KindClaude  = "claude"
)

// Guardrails holds the plan's guardrail settings.
type Guardrails struct {
	// Packages lists, per ecosystem ("go", "npm", "pypi", ...), the packages an
	// agent may install. Anything else is a hard stop.
	Packages map[string][]string `json:"packages,omitempty"`
	// Protected lists paths no action may delete, move or overwrite, in
	// addition to the state directory .harnish/.
	Protected []string `json:"protected,omitempty"`
}

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
