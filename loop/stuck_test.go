package loop_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// An agent that goes round in circles within an attempt has the attempt
// ended early, with kind stuck, and the next prompt says what it repeated;
// a long wait, a poll and work that moves on are not stuck.
func TestLoopEndsStuckAttempts(t *testing.T) {
	cmd := func(c, result string) executor.Activity { return executor.Activity{Command: c, Result: result} }
	turn := func(acted bool) executor.Activity { return executor.Activity{Turn: true, Acted: acted} }
	repeat := func(n int, a executor.Activity) []executor.Activity {
		var out []executor.Activity
		for range n {
			out = append(out, a)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		stuck    task.Stuck
		activity []executor.Activity
		wait     time.Duration // a command that runs this long before the activity
		want     string        // the first attempt's failure reason, "" for none
	}{
		{name: "the same command with the same result five times",
			activity: repeat(5, cmd("go test ./...", "FAIL calc 0.01s")),
			want:     `stuck: the agent ran "go test ./..." 5 times in a row with the same result`},
		{name: "a lower threshold",
			stuck:    task.Stuck{RepeatedCommand: 3},
			activity: repeat(3, cmd("make", "error 2")),
			want:     `stuck: the agent ran "make" 3 times in a row with the same result`},
		{name: "the same command with results that change",
			activity: []executor.Activity{cmd("go test", "FAIL 1"), cmd("go test", "FAIL 2"), cmd("go test", "FAIL 3"), cmd("go test", "FAIL 4"), cmd("go test", "ok")}},
		{name: "repeats broken by other work",
			activity: []executor.Activity{cmd("go test", "FAIL"), cmd("go test", "FAIL"), cmd("go test", "FAIL"), cmd("go test", "FAIL"),
				cmd("sed -i s/a/b/ x.go", ""), cmd("go test", "FAIL")}},
		{name: "polling CI with a wait between is not stuck",
			activity: repeat(8, cmd("sleep 30; gh run view 42", "in_progress"))},
		{name: "a CI watcher is not stuck",
			activity: repeat(8, cmd("gh run watch 42", "running"))},
		{name: "a long single build is not stuck",
			wait:     300 * time.Millisecond,
			activity: []executor.Activity{cmd("make -j2 all", "ok")}},
		{name: "four turns without a tool call",
			activity: []executor.Activity{turn(true), turn(false), turn(false), turn(false), turn(false)},
			want:     "stuck: the agent took 4 turns in a row without running or changing anything"},
		{name: "turns that act reset the count",
			activity: []executor.Activity{turn(false), turn(false), turn(false), turn(true), turn(false), turn(false), turn(false)}},
		{name: "off",
			stuck:    task.Stuck{Off: true},
			activity: repeat(9, cmd("go test", "FAIL"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := onePhase(check("T1"))
			plan.Stuck = tc.stuck
			var prompts []string
			ex := executor.Func(func(ctx context.Context, req *executor.Request) (*executor.Result, error) {
				prompts = append(prompts, req.Prompt)
				if req.Attempt > 1 {
					return &executor.Result{Status: executor.StatusDone}, nil
				}
				select {
				case <-time.After(tc.wait):
				case <-ctx.Done():
				}
				for _, a := range tc.activity {
					req.Tell(a)
				}
				// A real agent goes on until harnish stops it.
				select {
				case <-ctx.Done():
					return nil, executor.Cancelled("agent", ctx)
				case <-time.After(200 * time.Millisecond):
					return &executor.Result{Status: executor.StatusDone}, nil
				}
			})
			res, _, err := looptest.Run(t, loop.Config{Plan: plan, Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			fs := res.State.Tasks["T1"].Failures
			if tc.want == "" {
				if len(fs) != 0 || len(prompts) != 1 {
					t.Fatalf("failures %+v after %d attempts, want one attempt that passed", fs, len(prompts))
				}
				return
			}
			if len(fs) != 1 || fs[0].Kind != policy.FailStuck || fs[0].Reason != tc.want || !strings.HasPrefix(fs[0].Fingerprint, "stuck:") {
				t.Fatalf("failures %+v, want one stuck: %s", fs, tc.want)
			}
			if len(prompts) != 2 || !strings.Contains(prompts[1], tc.want) {
				t.Errorf("the next prompt does not say what was repeated:\n%s", prompts[len(prompts)-1])
			}
		})
	}
}
