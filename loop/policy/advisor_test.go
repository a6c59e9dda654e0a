package policy_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task/model"
)

// The advisor is consulted where its settings say, once per point, and its
// answers steer the run: PLAN and CORRECTION go on, STOP ends it.
func TestAdvisorRules(t *testing.T) {
	plan := func(a *model.Advisor, tasks ...model.Task) *model.Plan {
		p := onePhase(tasks...)
		p.Advisor = a
		return p
	}
	risky := func(id string) model.Task {
		t := check(id)
		t.Risk = model.RiskHigh
		return t
	}
	all := &model.Advisor{Kind: "command", Argv: []string{"advise"}}
	instead := &model.Advisor{Kind: "command", Argv: []string{"advise"}, Repeat: model.RepeatInstead}
	only := func(points ...string) *model.Advisor {
		return &model.Advisor{Kind: "command", Argv: []string{"advise"}, When: points}
	}
	planAdv := schema.Advice{Verdict: schema.AdvisePlan, Text: "read the spec first"}
	fix := schema.Advice{Verdict: schema.AdviseCorrection, Text: "use the other constructor"}
	stop := schema.Advice{Verdict: schema.AdviseStop, Text: "the task is unsafe as written"}
	same := []looptest.Try{{Fingerprint: "a"}, {Fingerprint: "a"}}
	review := []looptest.Try{{Critical: []string{"k"}}, {Critical: []string{"k"}}, {Critical: []string{"k"}}}
	for _, tc := range []struct {
		name   string
		plan   *model.Plan
		policy policy.Policy
		tries  map[string][]looptest.Try
		found  map[string]bool
		advice map[string][]schema.Advice
		want   []string
	}{
		{
			name: "no advisor: a risky task starts at once",
			plan: plan(nil, risky("T1")),
			want: []string{"attempt T1#1 pass", "finish completed"},
		},
		{
			name:   "a high-risk task: advice before its first attempt, once",
			plan:   plan(all, risky("T1"), check("T2")),
			tries:  map[string][]looptest.Try{"T1": {{Fingerprint: "a"}}},
			advice: map[string][]schema.Advice{"T1": {planAdv}},
			want:   []string{"advise T1 high-risk PLAN", "attempt T1#1 fail a", "attempt T1#2 pass", "attempt T2#1 pass", "finish completed"},
		},
		{
			name:   "the high-risk point off: no advice",
			plan:   plan(only(model.AdviseAtRepeat), risky("T1")),
			advice: map[string][]schema.Advice{"T1": {planAdv}},
			want:   []string{"attempt T1#1 pass", "finish completed"},
		},
		{
			name:   "STOP before the first attempt ends the run escalated",
			plan:   plan(all, risky("T1"), check("T2")),
			advice: map[string][]schema.Advice{"T1": {stop}},
			want: []string{"advise T1 high-risk STOP",
				"finish escalated: task T1: the advisor said STOP: the task is unsafe as written"},
		},
		{
			name: "no answer: the run goes on as if it had not asked",
			plan: plan(all, risky("T1")),
			want: []string{"advise T1 high-risk none", "attempt T1#1 pass", "finish completed"},
		},
		{
			name:   "a repeated failure: the advisor alongside, then the debugger",
			plan:   plan(all, check("T1")),
			tries:  map[string][]looptest.Try{"T1": same},
			found:  map[string]bool{"T1": true},
			advice: map[string][]schema.Advice{"T1": {fix}},
			want:   []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "advise T1 repeat CORRECTION", "debug T1 found=true", "attempt T1#3 pass", "finish completed"},
		},
		{
			name:   "a repeated failure, STOP: the debugger is not asked",
			plan:   plan(all, check("T1")),
			tries:  map[string][]looptest.Try{"T1": same},
			found:  map[string]bool{"T1": true},
			advice: map[string][]schema.Advice{"T1": {stop}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "advise T1 repeat STOP",
				"finish escalated: task T1: the advisor said STOP: the task is unsafe as written"},
		},
		{
			name:   "instead of the debugger: a CORRECTION buys exactly one more attempt",
			plan:   plan(instead, check("T1")),
			tries:  map[string][]looptest.Try{"T1": {{Fingerprint: "a"}, {Fingerprint: "a"}, {Fingerprint: "a"}}},
			advice: map[string][]schema.Advice{"T1": {fix}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "advise T1 repeat CORRECTION", "attempt T1#3 fail a",
				"finish halted: task T1: the failure repeated, and attempt 3 with the advisor's correction failed too (verify failure a)"},
		},
		{
			name:  "instead of the debugger, no answer: the task halts as with no debugger",
			plan:  plan(instead, check("T1")),
			tries: map[string][]looptest.Try{"T1": same},
			found: map[string]bool{"T1": true},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail a", "advise T1 repeat none",
				"finish halted: task T1: the failure repeated and no debugger is configured to look for a root cause"},
		},
		{
			name:   "before a plateau: PLAN buys one more round past the budget",
			plan:   plan(all, check("T1")),
			tries:  map[string][]looptest.Try{"T1": review},
			advice: map[string][]schema.Advice{"T1": {planAdv}},
			want:   []string{"attempt T1#1 critical k", "attempt T1#2 critical k", "attempt T1#3 critical k", "advise T1 plateau PLAN", "attempt T1#4 pass", "finish completed"},
		},
		{
			name:   "a plateau after the advice escalates without asking again",
			plan:   plan(all, check("T1")),
			tries:  map[string][]looptest.Try{"T1": append(review, looptest.Try{Critical: []string{"k"}})},
			advice: map[string][]schema.Advice{"T1": {planAdv, planAdv}},
			want: []string{"attempt T1#1 critical k", "attempt T1#2 critical k", "attempt T1#3 critical k", "advise T1 plateau PLAN", "attempt T1#4 critical k",
				"finish escalated: task T1: the same critical review findings came back three rounds running"},
		},
		{
			name:  "before a plateau, no answer: it escalates",
			plan:  plan(all, check("T1")),
			tries: map[string][]looptest.Try{"T1": review},
			want: []string{"attempt T1#1 critical k", "attempt T1#2 critical k", "attempt T1#3 critical k", "advise T1 plateau none",
				"finish escalated: task T1: the same critical review findings came back three rounds running"},
		},
		{
			name:   "the host's settings replace the plan's",
			plan:   plan(all, risky("T1")),
			policy: policy.Policy{Advisor: only(model.AdviseAtPlateau)},
			advice: map[string][]schema.Advice{"T1": {planAdv}},
			want:   []string{"attempt T1#1 pass", "finish completed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy
			h := &looptest.Host{Policy: &p, Tries: tc.tries, Found: tc.found, Advice: tc.advice, Start: t0, MaxSteps: 100}
			got, _, err := h.Drive(context.Background(), tc.plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

// An advisor's answer is kept in the state with the attempt count it came
// after, and a resumed task is advised afresh.
func TestAdviceInState(t *testing.T) {
	p := onePhase(model.Task{ID: "T1", Title: "T1", Risk: model.RiskHigh, Acceptance: []model.Check{{Run: []string{"true"}}}})
	p.Advisor = &model.Advisor{Kind: "command", Argv: []string{"advise"}}
	h := &looptest.Host{Policy: &policy.Policy{}, Start: t0,
		Tries:  map[string][]looptest.Try{"T1": {{Fingerprint: "a"}, {Fingerprint: "b"}, {Fingerprint: "c"}}},
		Advice: map[string][]schema.Advice{"T1": {{Verdict: schema.AdvisePlan, Text: "x"}, {Verdict: schema.AdvisePlan, Text: "y"}}}}
	_, st, err := h.Drive(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []policy.Advised{{Point: schema.AtHighRisk, Attempt: 0, Verdict: schema.AdvisePlan, Text: "x"}}
	if diff := cmp.Diff(want, st.Tasks["T1"].Advice); diff != "" {
		t.Fatalf("advice in state (-want +got):\n%s", diff)
	}
	ts, err := h.Policy.Resume(st, false, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		if err := st.Apply(tr); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.Tasks["T1"].Advice) != 0 {
		t.Fatalf("a reopened task keeps its old advice: %+v", st.Tasks["T1"].Advice)
	}
	h.Tries = map[string][]looptest.Try{}
	got, _, err := h.Drive(context.Background(), p, st)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"advise T1 high-risk PLAN", "attempt T1#4 pass", "finish completed"}, got); diff != "" {
		t.Errorf("resumed trace (-want +got):\n%s", diff)
	}
}
