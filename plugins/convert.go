package plugins

import (
	"fmt"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// The converters between the public types and the protocol. Decoders
// name the offending field, because what they decode comes from another
// program.

func taskToPB(t *task.Task) *pluginpb.Task {
	if t == nil {
		return nil
	}
	return &pluginpb.Task{
		Id:         t.ID,
		Title:      t.Title,
		Objective:  t.Objective,
		Files:      t.Files,
		DependsOn:  t.DependsOn,
		Acceptance: checksToPB(t.Acceptance),
		Tags:       t.Tags,
		Budget: &pluginpb.Budget{
			Attempts:      int64(t.Budget.Attempts),
			TaskTimeoutNs: int64(t.Budget.TaskTimeout),
			Cycles:        int64(t.Budget.Cycles),
			RunTimeoutNs:  int64(t.Budget.RunTimeout),
			Tokens:        t.Budget.Tokens,
			CostUsd:       t.Budget.CostUSD,
		},
		Status: string(t.Status),
		Risk:   t.Risk,
	}
}

func taskFromPB(p *pluginpb.Task) *task.Task {
	if p == nil {
		return nil
	}
	b := p.GetBudget()
	return &task.Task{
		ID:         p.GetId(),
		Title:      p.GetTitle(),
		Objective:  p.GetObjective(),
		Files:      p.GetFiles(),
		DependsOn:  p.GetDependsOn(),
		Acceptance: checksFromPB(p.GetAcceptance()),
		Tags:       p.GetTags(),
		Budget: task.Budget{
			Attempts:    int(b.GetAttempts()),
			TaskTimeout: task.Duration(b.GetTaskTimeoutNs()),
			Cycles:      int(b.GetCycles()),
			RunTimeout:  task.Duration(b.GetRunTimeoutNs()),
			Tokens:      b.GetTokens(),
			CostUSD:     b.GetCostUsd(),
		},
		Status: task.Status(p.GetStatus()),
		Risk:   p.GetRisk(),
	}
}

func checksToPB(cs []task.Check) []*pluginpb.Check {
	var out []*pluginpb.Check
	for _, c := range cs {
		pc := &pluginpb.Check{Run: c.Run, Sh: c.Sh, Manual: c.Manual, Dir: c.Dir, TimeoutNs: int64(c.Timeout), Plugin: c.Plugin}
		if g := c.GoTest; g != nil {
			pc.Gotest = &pluginpb.GoTestCheck{Packages: g.Packages, Flags: g.Flags, MinTests: int64(g.MinTests)}
		}
		if m := c.CMake; m != nil {
			pc.Cmake = &pluginpb.CMakeCheck{Preset: m.Preset, BuildDir: m.BuildDir, Config: m.Config, CompilerId: m.CompilerID}
		}
		out = append(out, pc)
	}
	return out
}

func checksFromPB(ps []*pluginpb.Check) []task.Check {
	var out []task.Check
	for _, p := range ps {
		c := task.Check{Run: p.GetRun(), Sh: p.GetSh(), Manual: p.GetManual(), Dir: p.GetDir(), Timeout: task.Duration(p.GetTimeoutNs()), Plugin: p.GetPlugin()}
		if g := p.GetGotest(); g != nil {
			c.GoTest = &task.GoTestCheck{Packages: g.GetPackages(), Flags: g.GetFlags(), MinTests: int(g.GetMinTests())}
		}
		if m := p.GetCmake(); m != nil {
			c.CMake = &task.CMakeCheck{Preset: m.GetPreset(), BuildDir: m.GetBuildDir(), Config: m.GetConfig(), CompilerID: m.GetCompilerId()}
		}
		out = append(out, c)
	}
	return out
}

func verifyRequestToPB(r *verify.Request) *pluginpb.VerifyRequest {
	p := &pluginpb.VerifyRequest{
		Task:    taskToPB(r.Task),
		PhaseId: r.PhaseID,
		WorkDir: r.WorkDir,
		Attempt: int64(r.Attempt),
	}
	if r.Checks != nil {
		p.Checks = &pluginpb.Checks{Items: checksToPB(r.Checks)}
	}
	return p
}

func verifyRequestFromPB(p *pluginpb.VerifyRequest) *verify.Request {
	r := &verify.Request{Task: taskFromPB(p.GetTask()), PhaseID: p.GetPhaseId(), WorkDir: p.GetWorkDir(), Attempt: int(p.GetAttempt())}
	if cs := p.GetChecks(); cs != nil {
		r.Checks = checksFromPB(cs.GetItems())
		if r.Checks == nil {
			r.Checks = []task.Check{}
		}
	}
	return r
}

func reportToPB(r *verify.Report) *pluginpb.VerifyResponse {
	out := &pluginpb.VerifyResponse{Passed: r.Passed}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, &pluginpb.CheckResult{
			Name:         c.Name,
			Stage:        c.Stage,
			Argv:         c.Argv,
			Dir:          c.Dir,
			ExitCode:     int64(c.ExitCode),
			DurationNs:   int64(c.Duration),
			OutputTail:   c.OutputTail,
			TestsRun:     int64(c.TestsRun),
			TestsPassed:  int64(c.TestsPassed),
			TestsFailed:  int64(c.TestsFailed),
			TestsSkipped: int64(c.TestsSkipped),
			Passed:       c.Passed,
		})
	}
	if !r.Fingerprint.IsZero() || r.Fingerprint.Summary != "" {
		out.Fingerprint = &pluginpb.Fingerprint{
			Class:   string(r.Fingerprint.Class),
			Hash:    r.Fingerprint.Hash,
			Summary: r.Fingerprint.Summary,
		}
	}
	return out
}

