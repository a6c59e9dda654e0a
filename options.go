package harnish

import (
	"log/slog"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnish/harnish/loop"
)

// Options configure [Open] and [Components]. The zero value is ready to use:
// it runs the plan in the current directory with its own components, keeps
// the state, records and experience under .harnish/, commits nothing and
// waits at every milestone for a person.
type Options struct {
	// Dir is the working tree's root: where the executor works and the
	// checks run. The run's state, its records (handoffs, audit logs,
	// reports) and its experience store go to Dir/.harnish (loop.StateDir),
	// and the plugin manifest and the engine's asset history are read from
	// Dir. A relative path resolves from the current directory. Empty: the
	// current directory.
	Dir string

	// Gate decides at milestones: loop.AutoApprove, a loop.TerminalGate, or the
	// host's own. Nil: every gate defers, and the run ends awaiting approval
	// at its first milestone (Runner.Resume with approve goes past it).
	Gate loop.Gate
	// Observer receives the loop's events. Nil: none.
	Observer loop.Observer
	// Logger receives the loop's warnings (a record or a commit that failed)
	// and its events as log records, what Open did at Info (processes ended,
	// assets imported), and the plugins' output. Nil: silence.
	Logger *slog.Logger
	// TracerProvider receives a span of the run, each phase, task, attempt,
	// check, review, debugger call and milestone gate, and MeterProvider the
	// run's metrics (see package telemetry for both); a Run or Resume whose
	// ctx holds a span makes the run's span its child, and each agent gets
	// its attempt's span as TRACEPARENT. harnish sets no global provider.
	// Nil, or a no-op provider: none, at no cost. [Components] ignores both:
	// a host that drives its own loop instruments it with telemetry.New.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider

	// RunID names a new run; a run the state already holds keeps its own.
	// Empty: one made from the time of Open.
	RunID string
	// CommitTasks commits each task done, and the run's records at its end
	// (see loop.Config.CommitTasks). It needs Dir to be in a git working
	// tree, and is ignored elsewhere. A host that sets it should make
	// sure the tree holds no change of the user's: the first task's commit
	// would sweep it in. Default false: nothing is committed.
	CommitTasks bool
	// Rollback undoes a failed attempt's changes before the next attempt
	// (see loop.Config.Rollback); outside git, from snapshots of the
	// directory (loop.DirWorkspace). Default false: the next attempt starts from the
	// tree the failed one left.
	Rollback bool
	// Branch is the git branch a new run works on, created at HEAD (see
	// loop.Config.Branch). It needs a git working tree, and is ignored
	// elsewhere. Empty: the run works on whatever is checked out.
	Branch string

	// PluginManifest is the manifest that the plan's components of kind
	// plugin come from. It is read only when the plan names a plugin, and
	// only the plugins the plan names are started. Empty:
	// Dir/harnish-plugins.yaml (guardrail.PluginManifest), which the
	// guardrails keep the agent from changing; a manifest elsewhere in the
	// tree has no such protection.
	PluginManifest string
	// HookProgram is the program the hooks of an agent executor (kinds
	// codex and claude) run before every tool call and at the agent's stop:
	// harnish, harnish-hook, or a program of the host's that answers
	// "hook pre-tool-use" and "hook stop" the same way. Empty: "harnish"
	// from PATH.
	HookProgram string
	// PlanFile is the plan file the agent executors' hooks judge by, passed
	// to them as --plan; it should hold the plan given to Open. Empty: the
	// hooks look for the plan in the working tree (harnish.yaml and the
	// like, or the plan a "harnish run" keeps in .harnish/).
	PlanFile string

	// SessionNotes is asked, once when the run completes, whether and where
	// to save the completion summary in the working tree (see
	// loop.SessionNotes; loop.SaveSessionNotes saves it as
	// docs/session-DATE.md without asking). Nil: the summary stays in
	// Dir/.harnish/summary.md alone.
	SessionNotes loop.SessionNotes
	// NoTranscripts keeps no transcripts. Default false: each attempt's
	// transcript (the agent's raw stream, its exit code and stderr) is kept
	// as Dir/.harnish/transcripts/<task>-<attempt>.jsonl and named in the
	// task's audit log (see loop.Config.TranscriptDir).
	NoTranscripts bool

	// NoAssets runs without an experience store. Default false: Open opens
	// Dir/.harnish/harnish-assets.jsonl, the store the harnish engine keeps
	// too (or Dir/.harnish/assets.jsonl, harnish's older store, when only
	// that exists; see asset.StorePath); the loop queries it before each
	// attempt and records to it after a task. A new store first imports
	// Dir/harnish-assets.jsonl, when the tree has one.
	NoAssets bool
	// Unmarked leaves the process's environment alone and ends no process,
	// for a host that marks its runs' processes its own way. Default false:
	// Open ends every process that a stopped host of the same run left
	// behind (an agent still editing the tree must not work beside the next
	// attempt), then marks this process, and so every process the run
	// starts, with HARNISH_RUN=<state directory>#<run ID>; Close takes the
	// mark away. One process holds one mark: while another Runner of this
	// process holds it, Open fails unless Unmarked is set. The marked
	// Runner also answers its agents' pre-tool-use hooks over a socket in
	// Dir/.harnish/hook/, named to them by HARNISH_HOOK_SOCKET; an Unmarked
	// one leaves each hook to judge its call itself, with the same answers.
	Unmarked bool
}
