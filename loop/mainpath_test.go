package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// The tests in this file are regressions of what a new user met on the main
// path: each failed before its fix.

// TestLoopOwnWritesAreNotTheAgents: experience kept under .harnish/ is
// marked accessed and recorded by the loop itself between attempts; the
// audit charges none of that to the agent, while the agent writing there is
// still a hard stop.
func TestLoopOwnWritesAreNotTheAgents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		t2       looptest.Act
		wantErr  error
		wantViol []violation
	}{
		{name: "harnish's own records", t2: writes("b.txt", "b\n")},
		{name: "the agent's write under .harnish", t2: writes(".harnish/notes.txt", "mine\n"), wantErr: policy.ErrStoppedByGuardrail,
			wantViol: []violation{{"T2", "hard", guardrail.RuleEditProtected}, {"T2", "soft", guardrail.RuleEditScope}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := testkit.GitTree(t)
			store, err := asset.OpenFile(filepath.Join(dir, loop.StateDir, "assets.jsonl"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			if err := store.Record(ctx, &asset.Asset{Type: asset.TypeGuardrail, Title: "never run migrations by hand", Tags: []string{"db"}}); err != nil {
				t.Fatal(err)
			}
			plan := onePhase(
				task.Task{ID: "T1", Title: "t1", Tags: []string{"db"}, Files: []string{"a.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
				task.Task{ID: "T2", Title: "t2", Tags: []string{"db"}, Files: []string{"b.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
			)
			g, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
			if err != nil {
				t.Fatal(err)
			}
			// T1 fails the same way twice and is fixed by the debugger's root
			// cause: the loop records a failure asset, which T2's query finds.
			ex := &looptest.Executor{Script: map[string][]looptest.Act{
				"T1": {writes("a.txt", "1\n"), writes("a.txt", "2\n"), writes("a.txt", "3\n")},
				"T2": {tc.t2}}}
			_, rec, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Guardrail: g, Assets: store,
				Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}},
				Debugger: &looptest.Debugger{Found: map[string]bool{"T1": true}}})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Run: %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantViol, violations(rec)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			reqs := ex.Requests()
			if last := reqs[len(reqs)-1]; last.Task.ID != "T2" || len(last.Parts.Assets) != 2 {
				t.Errorf("T2's prompt: want the guardrail and T1's failure asset, got %+v", last.Parts.Assets)
			}
		})
	}
}

// TestLoopReviewerSeesTheChange: the reviewer gets the task's diff and the
// files it touches, from before the task's first attempt.
func TestLoopReviewerSeesTheChange(t *testing.T) {
	dir := testkit.GitTree(t)
	plan := onePhase(task.Task{ID: "T1", Title: "t1", Acceptance: []task.Check{{Run: []string{"true"}}}})
	rv := &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}}
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {writes("a.txt", "first\n"), writes("sub/b.txt", "second\n")}}}
	if _, _, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Verifier: &looptest.Verifier{}, Reviewer: rv}); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		Files []string
		Added []string
	}
	var got []seen
	for _, r := range rv.Requests() {
		var added []string
		for _, line := range strings.Split(r.Diff, "\n") {
			if strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++") {
				added = append(added, line)
			}
		}
		got = append(got, seen{r.Files, added})
	}
	want := []seen{{[]string{"a.txt"}, []string{"+first"}}, {[]string{"a.txt", "sub/b.txt"}, []string{"+first", "+second"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("review requests (-want +got):\n%s", diff)
	}
}

// TestLoopDebuggerSeesBothAttempts: the two-strike debugger gets both
// failures' output and how the second attempt's tree differs from the first's.
func TestLoopDebuggerSeesBothAttempts(t *testing.T) {
	dir := testkit.GitTree(t)
	plan := onePhase(task.Task{ID: "T1", Title: "t1", Acceptance: []task.Check{{Run: []string{"true"}}}})
	dbg := &looptest.Debugger{}
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {writes("a.txt", "one\n"), writes("a.txt", "two\n")}}}
	_, _, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Debugger: dbg,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}}})
	if !errors.Is(err, policy.ErrHalted) {
		t.Fatalf("Run: %v, want halted", err)
	}
	reqs := dbg.Requests()
	if len(reqs) != 1 {
		t.Fatalf("debugger asked %d times, want 1", len(reqs))
	}
	var tails []string
	for _, f := range reqs[0].Failures {
		tails = append(tails, f.OutputTail)
	}
	if diff := cmp.Diff([]string{"FAIL x", "FAIL x"}, tails); diff != "" {
		t.Errorf("failure outputs (-want +got):\n%s", diff)
	}
	if d := reqs[0].Diff; !strings.Contains(d, "-one") || !strings.Contains(d, "+two") {
		t.Errorf("diff between the attempts:\n%s", d)
	}
}

