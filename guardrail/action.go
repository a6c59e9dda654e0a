package guardrail

// Action is something an agent is about to do, or did. Kind says which fields
// are set; the others are empty.
type Action struct {
	Kind ActionKind `json:"kind"`
	// Command is the command line of a [KindCommand] action, as the agent
	// wrote it for its shell.
	Command string `json:"command,omitempty"`
	// Shell is the shell that runs Command. The zero value means [ShellBash].
	Shell Shell `json:"shell,omitempty"`
	// Path is the file of a [KindEdit] action, relative to the working tree's
	// root and slash-separated.
	Path string `json:"path,omitempty"`
	// Diff is the change to Path as a unified diff; empty when not known (a
	// hook that sees only the path).
	Diff string `json:"diff,omitempty"`
	// Ecosystem is the package ecosystem of a [KindInstall] action, as the
	// plan's guardrails.packages names it: "go", "npm", "pypi", ...
	Ecosystem string `json:"ecosystem,omitempty"`
	// Package is the package a [KindInstall] action installs, with any version
	// as the ecosystem writes it.
	Package string `json:"package,omitempty"`
	// Task is the ID of the task the action belongs to; empty outside a task.
	// Rules use it to judge against the task's declared scope.
	Task string `json:"task,omitempty"`
}

// ActionKind says what an [Action] is.
type ActionKind string

// The kinds of action.
const (
	KindCommand ActionKind = "command"
	KindEdit    ActionKind = "edit"
	KindInstall ActionKind = "install"
)

// Shell is the shell a command is written for; quoting, separators and
// built-ins differ, and rules parse the command accordingly.
type Shell string

// The shells.
const (
	ShellBash       Shell = "bash"
	ShellPowerShell Shell = "powershell"
	ShellCmd        Shell = "cmd"
)