func reportFromPB(p *pluginpb.VerifyResponse) (*verify.Report, error) {
	r := &verify.Report{Passed: p.GetPassed()}
	for i, c := range p.GetChecks() {
		if c == nil {
			return nil, fmt.Errorf("field checks[%d]: null", i)
		}
		r.Checks = append(r.Checks, verify.CheckResult{
			Name:         c.GetName(),
			Stage:        c.GetStage(),
			Argv:         c.GetArgv(),
			Dir:          c.GetDir(),
			ExitCode:     int(c.GetExitCode()),
			Duration:     time.Duration(c.GetDurationNs()),
			OutputTail:   c.GetOutputTail(),
			TestsRun:     int(c.GetTestsRun()),
			TestsPassed:  int(c.GetTestsPassed()),
			TestsFailed:  int(c.GetTestsFailed()),
			TestsSkipped: int(c.GetTestsSkipped()),
			Passed:       c.GetPassed(),
		})
	}
	if f := p.GetFingerprint(); f != nil {
		r.Fingerprint = verify.Fingerprint{Class: verify.FailureClass(f.GetClass()), Hash: f.GetHash(), Summary: f.GetSummary()}
	}
	if !r.Passed && r.Fingerprint.IsZero() {
		return nil, fmt.Errorf("field fingerprint: a failing report must carry one")
	}
	return r, nil
}

func reviewRequestToPB(r *verify.ReviewRequest) *pluginpb.ReviewRequest {
	return &pluginpb.ReviewRequest{
		Task:    taskToPB(r.Task),
		PhaseId: r.PhaseID,
		WorkDir: r.WorkDir,
		Attempt: int64(r.Attempt),
		Diff:    r.Diff,
		Files:   r.Files,
	}
}

func reviewRequestFromPB(p *pluginpb.ReviewRequest) *verify.ReviewRequest {
	return &verify.ReviewRequest{
		Task:    taskFromPB(p.GetTask()),
		PhaseID: p.GetPhaseId(),
		WorkDir: p.GetWorkDir(),
		Attempt: int(p.GetAttempt()),
		Diff:    p.GetDiff(),
		Files:   p.GetFiles(),
	}
}

func reviewToPB(r *verify.Review) *pluginpb.ReviewResponse {
	out := &pluginpb.ReviewResponse{}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, &pluginpb.Finding{
			Severity: f.Severity.String(),
			File:     f.File,
			Line:     int64(f.Line),
			Message:  f.Message,
			Rule:     f.Rule,
		})
	}
	return out
}

func reviewFromPB(p *pluginpb.ReviewResponse) (*verify.Review, error) {
	r := &verify.Review{}
	for i, f := range p.GetFindings() {
		sev, err := verify.ParseSeverity(f.GetSeverity())
		if err != nil {
			return nil, fmt.Errorf("field findings[%d].severity: %w", i, err)
		}
		r.Findings = append(r.Findings, verify.Finding{
			Severity: sev,
			File:     f.GetFile(),
			Line:     int(f.GetLine()),
			Message:  f.GetMessage(),
			Rule:     f.GetRule(),
		})
	}
	return r, nil
}

