package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

//go:embed assets/page.html assets/page.css assets/page.js
var assets embed.FS

var (
	tmpl = template.Must(template.ParseFS(assets, "assets/page.html"))
	// The page's own style and script, trusted: they are ours, not the run's.
	pageCSS = template.CSS(mustRead("assets/page.css"))
	pageJS  = template.JS(mustRead("assets/page.js"))
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// planIndex is the plan laid out for the page: phases, each a graph of its
// tasks in layers (a task sits one layer after the last of its
// dependencies in the phase), and where each task is.
type planIndex struct {
	plan   *task.Plan
	phases []phaseLayout
	tasks  map[string]taskRef
}

type phaseLayout struct {
	ph     *task.Phase
	layers [][]*task.Task
}

type taskRef struct {
	t     *task.Task
	phase int // index in plan.Phases
	order int // position in the plan
}

func indexPlan(p *task.Plan) *planIndex {
	ix := &planIndex{plan: p, tasks: map[string]taskRef{}}
	if p == nil {
		return ix
	}
	order := 0
	for i := range p.Phases {
		ph := &p.Phases[i]
		for k := range ph.Tasks {
			ix.tasks[ph.Tasks[k].ID] = taskRef{t: &ph.Tasks[k], phase: i, order: order}
			order++
		}
	}
	for i := range p.Phases {
		ph := &p.Phases[i]
		depth := make(map[string]int, len(ph.Tasks))
		var layerOf func(t *task.Task, guard int) int
		layerOf = func(t *task.Task, guard int) int {
			if d, ok := depth[t.ID]; ok {
				return d
			}
			depth[t.ID] = 0 // a cycle (a plan that did not validate) stops here
			d := 0
			for _, dep := range t.DependsOn {
				if r, ok := ix.tasks[dep]; ok && r.phase == i && guard < len(ph.Tasks) {
					d = max(d, layerOf(r.t, guard+1)+1)
				}
			}
			depth[t.ID] = d
			return d
		}
		var layers [][]*task.Task
		for k := range ph.Tasks {
			d := layerOf(&ph.Tasks[k], 0)
			for len(layers) <= d {
				layers = append(layers, nil)
			}
			layers[d] = append(layers[d], &ph.Tasks[k])
		}
		ix.phases = append(ix.phases, phaseLayout{ph: ph, layers: layers})
	}
	return ix
}

// cardView is what a task's card shows.
type cardView struct {
	ID, Title, Status string
	Meta              string
	Needs             []string
	Reason            string
	Failures          []policy.Failure
	Diagnosis         *policy.Diagnosis
	Open              bool // the failures are shown unfolded: the task stopped on them
}

func newCard(t *task.Task, ts *policy.TaskState) cardView {
	c := cardView{ID: t.ID, Title: t.Title, Status: string(policy.StatusPending), Needs: t.DependsOn}
	if ts == nil {
		return c
	}
	c.Status, c.Reason, c.Failures, c.Diagnosis = string(ts.Status), ts.Reason, ts.Failures, ts.Diagnosis
	c.Open = ts.Status == policy.StatusEscalated || ts.Status == policy.StatusHalted || ts.Status == policy.StatusBlocked
	var meta []byte
	if ts.Attempts > 0 {
		meta = fmt.Appendf(meta, "attempt %d", ts.Attempts)
		if ts.Status.Terminal() || ts.Finished == ts.Attempts {
			meta = fmt.Appendf(meta[:0], "%d attempt%s", ts.Attempts, plural(ts.Attempts))
		}
		if ts.Voided > 0 {
			meta = fmt.Appendf(meta, " (%d voided)", ts.Voided)
		}
	}
	if ts.Elapsed > 0 {
		meta = fmt.Appendf(meta, " · %s", ts.Elapsed.Round(time.Second))
	}
	if ts.Tokens > 0 {
		meta = fmt.Appendf(meta, " · %s tokens", count(ts.Tokens))
	}
	if ts.CostUSD > 0 {
		meta = fmt.Appendf(meta, " · $%.2f", ts.CostUSD)
	}
	if ts.Committed && ts.Commit != "" {
		meta = fmt.Appendf(meta, " · commit %.10s", ts.Commit)
	}
	c.Meta = string(bytes.TrimPrefix(meta, []byte(" · ")))
	return c
}

func renderCard(c cardView) template.HTML {
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "card", c); err != nil {
		panic(err) // the template and its data are ours: a bug
	}
	return template.HTML(b.String())
}

