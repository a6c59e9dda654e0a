package guardrail

import "context"

// All returns a [Guardrail] that asks each of gs, in order, through [Evaluate],
// and returns the most severe decision: hard beats soft beats allow. The first
// hard decision wins and ends the evaluation; otherwise the first soft one is
// returned; otherwise [Allow]. Its Check never returns an error, since
// Evaluate has already turned failures into hard decisions.
//
// All of nothing allows everything. The result is safe for concurrent use if
// every one of gs is.
func All(gs ...Guardrail) Guardrail {
	return all(append([]Guardrail(nil), gs...))
}

type all []Guardrail

func (gs all) Check(ctx context.Context, a Action) (Decision, error) {
	var worst Decision
	for _, g := range gs {
		d := Evaluate(ctx, g, a)
		if d.Level == Hard {
			return d, nil
		}
		if d.Level > worst.Level {
			worst = d
		}
	}
	return worst, nil
}

// CheckAll returns every decision of each of gs ([EvaluateAll]), in order,
// up to and with the first hard one, so the soft ones of every member reach
// the agent and All is a [MultiChecker] as its members may be.
func (gs all) CheckAll(ctx context.Context, a Action) ([]Decision, error) {
	var out []Decision
	for _, g := range gs {
		for _, d := range EvaluateAll(ctx, g, a) {
			out = append(out, d)
			if d.Level == Hard {
				return out, nil
			}
		}
	}
	return out, nil
}
