package web

import (
	"fmt"
	"strconv"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// spendStep is what one transition spent.
type spendStep struct {
	Seq    uint64
	Time   time.Time
	Tokens int64
	Cost   float64
}

// spendOf returns the spend a transition records, if any.
func spendOf(seq uint64, t policy.Transition) (spendStep, bool) {
	switch t.Kind {
	case policy.TransAttemptFinished, policy.TransDebuggerFinished:
		if t.Tokens > 0 || t.CostUSD > 0 {
			return spendStep{Seq: seq, Time: t.Time, Tokens: t.Tokens, Cost: t.CostUSD}, true
		}
	}
	return spendStep{}, false
}

// spendHistory is the run's spend over time: a starting point (what the
// state holds that the journals no longer show) and the steps since.
type spendHistory struct {
	start      time.Time
	baseTokens int64
	baseCost   float64
	folded     bool // the base holds spend of transitions no longer in a journal
	steps      []spendStep
}

// maxSpendSteps bounds the steps kept; older ones are folded into the base.
const maxSpendSteps = 4096

// newSpendHistory starts a history at st from steps read from the journals
// (those after st.Seq are not yet in st and are left out).
func newSpendHistory(st *policy.RunState, steps []spendStep) *spendHistory {
	h := &spendHistory{start: st.Started, baseTokens: st.Tokens, baseCost: st.CostUSD}
	for _, s := range steps {
		if s.Seq > st.Seq {
			break
		}
		h.steps = append(h.steps, s)
		h.baseTokens -= s.Tokens
		h.baseCost -= s.Cost
	}
	if h.baseTokens < 0 || h.baseCost < -1e-9 { // journals that do not add up: show the totals alone
		h.baseTokens, h.baseCost, h.steps = st.Tokens, st.CostUSD, nil
	}
	h.folded = h.baseTokens > 0 || h.baseCost > 1e-9
	if h.folded && len(h.steps) > 0 {
		h.start = h.steps[0].Time
	}
	return h
}

func (h *spendHistory) add(s spendStep) {
	h.steps = append(h.steps, s)
	if len(h.steps) > maxSpendSteps {
		drop := len(h.steps) - maxSpendSteps/2
		for _, o := range h.steps[:drop] {
			h.baseTokens += o.Tokens
			h.baseCost += o.Cost
		}
		h.steps = append(h.steps[:0], h.steps[drop:]...)
		h.start, h.folded = h.steps[0].Time, true
	}
}

// chartView is the spend chart, drawn as SVG paths on the server.
type chartView struct {
	Points                 int
	W, H, X0, X1, Y0, Y1   int
	LabelY, LegendX        int
	TokensLine, TokensArea string
	CostLine               string
	From, To               string
	CostLabel, TokensLabel string
	Folded                 bool
}

// maxChartPoints bounds the points drawn: the steps are sampled down.
const maxChartPoints = 400

func (h *spendHistory) chart(now time.Time) chartView {
	c := chartView{W: 1200, H: 170, X0: 8, Y1: 40}
	c.X1, c.Y0, c.LabelY, c.LegendX = c.W-8, c.H-22, c.H-6, c.W-8
	if h == nil || (len(h.steps) == 0 && h.baseTokens == 0 && h.baseCost == 0) {
		return c
	}
	type pt struct {
		t      time.Time
		tokens int64
		cost   float64
	}
	pts := []pt{{h.start, h.baseTokens, h.baseCost}}
	tok, cost := h.baseTokens, h.baseCost
	stride := max(1, len(h.steps)/maxChartPoints)
	for i, s := range h.steps {
		tok, cost = tok+s.Tokens, cost+s.Cost
		if i%stride == 0 || i == len(h.steps)-1 {
			pts = append(pts, pt{s.Time, tok, cost})
		}
	}
	end := pts[len(pts)-1].t
	if now.After(end) && now.Sub(end) < 24*time.Hour {
		end = now
	}
	span := end.Sub(h.start)
	if span <= 0 {
		span = time.Second
	}
	x := func(t time.Time) float64 {
		return float64(c.X0) + float64(c.X1-c.X0)*float64(t.Sub(h.start))/float64(span)
	}
	y := func(v, top float64) float64 {
		if top <= 0 {
			return float64(c.Y0)
		}
		return float64(c.Y0) - float64(c.Y0-c.Y1)*v/top
	}
	var tl, cl []byte
	prevTok, prevCost := y(0, 1), y(0, 1)
	for i, p := range pts {
		px := x(p.t)
		ty, cy := y(float64(p.tokens), float64(tok)), y(p.cost, cost)
		if i == 0 {
			tl = fmt.Appendf(tl, "M%s %s", num(px), num(ty))
			cl = fmt.Appendf(cl, "M%s %s", num(px), num(cy))
		} else { // a step: spend comes at once when an attempt finishes
			tl = fmt.Appendf(tl, "L%s %sL%s %s", num(px), num(prevTok), num(px), num(ty))
			cl = fmt.Appendf(cl, "L%s %sL%s %s", num(px), num(prevCost), num(px), num(cy))
		}
		prevTok, prevCost = ty, cy
	}
	tl = fmt.Appendf(tl, "L%s %s", num(x(end)), num(prevTok))
	cl = fmt.Appendf(cl, "L%s %s", num(x(end)), num(prevCost))
	c.TokensLine, c.CostLine = string(tl), string(cl)
	c.TokensArea = fmt.Sprintf("%sL%s %dL%s %dZ", tl, num(x(end)), c.Y0, num(x(h.start)), c.Y0)
	c.Points = len(pts)
	c.From, c.To = h.start.Local().Format("15:04:05"), end.Local().Format("15:04:05")
	if span >= 24*time.Hour {
		c.From, c.To = h.start.Local().Format("Jan 2 15:04"), end.Local().Format("Jan 2 15:04")
	}
	c.CostLabel, c.TokensLabel = fmt.Sprintf("$%.2f", cost), count(tok)+" tokens"
	c.Folded = h.folded
	return c
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
