package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

func readJSON[T any](t *testing.T, path string) *T {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func TestLoopRecords(t *testing.T) {
	dir := t.TempDir()
	ex := &looptest.Executor{Script: map[string][]looptest.Act{
		"T1": {{}, {Usage: executor.Usage{InputTokens: 7}}},
	}}
	_, _, err := looptest.Run(t, loop.Config{Plan: twoPhasePlan(), Executor: ex, Gate: &looptest.Gate{}, RecordsDir: dir,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x"}}},
		Reviewer: &looptest.Reviewer{}})
	if err != nil {
		t.Fatal(err)
	}
	h := readJSON[loop.Handoff](t, filepath.Join(dir, "handoffs", "T1.json"))
	want := &loop.Handoff{Task: "T1", Phase: "p1", Status: policy.StatusDone, Summary: "scripted", Checks: []string{"scripted"}, Attempts: 2}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("handoff (-want +got):\n%s", diff)
	}
	a := readJSON[loop.AuditLog](t, filepath.Join(dir, "logs", "demo", "task-T1.json"))
	wantAudit := &loop.AuditLog{Plan: "demo", Run: "test-run", Task: "T1", Title: "T1", Phase: "p1", Status: policy.StatusDone,
		Attempts: []loop.AuditAttempt{
			{Attempt: 1, Elapsed: a.Attempts[0].Elapsed, Ended: a.Attempts[0].Ended, Failure: &policy.Failure{Attempt: 1, Kind: policy.FailVerify, Fingerprint: "test:x", Class: "test", Reason: "scripted failure x", OutputTail: "FAIL x"}},
			{Attempt: 2, Elapsed: a.Attempts[1].Elapsed, Ended: a.Attempts[1].Ended, Tokens: 7},
		},
		StartedAt: a.StartedAt, EndedAt: a.EndedAt, Retries: 1, Passed: true, FinalCheck: "true", FinalResult: "passed at attempt 2",
		FailureModes: []string{"test:x"}, CodeReviewerFindings: "none"}
	if a.StartedAt.IsZero() || !a.StartedAt.Before(a.EndedAt) || a.Attempts[1].Ended.After(a.EndedAt) {
		t.Errorf("times: started %v, ended %v, attempt 2 ended %v", a.StartedAt, a.EndedAt, a.Attempts[1].Ended)
	}
	if diff := cmp.Diff(wantAudit, a); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
	// T2 depends on T1: its prompt carries T1's handoff.
	var t2 *executor.Request
	for _, r := range ex.Requests() {
		if r.Task.ID == "T2" {
			t2 = r
		}
	}
	if t2 == nil || len(t2.Parts.Handoffs) != 1 || !strings.Contains(t2.Prompt, "Status: done after 2 attempt(s).") {
		t.Errorf("T2's prompt lacks T1's handoff: %+v", t2)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(summary), "3 tasks in 4 attempts") {
		t.Errorf("summary.md: %v\n%s", err, summary)
	}
}

