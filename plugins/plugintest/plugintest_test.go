package plugintest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/plugintest"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

type fake struct {
	mu       sync.Mutex
	settings map[string]string
}

func (f *fake) Verify(_ context.Context, req *verify.Request) (*verify.Report, error) {
	if len(req.Task.Acceptance) == 0 {
		return nil, verify.ErrNoChecks
	}
	if req.Task.ID == "panic" {
		panic("oops")
	}
	return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: req.Task.Acceptance[0].Sh, Passed: true}}}, nil
}

func (f *fake) Review(context.Context, *verify.ReviewRequest) (*verify.Review, error) {
	return &verify.Review{Findings: []verify.Finding{{Severity: verify.SeverityCritical, File: "a.go", Message: "no"}}}, nil
}

func (f *fake) Execute(_ context.Context, req *executor.Request) (*executor.Result, error) {
	return &executor.Result{Status: executor.StatusBlocked, Reason: req.Prompt}, nil
}

func (f *fake) Debug(_ context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
	if req.Task.ID == "half" {
		return &executor.Diagnosis{Found: true, RootCause: "no fix given"}, nil
	}
	return &executor.Diagnosis{Found: true, RootCause: req.Failures[1].Fingerprint, Fix: req.Diff}, nil
}

func (f *fake) Advise(_ context.Context, req *executor.AdviceRequest) (*executor.Advice, error) {
	if req.Task.ID == "panic" {
		panic("advisor bug")
	}
	return &executor.Advice{Verdict: schema.AdviseStop, Text: string(req.Point)}, nil
}

func (f *fake) configure(_ context.Context, s map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s["key"] == "" {
		return errors.New("settings: key is required")
	}
	f.settings = s
	return nil
}

func TestHarness(t *testing.T) {
	f := &fake{}
	h := plugintest.StartWith(t, plugins.Plugin{
		Name: "fake", Version: "0.3.0", Verifier: f, Reviewer: f, Executor: f, Debugger: f, Advisor: f, Configure: f.configure,
		Guardrail: guardrail.Func(func(context.Context, guardrail.Action) (guardrail.Decision, error) {
			return guardrail.Decision{Level: guardrail.Soft, Rule: "r"}, nil
		}),
	}, plugintest.Options{Settings: map[string]string{"key": "v"}})
	ctx := t.Context()

	if diff := cmp.Diff(map[string]string{"key": "v"}, f.settings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	rep, err := h.Verifier().Verify(ctx, &verify.Request{Task: &task.Task{ID: "T", Acceptance: []task.Check{{Sh: "true"}}}})
	if err != nil || !rep.Passed || rep.Checks[0].Name != "true" {
		t.Errorf("Verify = %+v, %v", rep, err)
	}
	if _, err := h.Verifier().Verify(ctx, &verify.Request{Task: &task.Task{ID: "T"}}); !errors.Is(err, verify.ErrNoChecks) {
		t.Errorf("Verify without checks: %v", err)
	}
	_, err = h.Verifier().Verify(ctx, &verify.Request{Task: &task.Task{ID: "panic", Acceptance: []task.Check{{Sh: "x"}}}})
	if !errors.Is(err, verify.ErrCrashed) || !strings.Contains(err.Error(), "oops") {
		t.Errorf("Verify with a panic: %v", err)
	}
	rev, err := h.Reviewer().Review(ctx, &verify.ReviewRequest{Task: &task.Task{}})
	if err != nil || len(rev.Critical()) != 1 {
		t.Errorf("Review = %+v, %v", rev, err)
	}
	d, err := h.Guardrail().Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "ls"})
	if err != nil || d.Level != guardrail.Soft {
		t.Errorf("Check = %+v, %v", d, err)
	}
	res, err := h.Executor().Execute(ctx, &executor.Request{Task: &task.Task{}, Attempt: 1, Prompt: "need a token"})
	if err != nil || res.Status != executor.StatusBlocked || res.Reason != "need a token" {
		t.Errorf("Execute = %+v, %v", res, err)
	}
	diag, err := h.Debugger().Debug(ctx, &executor.DebugRequest{Task: &task.Task{ID: "T"}, Diff: "--- a\n+++ b\n",
		Failures: []executor.Failure{{Attempt: 1, Fingerprint: "f"}, {Attempt: 2, Fingerprint: "f"}}})
	if err != nil || !diag.Found || diag.RootCause != "f" || diag.Fix != "--- a\n+++ b\n" {
		t.Errorf("Debug = %+v, %v", diag, err)
	}
	if _, err := h.Debugger().Debug(ctx, &executor.DebugRequest{Task: &task.Task{ID: "half"}}); err == nil || !strings.Contains(err.Error(), "no root_cause or fix") {
		t.Errorf("Debug with a root cause and no fix: %v, want a protocol error", err)
	}
	adv, err := h.Advisor().Advise(ctx, &executor.AdviceRequest{Task: &task.Task{ID: "T"}, Point: schema.AtRepeat})
	if err != nil || adv.Verdict != schema.AdviseStop || adv.Text != "repeat" {
		t.Errorf("Advise = %+v, %v", adv, err)
	}
	if _, err := h.Advisor().Advise(ctx, &executor.AdviceRequest{Task: &task.Task{ID: "panic"}, Point: schema.AtRepeat}); err == nil || !strings.Contains(err.Error(), "advisor bug") {
		t.Errorf("Advise with a panic: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	f := &fake{}
	tests := []struct {
		name string
		p    plugins.Plugin
		o    plugintest.Options
		want string
	}{
		{"configure refuses", plugins.Plugin{Name: "f", Version: "1.0.0", Verifier: f, Configure: f.configure}, plugintest.Options{}, "key is required"},
		{"bad version", plugins.Plugin{Name: "f", Version: "one", Verifier: f}, plugintest.Options{}, "Plugin.Version"},
		{"nothing served", plugins.Plugin{Name: "f", Version: "1.0.0"}, plugintest.Options{}, "serves no component"},
		{"api version", plugins.Plugin{Name: "f", Version: "1.0.0", Verifier: f, APIVersions: []string{"2.0.0"}}, plugintest.Options{}, "host speaks 1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := plugintest.Open(t.Context(), tt.p, tt.o)
			if err == nil {
				h.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
	h := plugintest.Start(t, plugins.Plugin{Name: "f", Version: "1.0.0", Verifier: f})
	if _, err := h.Host.Executor(plugintest.Name); !errors.Is(err, plugins.ErrPluginUnavailable) {
		t.Errorf("Executor of a verifier-only plugin: %v", err)
	}
}