func actionToPB(a guardrail.Action) *pluginpb.CheckRequest {
	return &pluginpb.CheckRequest{Action: &pluginpb.Action{
		Kind:      string(a.Kind),
		Command:   a.Command,
		Shell:     string(a.Shell),
		Path:      a.Path,
		Diff:      a.Diff,
		Ecosystem: a.Ecosystem,
		Package:   a.Package,
		Task:      a.Task,
	}}
}

func actionFromPB(p *pluginpb.CheckRequest) guardrail.Action {
	a := p.GetAction()
	return guardrail.Action{
		Kind:      guardrail.ActionKind(a.GetKind()),
		Command:   a.GetCommand(),
		Shell:     guardrail.Shell(a.GetShell()),
		Path:      a.GetPath(),
		Diff:      a.GetDiff(),
		Ecosystem: a.GetEcosystem(),
		Package:   a.GetPackage(),
		Task:      a.GetTask(),
	}
}

func decisionToPB(d guardrail.Decision) *pluginpb.CheckResponse {
	return &pluginpb.CheckResponse{Level: d.Level.String(), Rule: d.Rule, Reason: d.Reason, Match: d.Match}
}

func decisionFromPB(p *pluginpb.CheckResponse) (guardrail.Decision, error) {
	l, err := guardrail.ParseLevel(p.GetLevel())
	if err != nil {
		return guardrail.Decision{}, fmt.Errorf("field level: %w", err)
	}
	return guardrail.Decision{Level: l, Rule: p.GetRule(), Reason: p.GetReason(), Match: p.GetMatch()}, nil
}

func usageToPB(u executor.Usage) *pluginpb.Usage {
	if u == (executor.Usage{}) {
		return nil
	}
	return &pluginpb.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUsd: u.CostUSD}
}

func usageFromPB(p *pluginpb.Usage) executor.Usage {
	return executor.Usage{InputTokens: p.GetInputTokens(), OutputTokens: p.GetOutputTokens(), CostUSD: p.GetCostUsd()}
}

func executeRequestToPB(r *executor.Request) *pluginpb.ExecuteRequest {
	parts := &pluginpb.PromptParts{Spec: r.Parts.Spec, Prohibitions: r.Parts.Prohibitions}
	for _, h := range r.Parts.Handoffs {
		parts.Handoffs = append(parts.Handoffs, &pluginpb.Handoff{TaskId: h.TaskID, Text: h.Text})
	}
	parts.Failures = failuresToPB(r.Parts.Failures)
	for _, f := range r.Parts.Findings {
		parts.Findings = append(parts.Findings, &pluginpb.PromptFinding{
			Severity: f.Severity.String(), File: f.File, Line: int64(f.Line), Message: f.Message, Rule: f.Rule,
		})
	}
	if d := r.Parts.Diagnosis; d != nil {
		parts.Diagnosis = &pluginpb.Diagnosis{Found: d.Found, RootCause: d.RootCause, Fix: d.Fix, FiveWhys: d.FiveWhys, Usage: usageToPB(d.Usage)}
	}
	if a := r.Parts.Advice; a != nil {
		parts.Advice = &pluginpb.Advice{Verdict: string(a.Verdict), Text: a.Text}
	}
	parts.Progress = r.Parts.Progress
	for _, c := range r.Parts.Context {
		parts.Context = append(parts.Context, &pluginpb.ContextFile{Path: c.Path, Text: c.Text})
	}
	for _, d := range r.Parts.Done {
		parts.Done = append(parts.Done, &pluginpb.TaskSummary{TaskId: d.TaskID, Title: d.Title, Line: d.Line})
	}
	for _, w := range r.Parts.Warnings {
		parts.Warnings = append(parts.Warnings, &pluginpb.Warning{Rule: w.Rule, Reason: w.Reason})
	}
	for _, a := range r.Parts.Assets {
		parts.Assets = append(parts.Assets, &pluginpb.Asset{Type: a.Type, Slug: a.Slug, Title: a.Title, Text: a.Text})
	}
	limits := &pluginpb.Limits{Tokens: r.Limits.Tokens, CostUsd: r.Limits.CostUSD}
	if !r.Limits.Deadline.IsZero() {
		limits.DeadlineUnixNs = r.Limits.Deadline.UnixNano()
	}
	return &pluginpb.ExecuteRequest{
		Task:    taskToPB(r.Task),
		PhaseId: r.PhaseID,
		Attempt: int64(r.Attempt),
		WorkDir: r.WorkDir,
		Prompt:  r.Prompt,
		Parts:   parts,
		Limits:  limits,
		Env:     r.Env,
	}
}

