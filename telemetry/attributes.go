package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The attributes of harnish's spans and metrics. Every value is bounded:
// IDs come from a validated plan, outcomes, statuses, classes and levels
// from short fixed lists, and free text (a fingerprint, a rule, a check's
// name) is cut at 256 bytes. Metrics carry only the plan's name and the
// fixed-list attributes, never a task ID or a fingerprint, so their series
// do not grow with the plan or the failures.
const (
	keyRun         = attribute.Key("harnish.run.id")
	keyPlan        = attribute.Key("harnish.plan.name")
	keyPhase       = attribute.Key("harnish.phase.id")
	keyTask        = attribute.Key("harnish.task.id")
	keyAttempt     = attribute.Key("harnish.attempt.number")
	keyResumed     = attribute.Key("harnish.resumed")
	keyOutcome     = attribute.Key("harnish.attempt.outcome")
	keyRunOutcome  = attribute.Key("harnish.run.outcome")
	keyStatus      = attribute.Key("harnish.task.status")
	keyClass       = attribute.Key("harnish.failure.class")
	keyFingerprint = attribute.Key("harnish.failure.fingerprint")
	keyTokens      = attribute.Key("harnish.usage.tokens")
	keyCost        = attribute.Key("harnish.usage.cost_usd")
	keyGuardLevel  = attribute.Key("harnish.guardrail.level")
	keyGuardRule   = attribute.Key("harnish.guardrail.rule")
	keyVerdict     = attribute.Key("harnish.gate.verdict")
	keyComponent   = attribute.Key("harnish.component")
	keyResult      = attribute.Key("harnish.component.result")
	keyClaim       = attribute.Key("harnish.executor.claim")
	keyPassed      = attribute.Key("harnish.check.passed")
	keyCheck       = attribute.Key("harnish.check.name")
	keyStage       = attribute.Key("harnish.check.stage")
	keyExitCode    = attribute.Key("harnish.check.exit_code")
	keyTestsRun    = attribute.Key("harnish.check.tests_run")
	keyTestsFailed = attribute.Key("harnish.check.tests_failed")
	keyFindings    = attribute.Key("harnish.review.findings")
	keyCritical    = attribute.Key("harnish.review.critical")
	keyFound       = attribute.Key("harnish.debugger.found")
	keyMessage     = attribute.Key("harnish.message")
)

// instruments are the metrics, all named harnish.*; see the package doc.
type instruments struct {
	attempts, tasks, runs, guardrail, tokens metric.Int64Counter
	cost                                     metric.Float64Counter
	attemptTime, taskTime, componentTime     metric.Float64Histogram
	checkTime, gateWait                      metric.Float64Histogram
}

func (m *instruments) init(meter metric.Meter) error {
	var errs [11]error
	m.attempts, errs[0] = meter.Int64Counter("harnish.attempts", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts finished, by outcome (passed, voided, or the failure's kind) and failure class."))
	m.tasks, errs[1] = meter.Int64Counter("harnish.tasks", metric.WithUnit("{task}"),
		metric.WithDescription("Tasks ended, by status: done, escalated, halted, blocked."))
	m.runs, errs[2] = meter.Int64Counter("harnish.runs", metric.WithUnit("{run}"),
		metric.WithDescription("Drives of a run ended, by outcome."))
	m.guardrail, errs[3] = meter.Int64Counter("harnish.guardrail.decisions", metric.WithUnit("{decision}"),
		metric.WithDescription("Guardrail decisions that objected (the agent's hooks' and the audit of each change's), by level and rule."))
	m.tokens, errs[4] = meter.Int64Counter("harnish.usage.tokens", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens the agent and the debugger reported spending."))
	m.cost, errs[5] = meter.Float64Counter("harnish.usage.cost", metric.WithUnit("{USD}"),
		metric.WithDescription("Cost in US dollars the agent and the debugger reported spending."))
	m.attemptTime, errs[6] = meter.Float64Histogram("harnish.attempt.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from an attempt's start to its end, by outcome."))
	m.taskTime, errs[7] = meter.Float64Histogram("harnish.task.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a task's start to its end, by status."))
	m.componentTime, errs[8] = meter.Float64Histogram("harnish.component.duration", metric.WithUnit("s"),
		metric.WithDescription("Time of one call of the executor, verifier, reviewer or debugger, by result."))
	m.checkTime, errs[9] = meter.Float64Histogram("harnish.check.duration", metric.WithUnit("s"),
		metric.WithDescription("Time of one acceptance check, by whether it passed."))
	m.gateWait, errs[10] = meter.Float64Histogram("harnish.gate.wait", metric.WithUnit("s"),
		metric.WithDescription("Time a milestone gate waited for its verdict."))
	return errors.Join(errs[:]...)
}