type reviewerFunc func(context.Context, *verify.ReviewRequest) (*verify.Review, error)

func (f reviewerFunc) Review(ctx context.Context, r *verify.ReviewRequest) (*verify.Review, error) {
	return f(ctx, r)
}

// TestLoopComponentEdges: what components may answer or be given without
// the loop failing.
func TestLoopComponentEdges(t *testing.T) {
	t.Run("a reviewer with nothing to say", func(t *testing.T) {
		plan := onePhase(check("T1"))
		nothing := reviewerFunc(func(context.Context, *verify.ReviewRequest) (*verify.Review, error) { return nil, nil })
		if _, _, err := looptest.Run(t, loop.Config{Plan: plan, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}, Reviewer: nothing}); err != nil {
			t.Fatalf("Run: %v", err)
		}
	})
	t.Run("WorkDir is made absolute", func(t *testing.T) {
		plan := onePhase(check("T1"))
		for _, wd := range []string{"."} { // (looptest.Run gives "" a temporary directory)
			ex := &looptest.Executor{}
			var got string
			v := verifyFunc(func(_ context.Context, r *verify.Request) (*verify.Report, error) {
				got = r.WorkDir
				return &verify.Report{Passed: true}, nil
			})
			if _, _, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: wd, Executor: ex, Verifier: v}); err != nil {
				t.Fatal(err)
			}
			cwd, _ := os.Getwd()
			if got != cwd || ex.Requests()[0].WorkDir != cwd {
				t.Errorf("WorkDir %q: verifier got %q, executor %q, want %q", wd, got, ex.Requests()[0].WorkDir, cwd)
			}
		}
	})
}

type verifyFunc func(context.Context, *verify.Request) (*verify.Report, error)

func (f verifyFunc) Verify(ctx context.Context, r *verify.Request) (*verify.Report, error) {
	return f(ctx, r)
}

// TestLoopEveryWarning: every soft decision of the audit reaches the next
// attempt's prompt, not the first with a count of the rest.
func TestLoopEveryWarning(t *testing.T) {
	dir := testkit.GitTree(t)
	plan := onePhase(task.Task{ID: "T1", Title: "t1", Files: []string{"a.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}})
	g, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
	if err != nil {
		t.Fatal(err)
	}
	both := looptest.Act{Do: func(req *executor.Request) error {
		for _, f := range []string{"x.txt", "y.txt"} {
			if err := os.WriteFile(filepath.Join(req.WorkDir, f), []byte("out of scope\n"), 0o644); err != nil {
				return err
			}
		}
		return nil
	}}
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {both, writes("a.txt", "a\n")}}}
	if _, _, err := looptest.Run(t, loop.Config{Plan: plan, WorkDir: dir, Executor: ex, Guardrail: g,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x"}}}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ex.Requests()[1].Parts.Warnings {
		got = append(got, w.Rule+" "+strings.SplitN(w.Reason, ":", 2)[0])
	}
	if diff := cmp.Diff([]string{"edit.scope x.txt", "edit.scope y.txt"}, got); diff != "" {
		t.Errorf("warnings in the second prompt (-want +got):\n%s", diff)
	}
}

// TestLoopReports: the words of the progress and the reports say what
// happened, once.
func TestLoopReports(t *testing.T) {
	records := t.TempDir()
	plan := onePhase(task.Task{ID: "T1", Title: "t1", Acceptance: []task.Check{{Run: []string{"true"}}}})
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Crash: "boom"}, {Crash: "boom"}}}}
	_, rec, err := looptest.Run(t, loop.Config{Plan: plan, Executor: ex, Verifier: &looptest.Verifier{}, RecordsDir: records})
	if !errors.Is(err, policy.ErrHalted) {
		t.Fatalf("Run: %v", err)
	}
	for _, e := range rec.Events() {
		if strings.Contains(e.Message, "executor: executor") || e.Type == loop.DebuggerInvoked || e.Type == loop.FiveWhysRecorded {
			t.Errorf("event %s: %q", e.Type, e.Message)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(records, "escalation-T1-*.md"))
	if len(matches) != 1 {
		t.Fatalf("escalation reports: %v", matches)
	}
	report, _ := os.ReadFile(matches[0])
	for _, bad := range []string{"executor: executor", "## Debugger"} {
		if strings.Contains(string(report), bad) {
			t.Errorf("the report holds %q:\n%s", bad, report)
		}
	}
	if !strings.Contains(string(report), "no debugger is configured") {
		t.Errorf("the report does not say no debugger was configured:\n%s", report)
	}
}

