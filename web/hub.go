package web

import (
	"encoding/json"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// hub holds the run as the page shows it: the state, each task's card
// rendered once and again only when a transition touches the task, and the
// recent changes as patches for the pages that follow them live.
type hub struct {
	canApprove bool
	now        func() time.Time

	mu     sync.RWMutex
	ix     *planIndex
	st     *policy.RunState // nil: no run yet
	cards  map[string]template.HTML
	queue  []string
	spend  *spendHistory
	errMsg string
	// epoch counts resets: a page of an older epoch reloads.
	epoch   uint64
	patches []patch // the latest, in order
	dropped int64   // patches cut from the front of patches
	changed chan struct{}
}

// patch is one change of the page: the parts re-rendered after the
// transitions up to Seq.
type patch struct {
	From, Seq uint64
	Cursor    string // the page's place after it
	Data      []byte // the SSE event's data
}

// maxPatches bounds the changes kept for pages that fall behind; one further
// behind reloads.
const maxPatches = 1024

func newHub(canApprove bool) *hub {
	return &hub{canApprove: canApprove, now: time.Now, ix: indexPlan(nil), changed: make(chan struct{})}
}

// reset shows st (nil: no run) with plan, all anew; pages that follow
// reload.
func (h *hub) reset(plan *task.Plan, st *policy.RunState, steps []spendStep) {
	ix, cards := indexPlan(plan), renderCards(plan, st)
	var spend *spendHistory
	if st != nil && st.Run != "" {
		spend = newSpendHistory(st, steps)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ix, h.st, h.cards, h.spend = ix, st, cards, spend
	h.newEpoch()
}

// replan shows the run with a changed plan; pages that follow reload.
func (h *hub) replan(plan *task.Plan) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ix, h.cards = indexPlan(plan), renderCards(plan, h.st)
	h.newEpoch()
}

func (h *hub) newEpoch() {
	h.epoch++
	h.dropped += int64(len(h.patches))
	h.patches = h.patches[:0]
	h.notify()
}

// renderCards renders every task's card.
func renderCards(plan *task.Plan, st *policy.RunState) map[string]template.HTML {
	ix := indexPlan(plan)
	cards := make(map[string]template.HTML, len(ix.tasks))
	for id, r := range ix.tasks {
		var ts *policy.TaskState
		if st != nil {
			ts = st.Tasks[id]
		}
		cards[id] = renderCard(newCard(r.t, ts))
	}
	return cards
}

// apply shows the transitions committed after the state the hub holds. It
// reports false when one does not apply: the caller resets.
func (h *hub) apply(ts []policy.Transition) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.st == nil {
		h.st = &policy.RunState{}
	}
	from := h.st.Seq
	touched := map[string]bool{}
	spent := false
	for _, t := range ts {
		if err := h.st.Apply(t); err != nil {
			return false
		}
		if h.spend == nil && h.st.Run != "" {
			h.spend = newSpendHistory(h.st, nil)
		}
		if s, ok := spendOf(h.st.Seq, t); ok && h.spend != nil {
			h.spend.add(s)
			spent = true
		}
		if t.Task != "" {
			touched[t.Task] = true
		}
	}
	if slices.ContainsFunc(ts, func(t policy.Transition) bool { return t.Kind == policy.TransRunStarted }) {
		// The page had no run to show: it is read anew.
		h.cards = renderCards(h.ix.plan, h.st)
		h.newEpoch()
		return true
	}
	var parts []patchPart
	for id := range touched {
		r, ok := h.ix.tasks[id]
		if !ok {
			continue
		}
		card := renderCard(newCard(r.t, h.st.Tasks[id]))
		h.cards[id] = card
		parts = append(parts, patchPart{ID: "t-" + id, HTML: string(card)})
	}
	parts = append(parts, patchPart{ID: "summary", HTML: h.renderSummary()})
	if spent {
		parts = append(parts, patchPart{ID: "spend", HTML: h.renderSpend()})
	}
	h.publish(from, parts)
	return true
}

// setQueue shows the merge queue.
func (h *hub) setQueue(q []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.queue = q
	h.publishSummary()
}

// setErr shows a problem of the follower (empty: none), and reports
// whether it is news.
func (h *hub) setErr(msg string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.errMsg == msg {
		return false
	}
	h.errMsg = msg
	h.publishSummary()
	return true
}

func (h *hub) publishSummary() {
	seq := uint64(0)
	if h.st != nil {
		seq = h.st.Seq
	}
	h.publish(seq, []patchPart{{ID: "summary", HTML: h.renderSummary()}})
}

type patchPart struct {
	ID   string `json:"id"`
	HTML string `json:"html"`
}

