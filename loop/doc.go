// Package loop drives a plan to a typed end: each task is executed, checked
// by verifiers, held by guardrails and a reviewer, retried within budgets,
// escalated by rule, and paused at milestone gates. It is the only package
// that knows all the others; they meet here through their interfaces.
//
// The package holds:
//
//   - [Loop]: the driver. [New] composes an executor, a verifier, and
//     optionally a reviewer, a debugger, a guardrail (which judges every
//     attempt's diff), a gate and an observer with a [Store]; [Loop.Run]
//     and [Loop.Resume] carry the policy's decisions out, commit every
//     transition before acting on it, recover panics in components as typed
//     errors, report events, and write handoffs, audit logs, escalation
//     reports and a completion summary (Config.RecordsDir).
//   - The decision core is its own package, [policy]: the rules, the run
//     state and its transitions, steps and outcomes, pure and I/O-free. The
//     loop is one host of it ([policy.Host]); a Temporal workflow and a
//     user's unit test are others.
//   - [Gate]: the milestone approval at a phase boundary, with
//     [AutoApprove], a [TerminalGate] and a [ChannelGate] for embedding hosts.
//   - [Event] and [Observer]: the run's event stream, with the stable type
//     names the CLI prints in --json mode.
//   - [Store]: the durable record of a run, a [policy.RunState] changed only
//     by applying [policy.Transition]s, so a journal replays to exactly what
//     the loop saw, and resuming after any crash starts where the run stood.
//     Side effects (a task's commit, the records') are driven by committed
//     transitions and redone after a crash without doubling.
//
// # Durable state
//
// [OpenDir] is the on-disk [Store] under .harnish/ in the working tree:
//
//	.harnish/state.json          snapshot: the whole state, checksummed (the file of record)
//	.harnish/journal.jsonl       transitions after the snapshot, one checksummed line each
//	.harnish/state.json.prev     the previous snapshot, and
//	.harnish/journal.prev.jsonl  the journal it was folded from
//	.harnish/lock                held while a loop has the directory open
//
// [DirStore.Commit] appends and fsyncs before it returns: a committed
// transition survives a crash. It costs one append whatever the plan's size;
// when the journal has grown as large as the snapshot, the store writes a new
// snapshot (temporary file, fsync, rename, directory fsync), so snapshots add
// O(1) per transition, amortized. A state that does not decode, fails its
// checksum, has a gap or comes from a newer harnish is a [*StateError] naming
// the file and the problem; nothing is overwritten, and the previous
// generation is offered.
package loop