// TestLoopGuardrailStopReport: a hard guardrail stop leaves an escalation
// report, as the other stops do.
func TestLoopGuardrailStopReport(t *testing.T) {
	records := t.TempDir()
	plan := onePhase(check("T1"))
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Violations: []executor.Violation{{Rule: "shell.rm-root", Reason: "rm -rf /", Hard: true}}}}}}
	_, _, err := looptest.Run(t, loop.Config{Plan: plan, Executor: ex, Verifier: &looptest.Verifier{}, RecordsDir: records})
	if !errors.Is(err, policy.ErrStoppedByGuardrail) {
		t.Fatalf("Run: %v", err)
	}
	matches, _ := filepath.Glob(filepath.Join(records, "escalation-T1-*.md"))
	if len(matches) != 1 {
		t.Fatalf("escalation reports: %v", matches)
	}
	if report, _ := os.ReadFile(matches[0]); !strings.Contains(string(report), "shell.rm-root") {
		t.Errorf("report:\n%s", report)
	}
}

// TestLoopEscalationTeaches: a task that escalates after failing leaves an
// unresolved failure asset for later runs.
func TestLoopEscalationTeaches(t *testing.T) {
	ctx := context.Background()
	store, err := asset.OpenFile(filepath.Join(t.TempDir(), "assets.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	plan := onePhase(task.Task{ID: "T1", Title: "divide", Tags: []string{"calc"}, Acceptance: []task.Check{{Run: []string{"true"}}}})
	_, _, err = looptest.Run(t, loop.Config{Plan: plan, Executor: &looptest.Executor{}, Assets: store,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"a", "b", "c"}}}})
	if !errors.Is(err, policy.ErrEscalated) {
		t.Fatalf("Run: %v", err)
	}
	as, err := store.Query(ctx, asset.Query{Type: asset.TypeFailure})
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0].Resolved == nil || *as[0].Resolved || !strings.Contains(as[0].Title, "scripted failure c") {
		t.Errorf("failure assets: %+v", as)
	}
}