// publish keeps a patch of parts and wakes the pages that follow.
func (h *hub) publish(from uint64, parts []patchPart) {
	seq := uint64(0)
	if h.st != nil {
		seq = h.st.Seq
	}
	data, _ := json.Marshal(struct {
		Seq   string      `json:"seq"`
		Title string      `json:"title"`
		Parts []patchPart `json:"parts"`
	}{h.cursor(seq), h.title(), parts})
	if len(h.patches) == maxPatches {
		h.patches = append(h.patches[:0], h.patches[maxPatches/2:]...)
		h.dropped += maxPatches / 2
	}
	h.patches = append(h.patches, patch{From: from, Seq: seq, Cursor: h.cursor(seq), Data: data})
	h.notify()
}

func (h *hub) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// cursor is where a page stands: the hub's epoch and the state's sequence
// number, as the page sends it back ("since").
func (h *hub) cursor(seq uint64) string {
	return strconv.FormatUint(h.epoch, 10) + "-" + strconv.FormatUint(seq, 10)
}

// since returns the patches a page has not seen, and a channel closed at
// the next change; reload says the page must be read anew. The first call
// passes next < 0 and the cursor the page was rendered at; later calls pass
// the next they were given.
func (h *hub) since(cursor string, next int64) (out []patch, _ int64, wait <-chan struct{}, reload bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	wait = h.changed
	if next < 0 {
		ep, seq, ok := parseCursor(cursor)
		if !ok || ep != h.epoch {
			return nil, 0, wait, true
		}
		// The patches from the first that ends at or after the page's
		// place: one at its very place (a queue change) may be sent twice,
		// which is harmless.
		i := len(h.patches)
		for i > 0 && h.patches[i-1].Seq >= seq {
			i--
		}
		cur := uint64(0)
		if h.st != nil {
			cur = h.st.Seq
		}
		if (i < len(h.patches) && h.patches[i].From > seq) || (i == len(h.patches) && cur > seq) {
			return nil, 0, wait, true // what the page lacks fell out of the window
		}
		next = h.dropped + int64(i)
	}
	if next < h.dropped {
		return nil, 0, wait, true
	}
	out = slices.Clone(h.patches[next-h.dropped:])
	return out, h.dropped + int64(len(h.patches)), wait, false
}

func parseCursor(s string) (epoch, seq uint64, ok bool) {
	e, q, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	epoch, err1 := strconv.ParseUint(e, 10, 64)
	seq, err2 := strconv.ParseUint(q, 10, 64)
	return epoch, seq, err1 == nil && err2 == nil
}

func (h *hub) title() string {
	s := newSummary(h.ix, h.st, nil, false, "")
	if s.Plan == "" {
		return "harnish"
	}
	return s.Plan + " · " + s.Status + " · harnish"
}

func (h *hub) renderSummary() string {
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, "summary", newSummary(h.ix, h.st, h.queue, h.canApprove, h.errMsg)); err != nil {
		panic(err)
	}
	return b.String()
}

func (h *hub) renderSpend() string {
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, "spend", h.spend.chart(h.chartEnd())); err != nil {
		panic(err)
	}
	return b.String()
}

// chartEnd is where the spend chart's time axis ends: now while the run
// goes on, its last change once it has ended.
func (h *hub) chartEnd() time.Time {
	if h.st != nil && h.st.Outcome != "" {
		return h.st.Updated
	}
	return h.now()
}

// page fills the page's view; the caller holds h.mu for reading while it
// renders.
func (h *hub) page() pageView {
	v := pageView{CSS: pageCSS, JS: pageJS, Live: true}
	seq := uint64(0)
	if h.st != nil {
		seq = h.st.Seq
	}
	v.Seq = h.cursor(seq)
	v.Summary = newSummary(h.ix, h.st, h.queue, h.canApprove, h.errMsg)
	v.Spend = h.spend.chart(h.chartEnd())
	if h.st == nil || h.st.Run == "" {
		return v
	}
	for _, pl := range h.ix.phases {
		pv := phaseView{ID: pl.ph.ID, Title: pl.ph.Title, Count: len(pl.ph.Tasks), Parallel: h.ix.plan.Parallelism(pl.ph)}
		for _, layer := range pl.layers {
			// One value per layer: the template sees tens of values, not
			// one per task, and each card is copied once.
			n := 0
			for _, t := range layer {
				n += len(h.cards[t.ID])
			}
			var b strings.Builder
			b.Grow(n)
			for _, t := range layer {
				b.WriteString(string(h.cards[t.ID]))
			}
			pv.Layers = append(pv.Layers, template.HTML(b.String()))
		}
		v.Phases = append(v.Phases, pv)
	}
	return v
}
