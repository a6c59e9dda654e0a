package plugins

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// The converters between the public types and the protocol. Decoders
// name the offending field, because what they decode comes from another
// program.

func taskToPB(t *task.Task) ([]byte, error) {
	if t == nil {
		return nil, nil
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	return b, nil
}

func taskFromPB(b []byte) (*task.Task, error) {
	if len(b) == 0 {
		return nil, nil
	}
	t := new(task.Task)
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("field task_json: %w", err)
	}
	return t, nil
}

func verifyRequestToPB(r *verify.Request) (*pluginpb.VerifyRequest, error) {
	tj, err := taskToPB(r.Task)
	if err != nil {
		return nil, err
	}
	var cj []byte
	if r.Checks != nil {
		if cj, err = json.Marshal(r.Checks); err != nil {
			return nil, fmt.Errorf("checks: %w", err)
		}
	}
	return &pluginpb.VerifyRequest{
		TaskJson:   tj,
		PhaseId:    r.PhaseID,
		ChecksJson: cj,
		WorkDir:    r.WorkDir,
		Attempt:    int64(r.Attempt),
	}, nil
}

func verifyRequestFromPB(p *pluginpb.VerifyRequest) (*verify.Request, error) {
	t, err := taskFromPB(p.GetTaskJson())
	if err != nil {
		return nil, err
	}
	r := &verify.Request{Task: t, PhaseID: p.GetPhaseId(), WorkDir: p.GetWorkDir(), Attempt: int(p.GetAttempt())}
	if len(p.GetChecksJson()) > 0 {
		if err := json.Unmarshal(p.GetChecksJson(), &r.Checks); err != nil {
			return nil, fmt.Errorf("field checks_json: %w", err)
		}
	}
	return r, nil
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

func reviewRequestToPB(r *verify.ReviewRequest) (*pluginpb.ReviewRequest, error) {
	tj, err := taskToPB(r.Task)
	if err != nil {
		return nil, err
	}
	return &pluginpb.ReviewRequest{
		TaskJson: tj,
		PhaseId:  r.PhaseID,
		WorkDir:  r.WorkDir,
		Attempt:  int64(r.Attempt),
		Diff:     r.Diff,
		Files:    r.Files,
	}, nil
}

func reviewRequestFromPB(p *pluginpb.ReviewRequest) (*verify.ReviewRequest, error) {
	t, err := taskFromPB(p.GetTaskJson())
	if err != nil {
		return nil, err
	}
	return &verify.ReviewRequest{
		Task:    t,
		PhaseID: p.GetPhaseId(),
		WorkDir: p.GetWorkDir(),
		Attempt: int(p.GetAttempt()),
		Diff:    p.GetDiff(),
		Files:   p.GetFiles(),
	}, nil
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

func executeRequestToPB(r *executor.Request) (*pluginpb.ExecuteRequest, error) {
	tj, err := taskToPB(r.Task)
	if err != nil {
		return nil, err
	}
	parts := &pluginpb.PromptParts{Spec: r.Parts.Spec}
	for _, h := range r.Parts.Handoffs {
		parts.Handoffs = append(parts.Handoffs, &pluginpb.Handoff{TaskId: h.TaskID, Text: h.Text})
	}
	for _, f := range r.Parts.Failures {
		parts.Failures = append(parts.Failures, &pluginpb.Failure{
			Attempt: int64(f.Attempt), Class: f.Class, Fingerprint: f.Fingerprint, Summary: f.Summary, OutputTail: f.OutputTail,
		})
	}
	for _, f := range r.Parts.Findings {
		parts.Findings = append(parts.Findings, &pluginpb.PromptFinding{
			Severity: f.Severity, File: f.File, Line: int64(f.Line), Message: f.Message, Rule: f.Rule,
		})
	}
	if d := r.Parts.Diagnosis; d != nil {
		parts.Diagnosis = &pluginpb.Diagnosis{Found: d.Found, RootCause: d.RootCause, Fix: d.Fix, FiveWhys: d.FiveWhys, Usage: usageToPB(d.Usage)}
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
		TaskJson: tj,
		PhaseId:  r.PhaseID,
		Attempt:  int64(r.Attempt),
		WorkDir:  r.WorkDir,
		Prompt:   r.Prompt,
		Parts:    parts,
		Limits:   limits,
	}, nil
}

func executeRequestFromPB(p *pluginpb.ExecuteRequest) (*executor.Request, error) {
	t, err := taskFromPB(p.GetTaskJson())
	if err != nil {
		return nil, err
	}
	r := &executor.Request{
		Task:    t,
		PhaseID: p.GetPhaseId(),
		Attempt: int(p.GetAttempt()),
		WorkDir: p.GetWorkDir(),
		Prompt:  p.GetPrompt(),
	}
	pp := p.GetParts()
	r.Parts.Spec = pp.GetSpec()
	for _, h := range pp.GetHandoffs() {
		r.Parts.Handoffs = append(r.Parts.Handoffs, executor.Handoff{TaskID: h.GetTaskId(), Text: h.GetText()})
	}
	for _, f := range pp.GetFailures() {
		r.Parts.Failures = append(r.Parts.Failures, executor.Failure{
			Attempt: int(f.GetAttempt()), Class: f.GetClass(), Fingerprint: f.GetFingerprint(), Summary: f.GetSummary(), OutputTail: f.GetOutputTail(),
		})
	}
	for _, f := range pp.GetFindings() {
		r.Parts.Findings = append(r.Parts.Findings, executor.Finding{
			Severity: f.GetSeverity(), File: f.GetFile(), Line: int(f.GetLine()), Message: f.GetMessage(), Rule: f.GetRule(),
		})
	}
	if d := pp.GetDiagnosis(); d != nil {
		r.Parts.Diagnosis = &executor.Diagnosis{Found: d.GetFound(), RootCause: d.GetRootCause(), Fix: d.GetFix(), FiveWhys: d.GetFiveWhys(), Usage: usageFromPB(d.GetUsage())}
	}
	for _, w := range pp.GetWarnings() {
		r.Parts.Warnings = append(r.Parts.Warnings, executor.Warning{Rule: w.GetRule(), Reason: w.GetReason()})
	}
	for _, a := range pp.GetAssets() {
		r.Parts.Assets = append(r.Parts.Assets, executor.Asset{Type: a.GetType(), Slug: a.GetSlug(), Title: a.GetTitle(), Text: a.GetText()})
	}
	l := p.GetLimits()
	r.Limits = executor.Limits{Tokens: l.GetTokens(), CostUSD: l.GetCostUsd()}
	if ns := l.GetDeadlineUnixNs(); ns != 0 {
		r.Limits.Deadline = time.Unix(0, ns)
	}
	return r, nil
}

func resultToPB(r *executor.Result) *pluginpb.ExecuteResponse {
	return &pluginpb.ExecuteResponse{
		Status:        string(r.Status),
		Reason:        r.Reason,
		Summary:       r.Summary,
		FilesChanged:  r.FilesChanged,
		Transcript:    r.Transcript,
		Usage:         usageToPB(r.Usage),
		Generalizable: r.Generalizable,
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
		Generalizable: p.GetGeneralizable(),
	}
}
