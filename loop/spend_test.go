package loop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// TestSpendAccounting: what each attempt spends is summed per task and per
// run, persisted, passed to the executor as what is left, and enforced: a
// run that uses up its tokens or its cost ends budget-exceeded, and resumes
// when the plan's budget is raised.
func TestSpendAccounting(t *testing.T) {
	tests := []struct {
		name   string
		budget task.Budget
		raised task.Budget
		usage  executor.Usage
		// wantTokens and wantCost are what T2's attempt is told is left.
		wantTokens int64
		wantCost   float64
	}{
		{name: "tokens", budget: task.Budget{Tokens: 1000}, raised: task.Budget{Tokens: 5000},
			usage: executor.Usage{InputTokens: 700, OutputTokens: 400}, wantTokens: 3900},
		{name: "cost", budget: task.Budget{CostUSD: 1}, raised: task.Budget{CostUSD: 3},
			usage: executor.Usage{InputTokens: 10, CostUSD: 1.25}, wantCost: 1.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := looptest.NewStore()
			plan := func(b task.Budget) *task.Plan {
				p := twoPhasePlan()
				p.Budget = b
				p.Phases[0].Milestone = &task.Milestone{Gate: new(bool)} // no stop between the phases
				return p
			}
			ex := &looptest.Executor{Script: map[string][]looptest.Act{"T1": {{Usage: tt.usage}}, "T2": {{Usage: tt.usage}}}}
			cfg := loop.Config{Plan: plan(tt.budget), Executor: ex, Verifier: &looptest.Verifier{}, Store: store,
				Now: (&looptest.Clock{}).Now}
			l, err := loop.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := l.Run(context.Background())
			if !errors.Is(err, policy.ErrBudgetExceeded) || res.Outcome.ExitCode() != 4 {
				t.Fatalf("Run: %v", err)
			}
			if got := res.State.Tasks["T1"]; got.Tokens != tt.usage.Tokens() || got.CostUSD != tt.usage.CostUSD {
				t.Errorf("T1 spent %d tokens, $%.2f; want %d, $%.2f", got.Tokens, got.CostUSD, tt.usage.Tokens(), tt.usage.CostUSD)
			}
			// The same budget again stops at once; no attempt runs.
			l, _ = loop.New(cfg)
			if res, err = l.Resume(context.Background(), loop.ResumeOptions{}); !errors.Is(err, policy.ErrBudgetExceeded) || len(ex.Requests()) != 1 {
				t.Fatalf("Resume with the same budget: %v after %d attempts", err, len(ex.Requests()))
			}
			cfg.Plan = plan(tt.raised)
			l, _ = loop.New(cfg)
			if res, err = l.Resume(context.Background(), loop.ResumeOptions{}); err != nil {
				t.Fatalf("Resume with a raised budget: %v (%s)", err, res.Reason)
			}
			reqs := ex.Requests()
			if len(reqs) != 3 || reqs[1].Task.ID != "T2" {
				t.Fatalf("%d attempts after the resume, want T1, T2, T3", len(reqs))
			}
			if got := reqs[1].Limits; got.Tokens != tt.wantTokens || got.CostUSD != tt.wantCost {
				t.Errorf("T2 was told %d tokens and $%.2f are left, want %d, $%.2f", got.Tokens, got.CostUSD, tt.wantTokens, tt.wantCost)
			}
			// What was spent survives in the store.
			st, err := store.Load(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if want := 2 * tt.usage.Tokens(); st.Tokens != want || st.CostUSD != 2*tt.usage.CostUSD {
				t.Errorf("the run spent %d tokens, $%.2f; want %d, $%.2f", st.Tokens, st.CostUSD, want, 2*tt.usage.CostUSD)
			}
		})
	}
}
