package guardrail_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

func decide(d guardrail.Decision, err error) guardrail.Func {
	return func(context.Context, guardrail.Action) (guardrail.Decision, error) { return d, err }
}

func panics(v any) guardrail.Func {
	return func(context.Context, guardrail.Action) (guardrail.Decision, error) { panic(v) }
}

var (
	allow   = guardrail.Decision{}
	softA   = guardrail.Decision{Level: guardrail.Soft, Rule: "soft.a", Reason: "a"}
	softB   = guardrail.Decision{Level: guardrail.Soft, Rule: "soft.b", Reason: "b"}
	hardA   = guardrail.Decision{Level: guardrail.Hard, Rule: "hard.a", Reason: "a"}
	hardB   = guardrail.Decision{Level: guardrail.Hard, Rule: "hard.b", Reason: "b"}
	command = guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: "rm -rf /"}
)

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name string
		g    guardrail.Guardrail
		want guardrail.Decision
	}{
		{"allow", decide(allow, nil), allow},
		{"soft passes through", decide(softA, nil), softA},
		{"hard passes through", decide(hardA, nil), hardA},
		{"error is hard", decide(allow, errors.New("rules file unreadable")),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: rules file unreadable"}},
		{"prefixed error is not prefixed twice", decide(softA, errors.New("guardrail: bad pattern")),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: bad pattern"}},
		{"context error is hard", decide(allow, context.Canceled),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: context canceled"}},
		{"panic is hard", panics("boom"),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: panic: boom"}},
		{"panic with an error is hard", panics(errors.New("index out of range")),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: panic: index out of range"}},
		{"invalid level is hard", decide(guardrail.Decision{Level: 7, Rule: "odd"}, nil),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: `guardrail: rule "odd" returned invalid level(7)`}},
		{"negative level is hard", decide(guardrail.Decision{Level: -1}, nil),
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: `guardrail: rule "" returned invalid level(-1)`}},
		{"nil guardrail is hard", nil, guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := guardrail.Evaluate(t.Context(), tt.g, command)
			if tt.g == nil {
				got.Reason = "" // the runtime's wording of a nil dereference is not ours
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluatePassesActionAndContext(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(t.Context(), key{}, "v")
	var gotAction guardrail.Action
	var gotValue any
	g := guardrail.Func(func(ctx context.Context, a guardrail.Action) (guardrail.Decision, error) {
		gotAction, gotValue = a, ctx.Value(key{})
		return allow, nil
	})
	guardrail.Evaluate(ctx, g, command)
	if diff := cmp.Diff(command, gotAction); diff != "" {
		t.Errorf("action (-want +got):\n%s", diff)
	}
	if gotValue != "v" {
		t.Errorf("context value = %v, want v", gotValue)
	}
}

func TestAll(t *testing.T) {
	tests := []struct {
		name string
		gs   []guardrail.Guardrail
		want guardrail.Decision
	}{
		{"none allows", nil, allow},
		{"all allow", []guardrail.Guardrail{decide(allow, nil), decide(allow, nil)}, allow},
		{"soft beats allow", []guardrail.Guardrail{decide(allow, nil), decide(softA, nil)}, softA},
		{"first soft wins", []guardrail.Guardrail{decide(softA, nil), decide(softB, nil)}, softA},
		{"hard beats soft", []guardrail.Guardrail{decide(softA, nil), decide(hardA, nil), decide(softB, nil)}, hardA},
		{"first hard wins", []guardrail.Guardrail{decide(hardB, nil), decide(hardA, nil)}, hardB},
		{"error is hard", []guardrail.Guardrail{decide(softA, nil), decide(allow, errors.New("x"))},
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: x"}},
		{"panic is hard", []guardrail.Guardrail{panics("p"), decide(hardA, nil)},
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: panic: p"}},
		{"nested", []guardrail.Guardrail{guardrail.All(decide(allow, nil), decide(softB, nil)), decide(softA, nil)}, softB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := guardrail.All(tt.gs...).Check(t.Context(), command)
			if err != nil {
				t.Fatalf("Check error = %v, want nil", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("All (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAllStopsAtFirstHard(t *testing.T) {
	var calls atomic.Int32
	counting := guardrail.Func(func(context.Context, guardrail.Action) (guardrail.Decision, error) {
		calls.Add(1)
		return allow, nil
	})
	guardrail.Evaluate(t.Context(), guardrail.All(counting, decide(hardA, nil), counting), command)
	if got := calls.Load(); got != 1 {
		t.Errorf("guardrails after the first hard decision ran: %d calls, want 1", got)
	}
}

func TestAllCopiesItsArguments(t *testing.T) {
	gs := []guardrail.Guardrail{decide(allow, nil)}
	g := guardrail.All(gs...)
	gs[0] = decide(hardA, nil)
	if d := guardrail.Evaluate(t.Context(), g, command); d.Level != guardrail.Allow {
		t.Errorf("changing the caller's slice changed All: %+v", d)
	}
}

func TestAllConcurrent(t *testing.T) {
	g := guardrail.All(decide(softA, nil), decide(allow, nil))
	done := make(chan guardrail.Decision)
	for range 8 {
		go func() { done <- guardrail.Evaluate(t.Context(), g, command) }()
	}
	for range 8 {
		if d := <-done; d != softA {
			t.Errorf("decision = %+v, want %+v", d, softA)
		}
	}
}

func TestLevel(t *testing.T) {
	tests := []struct {
		in      string
		want    guardrail.Level
		wantErr bool
	}{
		{"allow", guardrail.Allow, false},
		{"soft", guardrail.Soft, false},
		{" HARD ", guardrail.Hard, false},
		{"block", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := guardrail.ParseLevel(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("ParseLevel(%q) = %v, %v; want %v, error %t", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil && !errors.Is(err, guardrail.ErrInvalidLevel) {
				t.Errorf("error %v does not wrap ErrInvalidLevel", err)
			}
		})
	}
	if !(guardrail.Allow < guardrail.Soft && guardrail.Soft < guardrail.Hard) {
		t.Error("levels are not ordered allow < soft < hard")
	}
	if _, err := guardrail.Level(3).MarshalText(); !errors.Is(err, guardrail.ErrInvalidLevel) {
		t.Errorf("MarshalText(level 3) error = %v, want ErrInvalidLevel", err)
	}
}

func TestDecisionJSON(t *testing.T) {
	b, err := json.Marshal(hardA)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"level":"hard","rule":"hard.a","reason":"a"}`; got != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	var back guardrail.Decision
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(hardA, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestDecisionErr(t *testing.T) {
	tests := []struct {
		name    string
		d       guardrail.Decision
		wantErr string
	}{
		{"allow", allow, ""},
		{"soft", softA, ""},
		{"hard", hardA, "guardrail: hard.a: a"},
		{"hard without reason", guardrail.Decision{Level: guardrail.Hard, Rule: "r"}, "guardrail: r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Err(command)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Err = %v, want nil", err)
				}
				return
			}
			v, ok := errors.AsType[*guardrail.Violation](err)
			if !ok || err.Error() != tt.wantErr {
				t.Fatalf("Err = %v, want a *Violation %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(guardrail.Violation{Action: command, Decision: tt.d}, *v); diff != "" {
				t.Errorf("violation (-want +got):\n%s", diff)
			}
		})
	}
}

// multi is a MultiChecker with fixed decisions.
type multi struct {
	ds  []guardrail.Decision
	err error
}

func (m multi) Check(context.Context, guardrail.Action) (guardrail.Decision, error) {
	return guardrail.Decision{}, errors.New("Check is not what EvaluateAll asks")
}

func (m multi) CheckAll(context.Context, guardrail.Action) ([]guardrail.Decision, error) {
	return m.ds, m.err
}

// TestEvaluateAll: every decision of a MultiChecker, and of each member of
// All, reaches the caller, up to the first hard one; failures are hard.
func TestEvaluateAll(t *testing.T) {
	fail := guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleError, Reason: "guardrail: boom"}
	for _, tc := range []struct {
		name string
		g    guardrail.Guardrail
		want []guardrail.Decision
	}{
		{"a plain guardrail: its one decision", decide(softA, nil), []guardrail.Decision{softA}},
		{"a plain guardrail that allows: none", decide(guardrail.Decision{}, nil), nil},
		{"a MultiChecker: all of them, allows left out", multi{ds: []guardrail.Decision{softA, {}, softB}}, []guardrail.Decision{softA, softB}},
		{"a MultiChecker that errs: hard", multi{err: errors.New("boom")}, []guardrail.Decision{fail}},
		{"All of a MultiChecker and a guardrail", guardrail.All(multi{ds: []guardrail.Decision{softA, softB}}, decide(hardA, nil), decide(hardB, nil)),
			[]guardrail.Decision{softA, softB, hardA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := guardrail.EvaluateAll(context.Background(), tc.g, command)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