func TestLoopEscalationReport(t *testing.T) {
	dir := t.TempDir()
	_, _, err := looptest.Run(t, loop.Config{Plan: twoPhasePlan(), RecordsDir: dir,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
		Debugger: &looptest.Debugger{}, Now: (&looptest.Clock{Step: time.Second}).Now})
	if !errors.Is(err, policy.ErrHalted) {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "escalation-T1-*.md"))
	if len(matches) != 1 {
		t.Fatalf("escalation reports: %v", matches)
	}
	report, _ := os.ReadFile(matches[0])
	for _, want := range []string{"# Halted: task T1 needs a person", "- attempt 1: verify: scripted failure x",
		"After attempt 2: no root cause.", "1. scripted: no root cause", "## Options"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

// TestLoopAuditsVoidedAttempts: a voided attempt is in the audit log, with why.
func TestLoopAuditsVoidedAttempts(t *testing.T) {
	dir := t.TempDir()
	_, _, err := looptest.Run(t, loop.Config{Plan: onePhase(check("T1")), RecordsDir: dir, Verifier: &looptest.Verifier{Panic: true}})
	if !errors.Is(err, policy.ErrErrored) {
		t.Fatal(err)
	}
	a := readJSON[loop.AuditLog](t, filepath.Join(dir, "logs", "p", "task-T1.json"))
	if len(a.Attempts) != 1 || !strings.Contains(a.Attempts[0].Voided, "scripted verifier panic") {
		t.Errorf("audit attempts: %+v", a.Attempts)
	}
}

// ralph is the part of an audit log that Ralph Implement's task log has.
type ralph struct {
	Retries              int
	Passed               bool
	FinalCheck           string
	FinalResult          string
	FailureModes         []string
	CodeReviewerFindings string
	DebuggerInvoked      bool
	FiveWhysInvoked      bool
	Escalated            bool
}

func ralphOf(a *loop.AuditLog) ralph {
	return ralph{a.Retries, a.Passed, a.FinalCheck, a.FinalResult, a.FailureModes, a.CodeReviewerFindings, a.DebuggerInvoked, a.FiveWhysInvoked, a.Escalated}
}

// auditCases are runs of one task T1 and the audit log each leaves.
var auditCases = []struct {
	name string
	cfg  loop.Config
	want ralph
}{
	{"first try", loop.Config{},
		ralph{FinalCheck: "go test -json -race ./calc/...; sh -c \"test -f x\" (in sub)", FinalResult: "passed at attempt 1",
			Passed: true, FailureModes: []string{}, CodeReviewerFindings: "none"}},
	{"new failure modes, then passed", loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "y", ""}}}},
		ralph{Retries: 2, Passed: true, FailureModes: []string{"test:x", "test:y"}, FinalResult: "passed at attempt 3", CodeReviewerFindings: "none"}},
	{"the same failure again, not in a row, is one mode", loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "y", "x"}}},
		Policy: policy.Policy{Budget: task.Budget{Attempts: 3}}},
		ralph{Retries: 2, FailureModes: []string{"test:x", "test:y"}, FinalResult: "attempt 3: verify: scripted failure x\nFAIL x",
			CodeReviewerFindings: "none", Escalated: true}},
	{"two strikes, no root cause", loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}}, Debugger: &looptest.Debugger{}},
		ralph{Retries: 1, FailureModes: []string{"test:x"}, FinalResult: "attempt 2: verify: scripted failure x\nFAIL x",
			CodeReviewerFindings: "none", DebuggerInvoked: true, FiveWhysInvoked: true, Escalated: true}},
	{"two strikes, root cause, passed", loop.Config{Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
		Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}},
		ralph{Retries: 2, Passed: true, FailureModes: []string{"test:x"}, FinalResult: "passed at attempt 3",
			CodeReviewerFindings: "none", DebuggerInvoked: true}},
	{"critical review sent back", loop.Config{Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}}},
		ralph{Retries: 1, Passed: true, FailureModes: []string{"review"}, FinalResult: "passed at attempt 2",
			CodeReviewerFindings: "1 finding(s), 1 critical, 1 review round(s) sent back; see findings"}},
	{"blocked", loop.Config{Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Blocked: "needs a key"}}}}},
		ralph{FailureModes: []string{"blocked"}, FinalResult: "attempt 1: blocked: needs a key", CodeReviewerFindings: "none", Escalated: true}},
	{"a crash of the executor", loop.Config{Executor: &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Crash: "boom"}}}}},
		ralph{Retries: 1, Passed: true, FailureModes: []string{"executor:crashed"}, FinalResult: "passed at attempt 2", CodeReviewerFindings: "none"}},
}

// TestAuditLogRalphFields: the audit log has Ralph Implement's fields,
// derived from the attempts, and says the same after a repair.
func TestAuditLogRalphFields(t *testing.T) {
	for _, tt := range auditCases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tt.cfg
			cfg.Plan, cfg.RecordsDir, cfg.Store = auditPlan(), dir, looptest.NewStore()
			cfg.Now = (&looptest.Clock{Step: time.Second}).Now
			if cfg.Verifier == nil {
				cfg.Verifier = &looptest.Verifier{}
			}
			looptest.Run(t, cfg)
			path := filepath.Join(dir, "logs", "p", "task-T1.json")
			a := readJSON[loop.AuditLog](t, path)
			want := tt.want
			if want.FinalCheck == "" {
				want.FinalCheck = auditCases[0].want.FinalCheck
			}
			if diff := cmp.Diff(want, ralphOf(a)); diff != "" {
				t.Errorf("audit log (-want +got):\n%s", diff)
			}
			if a.StartedAt.IsZero() || a.EndedAt.Before(a.StartedAt) {
				t.Errorf("started %v, ended %v", a.StartedAt, a.EndedAt)
			}
			// A crash took the log: the next drive of the run writes it
			// again from the state, and it says the same.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			cfg.Executor, cfg.Observer = &looptest.Executor{}, nil
			l, err := loop.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			l.Run(context.Background())
			repaired := readJSON[loop.AuditLog](t, path)
			if diff := cmp.Diff(ralphOf(a), ralphOf(repaired)); diff != "" {
				t.Errorf("repaired audit log (-written +repaired):\n%s", diff)
			}
		})
	}
}

func auditPlan() *task.Plan {
	return onePhase(task.Task{ID: "T1", Title: "T1", Acceptance: []task.Check{
		{GoTest: &task.GoTestCheck{Packages: []string{"./calc/..."}, Flags: []string{"-race"}}},
		{Sh: "test -f x", Dir: "sub"},
	}})
}
