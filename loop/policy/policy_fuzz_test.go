package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// FuzzPolicy drives the policy with arbitrary component behaviour over a
// small plan and checks the rules that must hold whatever happens: the run
// ends; no task exceeds its attempts but for the one the debugger buys; the
// debugger is asked at most once per task and only after two strikes; and no
// attempt follows two strikes without the debugger in between.
func FuzzPolicy(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 2, 3, 4, 5}, uint8(3))
	f.Add([]byte{1, 1, 1, 1, 1, 1}, uint8(5))
	f.Add([]byte{6, 7, 8, 9, 10, 11, 0, 1}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, attempts uint8) {
		attempts = 1 + attempts%6
		plan := &model.Plan{Version: "1", Name: "p", Budget: model.Budget{Attempts: int(attempts)}, Phases: []model.Phase{
			{ID: "p1", Title: "P1", Tasks: []model.Task{check("T1"), check("T2", "T1"), check("T3")}},
			{ID: "p2", Title: "P2", Tasks: []model.Task{check("T4")}},
		}}
		sc := script{tries: map[string][]try{}, debug: map[string]bool{}, gates: []policy.Verdict{policy.Approve}}
		for i, b := range data {
			id := fmt.Sprintf("T%d", 1+i%4)
			var tr try
			switch b % 8 {
			case 1:
				tr.fp = "a"
			case 2:
				tr.fp = "b"
			case 3:
				tr.review = []string{"k"}
			case 4:
				tr.blocked = "why"
			case 5:
				tr.fp = "a"
				sc.debug[id] = true
			case 6:
				tr.tokens = 10
				tr.fp = fmt.Sprint(b)
			case 7:
				if b > 200 {
					tr.stop = "rule"
				}
			}
			sc.tries[id] = append(sc.tries[id], tr)
		}
		p := policy.Policy{ContinueIndependent: len(data)%2 == 1}
		trace, st := drive(t, &p, plan, sc, nil)
		running := 0
		for _, ts := range st.Tasks {
			if ts.Status == policy.StatusRunning {
				running++
			}
		}
		if running != st.Running {
			t.Fatalf("Running = %d, but %d tasks run:\n%q", st.Running, running, trace)
		}
		for id, ts := range st.Tasks {
			limit := int(attempts)
			if ts.DebuggedAt > 0 {
				limit = max(limit, ts.DebuggedAt+1)
			}
			if ts.Attempts > limit {
				t.Fatalf("task %s made %d attempts, limit %d:\n%q", id, ts.Attempts, limit, trace)
			}
			if ts.DebuggedAt > 0 {
				f := ts.Failures
				var a, b policy.Failure
				for _, x := range f {
					if x.Attempt == ts.DebuggedAt-1 {
						a = x
					}
					if x.Attempt == ts.DebuggedAt {
						b = x
					}
				}
				if a.Fingerprint == "" || a.Fingerprint != b.Fingerprint {
					t.Fatalf("task %s: debugger after attempt %d without two strikes:\n%q", id, ts.DebuggedAt, trace)
				}
			}
		}
		debugs := map[string]int{}
		fails := map[string][]string{} // per task, the outcome of each attempt since the last debug
		for _, line := range trace {
			var id, rest string
			if _, err := fmt.Sscanf(line, "debug %s", &id); err == nil {
				debugs[id]++
				if debugs[id] > 1 {
					t.Fatalf("debugger asked twice about %s:\n%q", id, trace)
				}
				fails[id] = nil
				continue
			}
			var n int
			if _, err := fmt.Sscanf(line, "attempt T%d#", &n); err != nil {
				continue
			}
			id = fmt.Sprintf("T%d", n)
			if f := fails[id]; len(f) >= 2 && f[len(f)-1] == f[len(f)-2] && len(f[len(f)-1]) > 5 && debugs[id] == 0 {
				t.Fatalf("a third blind attempt at %s after two strikes (%s):\n%q", id, f[len(f)-1], trace)
			}
			_, rest, _ = strings.Cut(line, " ")
			_, rest, _ = strings.Cut(rest, " ")
			if strings.HasPrefix(rest, "fail ") {
				fails[id] = append(fails[id], rest)
			} else {
				fails[id] = append(fails[id], "")
			}
		}
	})
}
