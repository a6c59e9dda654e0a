package telemetry

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// drive is one drive's telemetry: the observer that turns the loop's events
// into the run, phase, task, attempt and gate spans and their metrics, and
// the state the component wrappers find their parent span in.
type drive struct {
	t       *Telemetry
	plan    string
	phaseOf map[string]string // task ID -> phase ID, from the plan

	// optMu guards opts: the metrics' attribute sets, made once each.
	optMu sync.Mutex
	opts  map[optKey]metric.MeasurementOption
	// checkOpt are the check metric's sets: failed, passed.
	checkOpt [2]metric.MeasurementOption

	mu     sync.Mutex
	runCtx context.Context
	run    trace.Span
	runID  string
	ended  bool // the run's span has ended
	phases map[string]*node
	// phase is the phase of the latest task started; an earlier phase's
	// span ends once its tasks have.
	phase    string
	tasks    map[string]*node
	attempts map[attemptKey]*node
	gates    map[string]*node
}

type optKey struct{ k1, v1, k2, v2 string }

// opt returns the measurement option of the plan's name and one or two
// more attributes (k2 empty: one). The sets are few (the attributes come
// from fixed lists), so each is made once per drive.
func (d *drive) opt(k1 attribute.Key, v1 string, k2 attribute.Key, v2 string) metric.MeasurementOption {
	key := optKey{string(k1), v1, string(k2), v2}
	d.optMu.Lock()
	defer d.optMu.Unlock()
	if o, ok := d.opts[key]; ok {
		return o
	}
	kv := []attribute.KeyValue{keyPlan.String(d.plan), k1.String(v1)}
	if k2 != "" {
		kv = append(kv, k2.String(v2))
	}
	o := metric.WithAttributeSet(attribute.NewSet(kv...))
	d.opts[key] = o
	return o
}

type attemptKey struct {
	task    string
	attempt int
}

// node is an open span.
type node struct {
	span  trace.Span
	start time.Time
	// seen: the drive saw it start (a task or attempt a resumed run took over
	// was not), so its duration is known.
	seen  bool
	phase string // of a task
	open  int    // of a phase: its tasks still open
}

func newDrive(t *Telemetry, cfg loop.Config) *drive {
	d := &drive{t: t, phaseOf: map[string]string{}, phases: map[string]*node{}, tasks: map[string]*node{},
		attempts: map[attemptKey]*node{}, gates: map[string]*node{}, runID: cfg.RunID, opts: map[optKey]metric.MeasurementOption{}}
	if cfg.Plan != nil {
		d.plan = cfg.Plan.Name
		for _, pt := range cfg.Plan.Tasks() {
			d.phaseOf[pt.Task.ID] = pt.Phase.ID
		}
	}
	for i, passed := range []bool{false, true} {
		d.checkOpt[i] = metric.WithAttributeSet(attribute.NewSet(keyPlan.String(d.plan), keyPassed.Bool(passed)))
	}
	return d
}

func (d *drive) runAttrs() []attribute.KeyValue {
	kv := []attribute.KeyValue{keyPlan.String(d.plan)}
	if d.runID != "" {
		kv = append(kv, keyRun.String(d.runID))
	}
	return kv
}

// Observe turns one event into spans and metrics.
func (d *drive) Observe(e loop.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return
	}
	now := time.Now()
	if e.Run != "" && e.Run != d.runID {
		d.runID = e.Run
		d.run.SetAttributes(keyRun.String(e.Run))
	}
	switch e.Type {
	case loop.TaskStarted:
		d.task(e.Task, e.Phase, now, true)
	case loop.AttemptStarted:
		d.attempt(e.Task, e.Attempt, now, true)
	case loop.AttemptFinished:
		d.attemptFinished(e, now)
	case loop.GuardrailViolated:
		d.guardrail(e, now)
	case loop.TaskDone, loop.TaskEscalated, loop.TaskHalted, loop.TaskBlocked:
		d.taskFinished(e, now)
	case loop.AdvisorConsulted:
		// The advisor runs inside the loop, unwrapped: its answer and spend
		// come with its event.
		d.task(e.Task, e.Phase, now, false).span.AddEvent("harnish.advice", trace.WithTimestamp(now),
			trace.WithAttributes(keyTokens.Int64(e.Tokens), keyCost.Float64(e.CostUSD)))
		ctx := context.Background()
		if e.Tokens != 0 {
			d.t.m.tokens.Add(ctx, e.Tokens, d.opt(keyComponent, componentAdvisor, "", ""))
		}
		if e.CostUSD != 0 {
			d.t.m.cost.Add(ctx, e.CostUSD, d.opt(keyComponent, componentAdvisor, "", ""))
		}
	case loop.FiveWhysRecorded:
		d.task(e.Task, e.Phase, now, false).span.AddEvent("harnish.fivewhys", trace.WithTimestamp(now))
	case loop.CauseShared:
		d.phaseNode(e.Phase, now).span.AddEvent("harnish.cause_shared", trace.WithTimestamp(now),
			trace.WithAttributes(keyMessage.String(bound(e.Message))))
	case loop.MilestoneReached:
		d.endPhase(e.Phase, now)
		d.gateNode(e.Phase, now)
	case loop.MilestoneApproved:
		d.gateFinished(e.Phase, "approved", now)
	case loop.RunFinished:
		d.runFinished(e.Outcome, e.Message, now)
	}
}

