// Package telemetry reports a loop's run as OpenTelemetry traces and
// metrics, to the TracerProvider and MeterProvider the host gives it. It
// sets no global and reads no environment: the host decides where the
// telemetry goes (the harnish CLI builds OTLP exporters from the standard
// OTEL_* variables; see harnish.Options). Off is the default, and costs
// nothing: [New] returns nil for a config with no providers (or no-op ones),
// and a nil [*Telemetry] hands back the loop's configuration unchanged.
//
// [Telemetry.Instrument] prepares one drive of a loop (a Run or a Resume).
// The loop itself knows nothing of OpenTelemetry: an observer of its event
// stream makes the spans of the run, its phases, tasks, attempts and
// milestone gates, and wrappers around the executor, verifier, reviewer and
// debugger find the span of their attempt (or, for the debugger, their
// task) by the task's ID and the attempt's number, and put theirs under it:
//
//	harnish.run           harnish.run.id, harnish.plan.name, harnish.run.outcome
//	  harnish.phase       harnish.phase.id
//	    harnish.task      harnish.task.id, harnish.task.status
//	      harnish.attempt harnish.attempt.number, harnish.attempt.outcome,
//	                      harnish.failure.class, harnish.failure.fingerprint,
//	                      harnish.usage.tokens, harnish.usage.cost_usd,
//	                      harnish.executor.claim; a harnish.guardrail event
//	                      per guardrail decision (harnish.guardrail.level,
//	                      harnish.guardrail.rule), an exception event when
//	                      the executor or verifier failed to run
//	        harnish.check harnish.check.name, harnish.check.passed, exit
//	                      code, tests; one per check of the verifier's
//	                      report, laid end to end from the verification's start
//	        harnish.review harnish.review.findings, harnish.review.critical
//	      harnish.debug   harnish.debugger.found
//	  harnish.gate        harnish.phase.id, harnish.gate.verdict
//
// The agent's work is the attempt's span itself (the executor's call is
// most of it, and the agent's own spans go under it), so the executor and
// the verifier have no span of their own: that would double the spans of a
// run and tell little more. Their durations are in harnish.component.duration.
//
// Attribute values are bounded: IDs come from a validated plan, outcomes and
// statuses from fixed lists, and free text is cut at 256 bytes. A failed
// attempt, a task that did not get done and a run that ended other than
// completed, awaiting approval or cancelled have an error status. A task
// or attempt that a resumed drive took over from an earlier one starts
// when the drive first hears of it, marked harnish.resumed.
//
// The executor gets its attempt's trace context, and the debugger its own
// span's, in their request's Env, as TRACEPARENT and TRACESTATE (W3C Trace
// Context): the
// command executor, the agent executors (Codex, Claude Code, ACP agents) and
// the command debugger put it in the program's environment, so a host that
// traces its agent sees one trace.
//
// The metrics, each with harnish.plan.name:
//
//	harnish.attempts            {attempt}  by harnish.attempt.outcome, harnish.failure.class
//	harnish.attempt.duration    s          by the same
//	harnish.tasks               {task}     by harnish.task.status
//	harnish.task.duration       s          by harnish.task.status
//	harnish.runs                {run}      by harnish.run.outcome
//	harnish.usage.tokens        {token}    by harnish.component (executor, debugger)
//	harnish.usage.cost          {USD}      by harnish.component
//	harnish.guardrail.decisions {decision} by harnish.guardrail.level, harnish.guardrail.rule
//	harnish.component.duration  s          by harnish.component, harnish.component.result
//	harnish.check.duration      s          by harnish.check.passed
//	harnish.gate.wait           s          by harnish.gate.verdict
//
// No metric carries a task ID or a fingerprint, so the number of series
// does not grow with the plan or its failures.
package telemetry
