package plugins

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// wire sends m through its binary form, as the transport does.
func wire[M proto.Message](t *testing.T, m M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := m.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

var fullTask = &task.Task{
	ID: "T1", Title: "divide", Objective: "add divide()", Files: []string{"calc.go"}, DependsOn: []string{"T0"},
	Acceptance: []task.Check{
		{Run: []string{"go", "test", "./..."}, Dir: "sub", Timeout: task.Duration(time.Minute)},
		{Sh: "go vet ./..."},
		{GoTest: &task.GoTestCheck{Packages: []string{"./calc/..."}, Flags: []string{"-race"}, MinTests: 2}},
		{CMake: &task.CMakeCheck{Preset: "dev"}},
		{Manual: "looks right"},
		{Plugin: "msvc", Dir: "native"},
	},
	Tags: []string{"calc"}, Budget: task.Budget{Attempts: 5, TaskTimeout: task.Duration(10 * time.Minute)}, Status: task.StatusDoing, Risk: task.RiskHigh,
}

func TestVerifyRoundTrip(t *testing.T) {
	reqs := []*verify.Request{
		{Task: fullTask, PhaseID: "api", WorkDir: "/w", Attempt: 2},
		{Task: fullTask, Checks: []task.Check{{Run: []string{"make"}}}},
		{Task: fullTask, Checks: []task.Check{}},
		{},
	}
	for i, want := range reqs {
		got := verifyRequestFromPB(wire(t, verifyRequestToPB(want)))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d (-want +got):\n%s", i, diff)
		}
	}
	reports := []*verify.Report{
		{Passed: true, Checks: []verify.CheckResult{{Name: "a", Passed: true}}},
		{Checks: []verify.CheckResult{{
			Name: "ctest", Stage: "test", Argv: []string{"ctest"}, Dir: "b", ExitCode: -1, Duration: 1500 * time.Millisecond,
			OutputTail: "boom\n", TestsRun: 4, TestsPassed: 1, TestsFailed: 2, TestsSkipped: 1,
		}}, Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: "ff", Summary: "2 failed"}},
		{Passed: true},
	}
	for i, want := range reports {
		got, err := reportFromPB(wire(t, reportToPB(want)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("report %d (-want +got):\n%s", i, diff)
		}
	}
}