// phaseNode returns the phase's span, starting it when it is not open; an
// earlier phase whose tasks have all ended ends then.
func (d *drive) phaseNode(id string, now time.Time) *node {
	if n := d.phases[id]; n != nil {
		return n
	}
	n := &node{start: now}
	_, n.span = d.t.tracer.Start(d.runCtx, "harnish.phase", trace.WithTimestamp(now),
		trace.WithAttributes(keyPlan.String(d.plan), keyPhase.String(id)))
	d.phases[id] = n
	return n
}

func (d *drive) endPhase(id string, now time.Time) {
	if n := d.phases[id]; n != nil {
		n.span.End(trace.WithTimestamp(now))
		delete(d.phases, id)
	}
}

// task returns the task's span, starting it (and its phase's) when it is
// not open.
func (d *drive) task(id, phase string, now time.Time, started bool) *node {
	if n := d.tasks[id]; n != nil {
		return n
	}
	if phase == "" {
		phase = d.phaseOf[id]
	}
	if phase != d.phase {
		prev := d.phase
		d.phase = phase
		if p := d.phases[prev]; p != nil && p.open == 0 {
			d.endPhase(prev, now)
		}
	}
	p := d.phaseNode(phase, now)
	p.open++
	n := &node{start: now, seen: started, phase: phase}
	_, n.span = d.t.tracer.Start(trace.ContextWithSpan(d.runCtx, p.span), "harnish.task", trace.WithTimestamp(now),
		trace.WithAttributes(keyPlan.String(d.plan), keyPhase.String(phase), keyTask.String(id)))
	if !started {
		n.span.SetAttributes(keyResumed.Bool(true))
	}
	d.tasks[id] = n
	return n
}

func (d *drive) attempt(task string, attempt int, now time.Time, started bool) *node {
	k := attemptKey{task, attempt}
	if n := d.attempts[k]; n != nil {
		return n
	}
	t := d.task(task, "", now, false)
	n := &node{start: now, seen: started}
	_, n.span = d.t.tracer.Start(trace.ContextWithSpan(d.runCtx, t.span), "harnish.attempt", trace.WithTimestamp(now),
		trace.WithAttributes(keyPlan.String(d.plan), keyPhase.String(t.phase), keyTask.String(task), keyAttempt.Int(attempt)))
	d.attempts[k] = n
	return n
}

func (d *drive) attemptFinished(e loop.Event, now time.Time) {
	n := d.attempt(e.Task, e.Attempt, now, false)
	delete(d.attempts, attemptKey{e.Task, e.Attempt})
	outcome, class := attemptOutcome(e)
	attrs := []attribute.KeyValue{keyOutcome.String(outcome)}
	if class != "" {
		attrs = append(attrs, keyClass.String(class))
	}
	if e.Fingerprint != "" {
		attrs = append(attrs, keyFingerprint.String(bound(e.Fingerprint)))
	}
	if e.Tokens != 0 || e.CostUSD != 0 {
		attrs = append(attrs, keyTokens.Int64(e.Tokens), keyCost.Float64(e.CostUSD))
	}
	n.span.SetAttributes(attrs...)
	if outcome != outcomePassed {
		n.span.SetStatus(codes.Error, bound(e.Message))
	}
	n.span.End(trace.WithTimestamp(now))

	ctx := context.Background()
	m := &d.t.m
	set := d.opt(keyOutcome, outcome, keyClass, class)
	m.attempts.Add(ctx, 1, set)
	if n.seen {
		m.attemptTime.Record(ctx, now.Sub(n.start).Seconds(), set)
	}
	if e.Tokens != 0 {
		m.tokens.Add(ctx, e.Tokens, d.opt(keyComponent, componentExecutor, "", ""))
	}
	if e.CostUSD != 0 {
		m.cost.Add(ctx, e.CostUSD, d.opt(keyComponent, componentExecutor, "", ""))
	}
}

// The outcomes of an attempt: it passed, it was voided (a fault of the
// harness cut it short), or it failed with its failure's kind (verify,
// review, blocked, executor, guardrail, interrupted, stuck).
const (
	outcomePassed = "passed"
	outcomeVoided = "voided"
)

// attemptOutcome reads an attempt.finished event: its failure's kind and
// class, as the loop reports them.
func attemptOutcome(e loop.Event) (outcome, class string) {
	if e.Failure == "" {
		return outcomePassed, ""
	}
	if e.Failure == outcomeVoided {
		return outcomeVoided, ""
	}
	if class = e.Class; !isWord(class) {
		class = ""
	}
	return e.Failure, class
}