// TestLoopCriteriaEmptiedMidRun: a resume with a plan whose task lost its
// criteria escalates the task before the agent runs again.
func TestLoopCriteriaEmptiedMidRun(t *testing.T) {
	store := looptest.NewStore()
	plan := onePhase(check("T1"))
	ex := &looptest.Executor{}
	ctx, cancel := context.WithCancel(context.Background())
	// The first attempt fails; the run is then cancelled at its next step.
	v := verifyFunc(func(context.Context, *verify.Request) (*verify.Report, error) {
		cancel()
		return &verify.Report{Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: "x"}}, nil
	})
	l, err := loop.New(loop.Config{Plan: plan, Executor: ex, Verifier: v, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(ctx); !errors.Is(err, policy.ErrCancelled) {
		t.Fatalf("Run: %v", err)
	}
	emptied := onePhase(task.Task{ID: "T1", Title: "T1"})
	l, err = loop.New(loop.Config{Plan: emptied, Executor: ex, Verifier: v, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Resume(context.Background(), loop.ResumeOptions{})
	if !errors.Is(err, policy.ErrEscalated) || !strings.Contains(res.Reason, "no acceptance criteria") {
		t.Fatalf("Resume: %v (%+v)", err, res)
	}
	if n := len(ex.Requests()); n != 1 {
		t.Errorf("the agent ran %d times, want 1", n)
	}
	var changed bool
	for _, tr := range store.Transitions() {
		changed = changed || tr.Kind == policy.TransPlanChanged
	}
	if !changed {
		t.Errorf("the changed plan was not recorded")
	}
}

// TestLoopManualAcceptance: manual items are for a person at the phase's
// gate, with the task they came from; the automated checks run as usual,
// and a task with only manual items is done when the gate approves.
func TestLoopManualAcceptance(t *testing.T) {
	plan := onePhase(
		task.Task{ID: "T1", Title: "docs", Acceptance: []task.Check{{Manual: "the README example renders"}}},
		task.Task{ID: "T2", Title: "code", Acceptance: []task.Check{{Run: []string{"true"}}, {Manual: "the error reads well"}}},
	)
	for _, tc := range []struct {
		verdict policy.Verdict
		want    policy.Outcome
	}{{policy.Approve, policy.Completed}, {policy.Defer, policy.AwaitingApproval}} {
		gate := &looptest.Gate{Verdicts: []policy.Verdict{tc.verdict}}
		res, _, _ := looptest.Run(t, loop.Config{Plan: plan, Executor: &looptest.Executor{}, Verifier: verify.Acceptance{}, Gate: gate})
		if res.Outcome != tc.want {
			t.Errorf("verdict %s: outcome %s (%s), want %s", tc.verdict, res.Outcome, res.Reason, tc.want)
		}
		reqs := gate.Requests()
		if len(reqs) != 1 {
			t.Fatalf("verdict %s: %d gate requests, want 1", tc.verdict, len(reqs))
		}
		if diff := cmp.Diff([]string{"T1: the README example renders", "T2: the error reads well"}, reqs[0].Manual); diff != "" {
			t.Errorf("checklist (-want +got):\n%s", diff)
		}
		if want := "Automated passed: T1; T2 (true); please verify: T1: the README example renders; T2: the error reads well."; reqs[0].Summary != want {
			t.Errorf("summary:\n got %q\nwant %q", reqs[0].Summary, want)
		}
	}
}

// TestLoopResumeTellsWhatWasTold: what the next attempt is told of earlier
// failures (the failing output, the critical findings, the guardrail's
// warnings) is durable state, so an attempt after a resume is told what it
// would have been told without the interruption.
func TestLoopResumeTellsWhatWasTold(t *testing.T) {
	dir := testkit.GitTree(t)
	plan := onePhase(task.Task{ID: "T1", Title: "t1", Files: []string{"a.txt"}, Acceptance: []task.Check{{Run: []string{"true"}}}})
	g, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		verifier looptest.Verifier
		reviewer loop.Config
		want     func(*testing.T, executor.PromptParts)
	}{
		{"failing output", looptest.Verifier{Script: map[string][]string{"T1": {"x"}}}, loop.Config{},
			func(t *testing.T, p executor.PromptParts) {
				if len(p.Failures) != 2 || p.Failures[0].OutputTail != "FAIL x" || p.Failures[1].Kind != policy.FailInterrupted {
					t.Errorf("failures after resume: %+v", p.Failures)
				}
				if len(p.Warnings) != 1 || p.Warnings[0].Rule != "edit.scope" {
					t.Errorf("warnings after resume: %+v", p.Warnings)
				}
			}},
		{"critical findings", looptest.Verifier{}, loop.Config{Reviewer: &looptest.Reviewer{Critical: map[string][]bool{"T1": {true}}}},
			func(t *testing.T, p executor.PromptParts) {
				if len(p.Findings) == 0 || p.Findings[0].Severity != verify.SeverityCritical {
					t.Errorf("findings after resume: %+v", p.Findings)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testkit.GitTree(t)
			store := open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)
			ctx, cancel := context.WithCancel(context.Background())
			ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {
				writes("x.txt", "out of scope\n"),
				{Do: func(*executor.Request) error { cancel(); return nil }, Hang: true},
			}}}
			cfg := tc.reviewer
			cfg.Plan, cfg.WorkDir, cfg.Executor, cfg.Verifier, cfg.Guardrail, cfg.Store = plan, dir, ex, &tc.verifier, g, store
			l, err := loop.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Run(ctx); !errors.Is(err, policy.ErrCancelled) {
				t.Fatalf("Run: %v, want cancelled", err)
			}
			after := &looptest.Executor{}
			cfg.Executor = after
			if l, err = loop.New(cfg); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Resume(context.Background(), loop.ResumeOptions{}); err != nil {
				t.Fatalf("Resume: %v", err)
			}
			reqs := after.Requests()
			if len(reqs) == 0 {
				t.Fatal("no attempt after the resume")
			}
			tc.want(t, reqs[0].Parts)
		})
	}
}

