// Package temporal runs harnish plans as Temporal workflows: the same
// decision core ([policy.Policy]) that drives the harnish CLI drives a
// durable workflow, so a plan behaves the same on a laptop and on a fleet
// of workers that come and go.
//
// The workflow ([Run], registered as [WorkflowName]) keeps the run's state
// ([policy.RunState]) in its history: every transition the policy makes is
// applied in workflow code, with time from the workflow's clock and no I/O.
// Each step is taken as activities ([Activities]) on the workers that have
// the working tree: an attempt is one Execute (the agent between two
// snapshots of the tree, then the guardrail's audit of the change), then
// Verify and, with a reviewer, Review; a two-strike failure is a Debug. An
// attempt is counted by the policy, never by Temporal: Execute runs at
// most once (its retry policy allows one try), and an Execute whose worker
// was lost (its heartbeat stopped) is left unreported, so the policy counts
// it as cut off, exactly as the CLI counts an attempt a crash cut off.
// Verify, Review and Debug count no attempt, and Temporal may retry them on
// another worker.
//
// A client reaches a running workflow with the query [QueryStatus] (the
// document "harnish status --json" prints), [QueryChecklist] (the milestone
// gate it waits at, with its manual checklist) and the signal
// [SignalApprove]; cancelling the workflow ends the run cancelled. A run
// continues as new when its history grows long, carrying its state; what
// activities return is bounded, so the history grows by a bounded amount
// per attempt.
//
// With RunInput.Records, the working tree keeps the run's record as the
// CLI keeps it (the state in .harnish, audit logs, handoffs, reports, the
// experience store), written after each of the workflow's commits by the
// Record activity with the loop's own code ([loop.Loop.Follow]); with
// CommitTasks, each task done is committed on the run's branch with the
// CLI's message and trailers, and tasks side by side work in forks whose
// changes the merge queue (the Integrate activity) brings onto the branch.
// Both are idempotent: a worker that dies at any point leaves neither a
// commit made twice nor one lost.
//
// The command harnish-temporal (cmd/harnish-temporal) is the host: a
// worker, and run, approve and status against a server; "harnish run
// --temporal ADDR" and its kin run it. The module
// devserver is a single-node Temporal server for development and tests.
package temporal