// isWord reports whether s is short and plain enough to be a metric's
// attribute: a class is one of a few words, and anything else is dropped
// rather than let a fingerprint's hash multiply the series.
func isWord(s string) bool {
	if len(s) > 24 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

func (d *drive) guardrail(e loop.Event, now time.Time) {
	attrs := trace.WithAttributes(keyGuardLevel.String(e.Level), keyGuardRule.String(bound(e.Rule)))
	switch {
	case e.Task != "" && e.Attempt > 0:
		d.attempt(e.Task, e.Attempt, now, false).span.AddEvent("harnish.guardrail", trace.WithTimestamp(now), attrs)
	case e.Task != "":
		d.task(e.Task, e.Phase, now, false).span.AddEvent("harnish.guardrail", trace.WithTimestamp(now), attrs)
	default:
		d.run.AddEvent("harnish.guardrail", trace.WithTimestamp(now), attrs)
	}
	d.t.m.guardrail.Add(context.Background(), 1, d.opt(keyGuardLevel, e.Level, keyGuardRule, bound(e.Rule)))
}

func (d *drive) taskFinished(e loop.Event, now time.Time) {
	n := d.task(e.Task, e.Phase, now, false)
	delete(d.tasks, e.Task)
	status := strings.TrimPrefix(string(e.Type), "task.")
	n.span.SetAttributes(keyStatus.String(status))
	if e.Type != loop.TaskDone {
		n.span.SetStatus(codes.Error, bound(e.Message))
	}
	n.span.End(trace.WithTimestamp(now))
	set := d.opt(keyStatus, status, "", "")
	d.t.m.tasks.Add(context.Background(), 1, set)
	if n.seen {
		d.t.m.taskTime.Record(context.Background(), now.Sub(n.start).Seconds(), set)
	}
	if p := d.phases[n.phase]; p != nil {
		p.open--
		if p.open == 0 && n.phase != d.phase {
			d.endPhase(n.phase, now)
		}
	}
}

func (d *drive) gateNode(phase string, now time.Time) *node {
	if n := d.gates[phase]; n != nil {
		return n
	}
	n := &node{start: now, seen: true}
	_, n.span = d.t.tracer.Start(d.runCtx, "harnish.gate", trace.WithTimestamp(now),
		trace.WithAttributes(keyPlan.String(d.plan), keyPhase.String(phase)))
	d.gates[phase] = n
	return n
}

func (d *drive) gateFinished(phase, verdict string, now time.Time) {
	n := d.gates[phase]
	if n == nil {
		// Approved by the resume that began this drive: no wait seen.
		n = d.gateNode(phase, now)
		n.seen = false
	}
	delete(d.gates, phase)
	n.span.SetAttributes(keyVerdict.String(verdict))
	n.span.End(trace.WithTimestamp(now))
	if n.seen {
		d.t.m.gateWait.Record(context.Background(), now.Sub(n.start).Seconds(),
			d.opt(keyVerdict, verdict, "", ""))
	}
}

// runFinished ends every span still open, then the run's.
func (d *drive) runFinished(outcome policy.Outcome, reason string, now time.Time) {
	for k, n := range d.attempts {
		n.span.SetStatus(codes.Error, "the run ended first")
		n.span.End(trace.WithTimestamp(now))
		delete(d.attempts, k)
	}
	for id, n := range d.tasks {
		n.span.End(trace.WithTimestamp(now))
		delete(d.tasks, id)
	}
	for id := range d.phases {
		d.endPhase(id, now)
	}
	for phase := range d.gates {
		d.gateFinished(phase, string(outcome), now)
	}
	d.run.SetAttributes(keyRunOutcome.String(string(outcome)))
	switch outcome {
	case policy.Completed, policy.AwaitingApproval, policy.Cancelled:
	default:
		d.run.SetStatus(codes.Error, bound(reason))
	}
	d.run.End(trace.WithTimestamp(now))
	d.ended = true
	d.t.m.runs.Add(context.Background(), 1, d.opt(keyRunOutcome, string(outcome), "", ""))
}

// end is the drive's End: a run that ended without its run.finished (the
// store failed) ends here, with err.
func (d *drive) end(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return
	}
	if err != nil {
		d.run.RecordError(err)
	}
	d.runFinished(policy.Errored, errText(err), time.Now())
}

func errText(err error) string {
	if err == nil {
		return "the run ended without an outcome"
	}
	return err.Error()
}

// parent returns ctx with the span of the task's attempt in it (or of the
// task, for attempt 0, or of the run when neither is open), so a
// component's span is its child.
func (d *drive) parent(ctx context.Context, task string, attempt int) context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := d.attempts[attemptKey{task, attempt}]; n != nil {
		return trace.ContextWithSpan(ctx, n.span)
	}
	if n := d.tasks[task]; n != nil {
		return trace.ContextWithSpan(ctx, n.span)
	}
	return trace.ContextWithSpan(ctx, d.run)
}

// maxAttr bounds every string attribute taken from the plan, the agent or a
// check: a fingerprint, a rule, a check's name, a message.
const maxAttr = 256

func bound(s string) string {
	if len(s) <= maxAttr {
		return s
	}
	i := maxAttr
	for i > 0 && s[i]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		i--
	}
	return s[:i] + "…"
}
