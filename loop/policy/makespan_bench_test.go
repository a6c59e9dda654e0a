package policy_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task/model"
)

// dag is a synthetic plan of n tasks in one phase run w at a time: each
// depends on up to two of the fifty before it, and takes a time between 4
// and 16 ms to carry out.
func dag(n, w int, seed uint64) (*model.Plan, map[string]time.Duration) {
	r := rand.New(rand.NewPCG(seed, seed))
	ph := model.Phase{ID: "p", Parallel: w}
	took := map[string]time.Duration{}
	for i := range n {
		t := model.Task{ID: fmt.Sprintf("T%d", i), Title: "t", Acceptance: []model.Check{{Run: []string{"true"}}}}
		for range r.IntN(3) {
			if i > 0 {
				dep := fmt.Sprintf("T%d", max(0, i-1-r.IntN(50)))
				if !contains(t.DependsOn, dep) {
					t.DependsOn = append(t.DependsOn, dep)
				}
			}
		}
		took[t.ID] = time.Duration(4+r.IntN(13)) * time.Millisecond
		ph.Tasks = append(ph.Tasks, t)
	}
	return &model.Plan{Version: "1", Name: "dag", Phases: []model.Phase{ph}}, took
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// ideal is the lower bound of any schedule of the plan on w workers: the
// longest chain of dependencies, or all the work shared out evenly.
func ideal(plan *model.Plan, took map[string]time.Duration, w int) time.Duration {
	finish := map[string]time.Duration{}
	var work, path time.Duration
	for _, t := range plan.Phases[0].Tasks { // dependencies come first
		var start time.Duration
		for _, d := range t.DependsOn {
			start = max(start, finish[d])
		}
		finish[t.ID] = start + took[t.ID]
		path = max(path, finish[t.ID])
		work += took[t.ID]
	}
	return max(path, work/time.Duration(w))
}

// schedule is the makespan of the plan on w workers under the policy's own
// rule (start the ready tasks in plan order whenever a worker is free) with
// no time spent between tasks: what the run would take if harnish cost
// nothing. Fed the times the tasks really took, it is the floor the
// measured run is held to.
func schedule(plan *model.Plan, took map[string]time.Duration, w int) time.Duration {
	tasks := plan.Phases[0].Tasks
	end := map[string]time.Duration{} // of tasks started
	var now time.Duration
	running := 0
	for len(end) < len(tasks) || running > 0 {
		running = 0
		for _, e := range end {
			if e > now {
				running++
			}
		}
		for _, t := range tasks {
			if running >= w {
				break
			}
			if _, started := end[t.ID]; started {
				continue
			}
			ready := true
			for _, d := range t.DependsOn {
				if e, ok := end[d]; !ok || e > now {
					ready = false
					break
				}
			}
			if ready {
				end[t.ID] = now + took[t.ID]
				running++
			}
		}
		next := time.Duration(-1)
		for _, e := range end {
			if e > now && (next < 0 || e < next) {
				next = e
			}
		}
		if next < 0 {
			if len(end) == len(tasks) {
				break
			}
			continue
		}
		now = next
	}
	var span time.Duration
	for _, e := range end {
		span = max(span, e)
	}
	return span
}

// sleepHost carries each attempt out by sleeping its task's time: an agent
// whose work costs time and no CPU. It records how long each really took.
type sleepHost struct {
	p    *policy.Policy
	took map[string]time.Duration
	mu   sync.Mutex
	st   *policy.RunState
	real map[string]time.Duration
}

func (h *sleepHost) Now() time.Time { return time.Now() }

func (h *sleepHost) Commit(_ context.Context, ts []policy.Transition) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range ts {
		if err := h.st.Apply(t); err != nil {
			return err
		}
	}
	return nil
}

func (h *sleepHost) Take(ctx context.Context, s policy.Step) ([]policy.Transition, error) {
	start := time.Now()
	time.Sleep(h.took[s.Task])
	slept := time.Since(start)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.real[s.Task] = slept
	return h.p.ObserveAttempt(h.st, policy.AttemptReport{Task: s.Task, Attempt: s.Attempt}, time.Now())
}

// BenchmarkMakespan runs a 1,000-task DAG whose attempts sleep, N at a
// time, and reports the makespan against the ideal bound of the work done,
// max(critical path, total work / N) of the times the sleeps really took
// (makespan/ideal: a sleep overruns its time by a timer's slack, which is
// the work's, not harnish's), and against the floor measured in the same
// run: the policy's own schedule of those times with nothing spent between
// tasks (makespan/floor). harnish's own time per task is the makespan
// beyond that floor, shared out over the tasks each worker carried.
//
//	go test -run '^$' -bench Makespan -benchtime 1x ./loop/policy/
func BenchmarkMakespan(b *testing.B) {
	for _, w := range []int{4, 16} {
		b.Run(fmt.Sprintf("N=%d", w), func(b *testing.B) {
			plan, took := dag(1000, w, 1)
			bound := ideal(plan, took, w)
			if s := schedule(plan, took, w); float64(s) > 1.05*float64(bound) {
				b.Logf("the policy's schedule of the planned times is %.3f× the ideal", float64(s)/float64(bound))
			}
			var ratios, floors, over []float64
			for i := range b.N {
				_ = i
				st, err := policy.Replay(policy.Transition{Kind: policy.TransRunStarted, Run: "r", Plan: plan.Name})
				if err != nil {
					b.Fatal(err)
				}
				h := &sleepHost{p: &policy.Policy{Budget: model.Budget{Cycles: 10000}}, took: took, st: st, real: map[string]time.Duration{}}
				start := time.Now()
				end, err := h.p.Drive(context.Background(), plan, st, h)
				span := time.Since(start)
				if err != nil || end.Outcome != policy.Completed {
					b.Fatalf("Drive = %+v, %v", end, err)
				}
				floor := schedule(plan, h.real, w)
				ratios = append(ratios, float64(span)/float64(ideal(plan, h.real, w)))
				floors = append(floors, float64(span)/float64(floor))
				over = append(over, float64(span-floor)/float64(len(took))*float64(w))
			}
			b.ReportMetric(median(ratios), "makespan/ideal")
			b.ReportMetric(median(floors), "makespan/floor")
			b.ReportMetric(median(over)/1e3, "overhead-µs/task")
			b.ReportMetric(float64(bound)/1e6, "planned-ideal-ms")
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
