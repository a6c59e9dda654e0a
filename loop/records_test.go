package loop_test

import (
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
			{Attempt: 1, Elapsed: a.Attempts[0].Elapsed, Failure: &policy.Failure{Attempt: 1, Kind: policy.FailVerify, Fingerprint: "test:x", Class: "test", Reason: "scripted failure x", OutputTail: "FAIL x"}},
			{Attempt: 2, Elapsed: a.Attempts[1].Elapsed, Tokens: 7},
		}}
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
