package policy_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// A failure that closes a pattern of going round in circles is recorded
// stuck, with its pattern as the fingerprint, so the pattern twice running
// brings the debugger.
func TestStuckRules(t *testing.T) {
	fail := func(fp string) looptest.Try { return looptest.Try{Fingerprint: fp} }
	idle := func(fp string) looptest.Try { return looptest.Try{Fingerprint: fp, Unchanged: true} }
	wide := model.Budget{Attempts: 8}
	for _, tc := range []struct {
		name   string
		stuck  *model.Stuck
		budget model.Budget
		tries  []looptest.Try
		found  bool
		want   []string
	}{
		{
			name:  "two attempts in a row that change nothing: stuck",
			tries: []looptest.Try{idle("a"), idle("b"), {}},
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail b unchanged → stuck:no-progress",
				"attempt T1#3 pass", "finish completed"},
		},
		{
			name:   "no progress twice running is two strikes",
			budget: wide,
			tries:  []looptest.Try{idle("a"), idle("b"), idle("c"), {}},
			found:  true,
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail b unchanged → stuck:no-progress",
				"attempt T1#3 fail c unchanged → stuck:no-progress", "debug T1 found=true", "attempt T1#4 pass", "finish completed"},
		},
		{
			name:  "an attempt that changed something breaks the run",
			tries: []looptest.Try{idle("a"), fail("b"), idle("c")},
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail b", "attempt T1#3 fail c unchanged",
				"finish escalated: task T1: 3 attempts used, the last: verify failure c"},
		},
		{
			name:   "a higher threshold waits longer",
			stuck:  &model.Stuck{NoProgress: 3},
			budget: wide,
			tries:  []looptest.Try{idle("a"), idle("b"), idle("c"), {}},
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail b unchanged", "attempt T1#3 fail c unchanged → stuck:no-progress",
				"attempt T1#4 pass", "finish completed"},
		},
		{
			name:   "fingerprints alternating between two: stuck",
			budget: wide,
			tries:  []looptest.Try{fail("a"), fail("b"), fail("a"), fail("b"), {}},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 fail a", "attempt T1#4 fail b → stuck:alternating:a|b",
				"attempt T1#5 pass", "finish completed"},
		},
		{
			name:   "the alternation going on is two strikes",
			budget: wide,
			tries:  []looptest.Try{fail("a"), fail("b"), fail("a"), fail("b"), fail("a")},
			want: []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 fail a", "attempt T1#4 fail b → stuck:alternating:a|b",
				"attempt T1#5 fail a → stuck:alternating:a|b", "debug T1 found=false",
				"finish halted: task T1: the failure repeated and the debugger found no root cause"},
		},
		{
			name:   "three different failures do not alternate",
			budget: wide,
			tries:  []looptest.Try{fail("a"), fail("b"), fail("c"), fail("b"), {}},
			want:   []string{"attempt T1#1 fail a", "attempt T1#2 fail b", "attempt T1#3 fail c", "attempt T1#4 fail b", "attempt T1#5 pass", "finish completed"},
		},
		{
			name:   "off",
			stuck:  &model.Stuck{Off: true},
			budget: wide,
			tries:  []looptest.Try{idle("a"), idle("b"), fail("a"), fail("b"), {}},
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail b unchanged", "attempt T1#3 fail a", "attempt T1#4 fail b",
				"attempt T1#5 pass", "finish completed"},
		},
		{
			name:  "the same failure twice with no change is two strikes, not stuck",
			tries: []looptest.Try{idle("a"), idle("a")},
			want: []string{"attempt T1#1 fail a unchanged", "attempt T1#2 fail a unchanged", "debug T1 found=false",
				"finish halted: task T1: the failure repeated and the debugger found no root cause"},
		},
		{
			name:  "the same critical findings with no change go on to the plateau",
			tries: []looptest.Try{{Critical: []string{"k"}, Unchanged: true}, {Critical: []string{"k"}, Unchanged: true}, {Critical: []string{"k"}, Unchanged: true}},
			want: []string{"attempt T1#1 critical k unchanged", "attempt T1#2 critical k unchanged", "attempt T1#3 critical k unchanged",
				"finish escalated: task T1: the same critical review findings came back three rounds running"},
		},
		{
			name:  "a claim of blocked is not stuck",
			tries: []looptest.Try{idle("a"), {Blocked: "needs a key", Unchanged: true}},
			want:  []string{"attempt T1#1 fail a unchanged", "attempt T1#2 blocked unchanged", "finish blocked: task T1: the executor is blocked: needs a key"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := onePhase(check("T1"))
			plan.Budget = tc.budget
			h := &looptest.Host{Policy: &policy.Policy{Stuck: tc.stuck}, Tries: map[string][]looptest.Try{"T1": tc.tries},
				Found: map[string]bool{"T1": tc.found}, Start: t0, MaxSteps: 50}
			got, _, err := h.Drive(context.Background(), plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}