func executeRequestFromPB(p *pluginpb.ExecuteRequest) *executor.Request {
	r := &executor.Request{
		Task:    taskFromPB(p.GetTask()),
		PhaseID: p.GetPhaseId(),
		Attempt: int(p.GetAttempt()),
		WorkDir: p.GetWorkDir(),
		Prompt:  p.GetPrompt(),
		Env:     p.GetEnv(),
	}
	pp := p.GetParts()
	r.Parts.Spec = pp.GetSpec()
	r.Parts.Prohibitions = pp.GetProhibitions()
	for _, h := range pp.GetHandoffs() {
		r.Parts.Handoffs = append(r.Parts.Handoffs, executor.Handoff{TaskID: h.GetTaskId(), Text: h.GetText()})
	}
	r.Parts.Failures = failuresFromPB(pp.GetFailures())
	for _, f := range pp.GetFindings() {
		sev, _ := schema.ParseSeverity(f.GetSeverity()) // an unknown one stays invalid, and the prompt says so
		r.Parts.Findings = append(r.Parts.Findings, executor.Finding{
			Severity: sev, File: f.GetFile(), Line: int(f.GetLine()), Message: f.GetMessage(), Rule: f.GetRule(),
		})
	}
	if d := pp.GetDiagnosis(); d != nil {
		r.Parts.Diagnosis = &executor.Diagnosis{Found: d.GetFound(), RootCause: d.GetRootCause(), Fix: d.GetFix(), FiveWhys: d.GetFiveWhys(), Usage: usageFromPB(d.GetUsage())}
	}
	if a := pp.GetAdvice(); a != nil {
		r.Parts.Advice = &executor.Advice{Verdict: schema.Verdict(a.GetVerdict()), Text: a.GetText()}
	}
	r.Parts.Progress = pp.GetProgress()
	for _, c := range pp.GetContext() {
		r.Parts.Context = append(r.Parts.Context, executor.ContextFile{Path: c.GetPath(), Text: c.GetText()})
	}
	for _, d := range pp.GetDone() {
		r.Parts.Done = append(r.Parts.Done, executor.TaskSummary{TaskID: d.GetTaskId(), Title: d.GetTitle(), Line: d.GetLine()})
	}
	for _, w := range pp.GetWarnings() {
		r.Parts.Warnings = append(r.Parts.Warnings, executor.Violation{Rule: w.GetRule(), Reason: w.GetReason()})
	}
	for _, a := range pp.GetAssets() {
		r.Parts.Assets = append(r.Parts.Assets, executor.Asset{Type: a.GetType(), Slug: a.GetSlug(), Title: a.GetTitle(), Text: a.GetText()})
	}
	l := p.GetLimits()
	r.Limits = executor.Limits{Tokens: l.GetTokens(), CostUSD: l.GetCostUsd()}
	if ns := l.GetDeadlineUnixNs(); ns != 0 {
		r.Limits.Deadline = time.Unix(0, ns)
	}
	return r
}

func resultToPB(r *executor.Result) *pluginpb.ExecuteResponse {
	return &pluginpb.ExecuteResponse{
		Status:        string(r.Status),
		Reason:        r.Reason,
		Summary:       r.Summary,
		FilesChanged:  r.FilesChanged,
		Transcript:    r.Transcript,
		Usage:         usageToPB(r.Usage),
		Violations:    violationsToPB(r.Violations),
		Generalizable: r.Generalizable,
		Decisions:     r.Decisions,
		OpenQuestions: r.OpenQuestions,
		Blocker:       r.Blocker,
	}
}