// summaryView is the header: the run, its spend, what runs, the gate.
type summaryView struct {
	Plan, Run, Branch   string
	Status, StatusClass string
	Reason, SharedCause string
	Err                 string
	Counts              []statusCount
	Cycles              int
	Elapsed             time.Duration
	Tokens, Cost        string
	Updated, UpdatedISO string
	Running             []runningView
	Queue               []string
	Gate                *gateView
}

type statusCount struct {
	Status string
	N      int
}

type runningView struct {
	ID      string
	Attempt int
}

type gateView struct {
	Phase, Title, Next string
	Checklist          []string
	CanApprove         bool
}

var statusOrder = []policy.TaskStatus{policy.StatusRunning, policy.StatusDone, policy.StatusPending,
	policy.StatusEscalated, policy.StatusHalted, policy.StatusBlocked}

func newSummary(ix *planIndex, st *policy.RunState, queue []string, canApprove bool, errText string) summaryView {
	s := summaryView{Status: "no run yet", StatusClass: "none", Err: errText}
	if ix.plan != nil {
		s.Plan = ix.plan.Name
	}
	if st == nil {
		return s
	}
	s.Plan, s.Run, s.Branch = st.Plan, st.Run, st.Branch
	s.Reason, s.SharedCause = st.Reason, st.SharedCause
	s.Cycles, s.Elapsed = st.Cycles, st.Elapsed.Round(time.Second)
	s.Tokens, s.Cost = count(st.Tokens), fmt.Sprintf("$%.2f", st.CostUSD)
	if !st.Updated.IsZero() {
		s.Updated, s.UpdatedISO = st.Updated.Local().Format("Jan 2 15:04:05"), st.Updated.Format(time.RFC3339)
	}
	switch {
	case st.Outcome == policy.Completed:
		s.Status, s.StatusClass = string(st.Outcome), "completed"
	case st.Outcome == policy.AwaitingApproval || st.AwaitingGate != "":
		s.Status, s.StatusClass = "awaiting approval", "waiting"
	case st.Outcome != "":
		s.Status, s.StatusClass = string(st.Outcome), "stopped"
	default:
		s.Status, s.StatusClass = "running", "running"
	}
	// Counted over the tasks the run has touched: O(started), not O(plan).
	n := map[policy.TaskStatus]int{}
	touched := 0
	for id, ts := range st.Tasks {
		if _, ok := ix.tasks[id]; ok || ix.plan == nil {
			n[ts.Status]++
			touched++
		}
		if ts.Status == policy.StatusRunning {
			s.Running = append(s.Running, runningView{ID: id, Attempt: ts.Attempts})
		}
	}
	n[policy.StatusPending] += len(ix.tasks) - touched
	for _, status := range statusOrder {
		if n[status] > 0 {
			s.Counts = append(s.Counts, statusCount{Status: string(status), N: n[status]})
		}
	}
	slices.SortFunc(s.Running, func(a, b runningView) int {
		return ix.tasks[a.ID].order - ix.tasks[b.ID].order
	})
	if st.Outcome == "" {
		s.Queue = queue
	} else {
		s.Running = nil // a run that ended has nothing running, whatever a crash left
	}
	if st.AwaitingGate != "" && (st.Outcome == "" || st.Outcome == policy.AwaitingApproval) {
		s.Gate = newGate(ix, st.AwaitingGate, canApprove)
	}
	return s
}

func newGate(ix *planIndex, phase string, canApprove bool) *gateView {
	g := &gateView{Phase: phase, CanApprove: canApprove}
	if ix.plan == nil {
		return g
	}
	for i := range ix.plan.Phases {
		ph := &ix.plan.Phases[i]
		if ph.ID != phase {
			continue
		}
		g.Title = ph.Title
		g.Checklist = policy.ManualItems(ph)
		if ph.Milestone != nil {
			g.Checklist = append(g.Checklist, ph.Milestone.Manual...)
		}
		if i+1 < len(ix.plan.Phases) {
			g.Next = ix.plan.Phases[i+1].ID
		}
	}
	return g
}

// pageView is the whole page.
type pageView struct {
	Nonce   string
	CSS     template.CSS
	JS      template.JS
	Seq     string // the cursor the page's live updates start from
	Live    bool
	Summary summaryView
	Spend   chartView
	Phases  []phaseView
}

type phaseView struct {
	ID, Title string
	Count     int
	Parallel  int
	Layers    []template.HTML // each layer's cards, rendered
}

func count(n int64) string {
	switch {
	case n >= 10_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + "M"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