func TestReviewRoundTrip(t *testing.T) {
	req := &verify.ReviewRequest{Task: fullTask, PhaseID: "p", WorkDir: "/w", Attempt: 3, Diff: "--- a\n+++ b\n", Files: []string{"a", "b"}}
	gotReq := reviewRequestFromPB(wire(t, reviewRequestToPB(req)))
	if diff := cmp.Diff(req, gotReq); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	rev := &verify.Review{Findings: []verify.Finding{
		{Severity: verify.SeverityCritical, File: "a.go", Line: 3, Message: "nil deref", Rule: "nil"},
		{Severity: verify.SeverityLow, Message: "style"},
	}}
	got, err := reviewFromPB(wire(t, reviewToPB(rev)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rev, got); diff != "" {
		t.Errorf("review (-want +got):\n%s", diff)
	}
}

func TestGuardrailRoundTrip(t *testing.T) {
	actions := []guardrail.Action{
		{Kind: guardrail.KindCommand, Command: "rm -rf /", Shell: guardrail.ShellPowerShell, Task: "T1"},
		{Kind: guardrail.KindEdit, Path: "a/b.go", Diff: "@@ -1 +1 @@"},
		{Kind: guardrail.KindInstall, Ecosystem: "npm", Package: "zod@3"},
	}
	for _, a := range actions {
		if diff := cmp.Diff(a, actionFromPB(wire(t, actionToPB(a)))); diff != "" {
			t.Errorf("action (-want +got):\n%s", diff)
		}
	}
	for _, d := range []guardrail.Decision{{}, {Level: guardrail.Soft, Rule: "r", Reason: "why", Match: "m"}, {Level: guardrail.Hard, Rule: "h"}} {
		got, err := decisionFromPB(wire(t, decisionToPB(d)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(d, got); diff != "" {
			t.Errorf("decision (-want +got):\n%s", diff)
		}
	}
}

func TestExecutorRoundTrip(t *testing.T) {
	req := &executor.Request{
		Task: fullTask, PhaseID: "p", Attempt: 2, WorkDir: "/w", Prompt: "do",
		Parts: executor.PromptParts{
			Spec:         "spec",
			Prohibitions: []string{"no sudo"},
			Handoffs:     []executor.Handoff{{TaskID: "T0", Text: "done"}},
			Failures:     []executor.Failure{{Attempt: 1, Class: "test", Fingerprint: "ab", Reason: "s", OutputTail: "o", Was: "cd", Unchanged: true}},
			Findings:     []executor.Finding{{Severity: verify.SeverityCritical, File: "f", Line: 2, Message: "m", Rule: "r"}},
			Diagnosis:    &executor.Diagnosis{Found: true, RootCause: "rc", Fix: "fix", FiveWhys: []string{"1", "2"}, Usage: executor.Usage{InputTokens: 3}},
			Warnings:     []executor.Violation{{Rule: "w", Reason: "r"}},
			Assets:       []executor.Asset{{Type: "pattern", Slug: "s", Title: "t", Text: "x"}},
			Advice:       &executor.Advice{Verdict: schema.AdviseCorrection, Text: "use <="},
			Context:      []executor.ContextFile{{Path: "AGENTS.md", Text: "rules"}},
			Progress:     "Task 2 of 3, in phase p1.",
			Done:         []executor.TaskSummary{{TaskID: "T0", Title: "zero", Line: "did it"}},
		},
		Limits: executor.Limits{Deadline: time.Unix(1700000000, 123), Tokens: 1000, CostUSD: 1.5},
		Env:    map[string]string{"TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}
	for _, want := range []*executor.Request{req, {Task: fullTask, Attempt: 1}} {
		got := executeRequestFromPB(wire(t, executeRequestToPB(want)))
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	}
	for _, want := range []*executor.Result{
		{Status: executor.StatusDone, Summary: "s", FilesChanged: []string{"a"}, Transcript: "/t", Usage: executor.Usage{InputTokens: 1, OutputTokens: 2, CostUSD: 0.5}, Generalizable: true,
			Decisions: []string{"kept the old API"}, OpenQuestions: []string{"rename it?"}, Blocker: "the CI key"},
		{Status: executor.StatusBlocked, Reason: "need a key", Violations: []executor.Violation{{Hard: true, Rule: "r", Reason: "why", Action: "rm"}, {Rule: "s"}}},
		{Status: "bogus"},
	} {
		if diff := cmp.Diff(want, resultFromPB(wire(t, resultToPB(want))), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	}
}

func TestDecodeErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"null check", func() error {
			_, err := reportFromPB(&pluginpb.VerifyResponse{Passed: true, Checks: []*pluginpb.CheckResult{{}, nil}})
			return err
		}(), "field checks[1]: null"},
		{"severity", func() error {
			_, err := reviewFromPB(&pluginpb.ReviewResponse{Findings: []*pluginpb.Finding{{Severity: "high"}, {Severity: "dire"}}})
			return err
		}(), "field findings[1].severity"},
		{"level", func() error { _, err := decisionFromPB(&pluginpb.CheckResponse{Level: "maybe"}); return err }(), "field level"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: error %v does not contain %q", tt.name, tt.err, tt.want)
		}
	}
}

// The converters copy fields one by one; a field added to one of these
// types must be added to the protocol and the converters too. (A request's
// Watch and Transcript stay on the host: a plugin's agent activity and
// transcript are its own.)
func TestConvertersKnowEveryField(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int
	}{
		{task.Task{}, 10}, {task.Check{}, 8}, {task.GoTestCheck{}, 3}, {task.CMakeCheck{}, 4}, {task.Budget{}, 6},
		{verify.Request{}, 5}, {verify.Report{}, 3}, {verify.CheckResult{}, 12}, {verify.Fingerprint{}, 3},
		{verify.ReviewRequest{}, 6}, {verify.Finding{}, 5},
		{guardrail.Action{}, 8}, {guardrail.Decision{}, 4},
		{executor.Request{}, 10}, {executor.PromptParts{}, 12}, {executor.ContextFile{}, 2}, {executor.TaskSummary{}, 3}, {executor.Limits{}, 3}, {executor.Result{}, 11}, {executor.Violation{}, 4},
		{executor.Usage{}, 3}, {executor.Diagnosis{}, 5}, {executor.Finding{}, 5},
		// A prompt failure's Kind travels folded into its summary; its Keys,
		// Findings and Warnings travel as the parts' own lists.
		{executor.Failure{}, 11},
		{executor.Handoff{}, 2}, {executor.Asset{}, 4},
		{schema.Error{}, 8},
	} {
		typ := reflect.TypeOf(tc.v)
		if got := typ.NumField(); got != tc.want {
			t.Errorf("%v has %d fields, the converters know %d", typ, got, tc.want)
		}
	}
}

// The errors of a plugin's implementation keep their meaning on the host:
// the same sentinels, kinds, fields and retryability.
func TestDiagnosticRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		rebuild func(*pluginpb.Diagnostic) error
		is      []error
		check   func(t *testing.T, err error)
	}{
		{name: "no checks", err: fmt.Errorf("lint: %w", verify.ErrNoChecks), rebuild: verifyDiag,
			is: []error{verify.ErrNoChecks}},
		{name: "verify.Error", err: &verify.Error{Component: "lint", Kind: verify.KindProtocol, NonRetryable: true, Check: "c", Tail: "t", Err: errors.New("inner")}, rebuild: verifyDiag,
			is: []error{verify.ErrProtocol}, check: func(t *testing.T, err error) {
				want := `lint: protocol: check "c": plugin "p": inner`
				if err.Error() != want {
					t.Errorf("got %q, want %q", err, want)
				}
				if verify.IsRetryable(err) {
					t.Error("protocol error retryable")
				}
			}},
		{name: "verify.Error zero kind", err: &verify.Error{}, rebuild: verifyDiag, is: []error{verify.ErrCrashed},
			check: func(t *testing.T, err error) {
				if err.Error() != "crashed" {
					t.Errorf("got %q", err)
				}
			}},
		{name: "executor unavailable", err: fmt.Errorf("wrap: %w", &executor.Error{Kind: executor.KindUnavailable, Tail: "t", Usage: executor.Usage{CostUSD: 2}, Violations: []executor.Violation{{Hard: true, Rule: "r"}}}),
			rebuild: execDiag, is: []error{executor.ErrUnavailable}, check: func(t *testing.T, err error) {
				if executor.IsRetryable(err) {
					t.Error("unavailable retryable")
				}
				e, _ := errors.AsType[*executor.Error](err)
				if e.Usage.CostUSD != 2 || e.Tail != "t" || len(e.Violations) != 1 || !e.Violations[0].Hard {
					t.Errorf("got %#v", e)
				}
			}},
		{name: "executor timeout", err: &executor.Error{Kind: executor.KindTimeout}, rebuild: execDiag, is: []error{executor.ErrTimeout},
			check: func(t *testing.T, err error) {
				if !executor.IsRetryable(err) {
					t.Error("timeout not retryable")
				}
			}},
		{name: "canceled", err: fmt.Errorf("x: %w", context.Canceled), rebuild: execDiag, is: []error{context.Canceled},
			check: func(t *testing.T, err error) {
				if executor.IsRetryable(err) {
					t.Error("cancellation retryable")
				}
			}},
		{name: "deadline", err: context.DeadlineExceeded, rebuild: verifyDiag, is: []error{context.DeadlineExceeded}},
		{name: "plain", err: errors.New("boom"), rebuild: execDiag, check: func(t *testing.T, err error) {
			if err.Error() != `plugin "p": boom` || !executor.IsRetryable(err) {
				t.Errorf("got %q", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.rebuild(wire(t, diagnosticOf(tt.err)))
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("%v is not %v", err, target)
				}
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
	if diagnosticOf(nil) != nil {
		t.Error("diagnostic of nil error")
	}
}

func verifyDiag(d *pluginpb.Diagnostic) error { return componentErrorOf("p", d) }
func execDiag(d *pluginpb.Diagnostic) error   { return componentErrorOf("p", d) }