// TestLoopDiagnosisSurvivesResume: the root cause buys exactly one more
// attempt, and that attempt is told the fix, even when the host was
// interrupted in between; what the debugger spent counts.
func TestLoopDiagnosisSurvivesResume(t *testing.T) {
	store := open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)
	ctx, cancel := context.WithCancel(context.Background())
	ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{}, {}, {Do: func(*executor.Request) error { cancel(); return nil }, Hang: true}}}}
	dbg := executor.DebuggerFunc(func(context.Context, *executor.DebugRequest) (*executor.Diagnosis, error) {
		return &executor.Diagnosis{Found: true, RootCause: "rc", Fix: "divide after the check", Usage: executor.Usage{InputTokens: 40, CostUSD: 0.5}}, nil
	})
	cfg := loop.Config{Plan: onePhase(check("T1")), Executor: ex, Debugger: dbg, Store: store,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T1": {"x", "x"}}}}
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Run(ctx); !errors.Is(err, policy.ErrCancelled) {
		t.Fatalf("Run: %v, want cancelled in the attempt after the debugger", err)
	}
	after := &looptest.Executor{}
	cfg.Executor = after
	if l, err = loop.New(cfg); err != nil {
		t.Fatal(err)
	}
	res, err := l.Resume(context.Background(), loop.ResumeOptions{})
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	reqs := after.Requests()
	if len(reqs) != 1 || reqs[0].Parts.Diagnosis == nil || reqs[0].Parts.Diagnosis.Fix != "divide after the check" {
		t.Fatalf("the attempt after the resume was not told the fix: %+v", reqs)
	}
	if ts := res.State.Tasks["T1"]; ts.Tokens != 40 || ts.CostUSD != 0.5 || res.State.CostUSD != 0.5 {
		t.Errorf("spend: task %d tokens $%.2f, run $%.2f; want the debugger's 40 and $0.50", ts.Tokens, ts.CostUSD, res.State.CostUSD)
	}
}

// TestLoopPacing: the plan's pacing is a wait between tasks, before the
// next is recorded as started, so a stop during it costs no attempt and a
// resume goes on.
func TestLoopPacing(t *testing.T) {
	plan := onePhase(check("T1"), check("T2"))
	plan.Pacing = task.Duration(time.Second)
	var starts []time.Time
	ex := executor.Func(func(context.Context, *executor.Request) (*executor.Result, error) {
		starts = append(starts, time.Now())
		return &executor.Result{Status: executor.StatusDone}, nil
	})
	if _, _, err := looptest.Run(t, loop.Config{Plan: plan, Executor: ex, Verifier: &looptest.Verifier{}}); err != nil {
		t.Fatal(err)
	}
	if len(starts) != 2 || starts[1].Sub(starts[0]) < time.Second {
		t.Errorf("the tasks started %v apart, want the pacing of 1s", starts[1].Sub(starts[0]))
	}

	store := open(t, filepath.Join(t.TempDir(), loop.StateDir), nil)
	ctx, cancel := context.WithCancel(context.Background())
	stopper := executor.Func(func(context.Context, *executor.Request) (*executor.Result, error) {
		time.AfterFunc(100*time.Millisecond, cancel) // during the wait after T1
		return &executor.Result{Status: executor.StatusDone}, nil
	})
	cfg := loop.Config{Plan: plan, Executor: stopper, Verifier: &looptest.Verifier{}, Store: store}
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(ctx)
	if !errors.Is(err, policy.ErrCancelled) || res.State.Tasks["T2"] != nil {
		t.Fatalf("Run: %v; T2 %+v, want cancelled before T2 started", err, res.State.Tasks["T2"])
	}
	cfg.Executor = &looptest.Executor{}
	if l, err = loop.New(cfg); err != nil {
		t.Fatal(err)
	}
	if res, err := l.Resume(context.Background(), loop.ResumeOptions{}); err != nil || res.State.Tasks["T2"].Attempts != 1 {
		t.Errorf("Resume: %v; T2 took %d attempts, want 1", err, res.State.Tasks["T2"].Attempts)
	}
}