// resultFromPB passes an invalid status through: the loop already treats
// it as a protocol error of the executor, with the attempt counted.
func resultFromPB(p *pluginpb.ExecuteResponse) *executor.Result {
	return &executor.Result{
		Status:        executor.Status(p.GetStatus()),
		Reason:        p.GetReason(),
		Summary:       p.GetSummary(),
		FilesChanged:  p.GetFilesChanged(),
		Transcript:    p.GetTranscript(),
		Usage:         usageFromPB(p.GetUsage()),
		Violations:    violationsFromPB(p.GetViolations()),
		Generalizable: p.GetGeneralizable(),
		Decisions:     p.GetDecisions(),
		OpenQuestions: p.GetOpenQuestions(),
		Blocker:       p.GetBlocker(),
	}
}

func violationsToPB(vs []executor.Violation) []*pluginpb.Violation {
	var out []*pluginpb.Violation
	for _, v := range vs {
		out = append(out, &pluginpb.Violation{Hard: v.Hard, Rule: v.Rule, Reason: v.Reason, Action: v.Action})
	}
	return out
}

func violationsFromPB(ps []*pluginpb.Violation) []executor.Violation {
	var out []executor.Violation
	for _, p := range ps {
		out = append(out, executor.Violation{Hard: p.GetHard(), Rule: p.GetRule(), Reason: p.GetReason(), Action: p.GetAction()})
	}
	return out
}

func failuresToPB(fs []executor.Failure) []*pluginpb.Failure {
	var out []*pluginpb.Failure
	for _, f := range fs {
		out = append(out, &pluginpb.Failure{Attempt: int64(f.Attempt), Class: f.Class, Fingerprint: f.Fingerprint,
			Summary: f.Describe(), OutputTail: f.OutputTail, Was: f.Was, Unchanged: f.Unchanged})
	}
	return out
}

func failuresFromPB(ps []*pluginpb.Failure) []executor.Failure {
	var out []executor.Failure
	for _, f := range ps {
		out = append(out, executor.Failure{Attempt: int(f.GetAttempt()), Class: f.GetClass(), Fingerprint: f.GetFingerprint(),
			Reason: f.GetSummary(), OutputTail: f.GetOutputTail(), Was: f.GetWas(), Unchanged: f.GetUnchanged()})
	}
	return out
}

func diagnosisToPB(d *executor.Diagnosis) *pluginpb.Diagnosis {
	return &pluginpb.Diagnosis{Found: d.Found, RootCause: d.RootCause, Fix: d.Fix, FiveWhys: d.FiveWhys, Usage: usageToPB(d.Usage)}
}

func diagnosisFromPB(d *pluginpb.Diagnosis) *executor.Diagnosis {
	return &executor.Diagnosis{Found: d.GetFound(), RootCause: d.GetRootCause(), Fix: d.GetFix(), FiveWhys: d.GetFiveWhys(), Usage: usageFromPB(d.GetUsage())}
}

func debugRequestToPB(r *executor.DebugRequest) *pluginpb.DebugRequest {
	return &pluginpb.DebugRequest{Task: taskToPB(r.Task), PhaseId: r.PhaseID, WorkDir: r.WorkDir,
		Failures: failuresToPB(r.Failures), Diff: r.Diff, Env: r.Env}
}

func debugRequestFromPB(p *pluginpb.DebugRequest) *executor.DebugRequest {
	return &executor.DebugRequest{Task: taskFromPB(p.GetTask()), PhaseID: p.GetPhaseId(), WorkDir: p.GetWorkDir(),
		Failures: failuresFromPB(p.GetFailures()), Diff: p.GetDiff(), Env: p.GetEnv()}
}

func adviceRequestToPB(r *executor.AdviceRequest) *pluginpb.AdviseRequest {
	return &pluginpb.AdviseRequest{Task: taskToPB(r.Task), PhaseId: r.PhaseID, Point: string(r.Point), WorkDir: r.WorkDir,
		Failures: failuresToPB(r.Failures)}
}

func adviceRequestFromPB(p *pluginpb.AdviseRequest) *executor.AdviceRequest {
	return &executor.AdviceRequest{Task: taskFromPB(p.GetTask()), PhaseID: p.GetPhaseId(), Point: schema.AdvicePoint(p.GetPoint()),
		WorkDir: p.GetWorkDir(), Failures: failuresFromPB(p.GetFailures())}
}
