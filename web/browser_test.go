package web_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/web"
)

// browser returns a chromedp context on a fresh headless Chromium, or skips
// the test when none is installed; with HARNISH_REQUIRE_BROWSER set (CI),
// it fails instead.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("HARNISH_REQUIRE_BROWSER") != "" {
			t.Fatal("no chromium on PATH, and HARNISH_REQUIRE_BROWSER is set (.ci/run installs Debian's chromium)")
		}
		t.Skip("no chromium on PATH; set HARNISH_REQUIRE_BROWSER to fail instead")
	}
	// The flags that keep Chromium off the network it cannot reach here.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now, without a deadline
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// gateFunc approves the gates of the phases in approve and defers the rest.
type gateFunc map[string]bool

func (g gateFunc) Decide(_ context.Context, req *loop.GateRequest) (*policy.GateDecision, error) {
	if g[req.Phase] {
		return &policy.GateDecision{Verdict: policy.Approve, By: "test"}, nil
	}
	return &policy.GateDecision{Verdict: policy.Defer, By: "test"}, nil
}

// TestBrowser loads the page of a running plan in headless Chromium: the
// task the executor holds shows running, the hostile title is text (its
// script never ran), and once the task is let go the page shows it done
// without being reloaded, then the gate that waits.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	check := []task.Check{{Run: []string{"go", "test", "./..."}}}
	plan := &task.Plan{Version: "1", Name: "add-division", Phases: []task.Phase{
		{ID: "api", Title: "Division API", Tasks: []task.Task{
			{ID: "T1", Title: "divide() with zero check", Acceptance: check},
			{ID: "T2", Title: "parse numbers", Acceptance: check},
			{ID: "T3", Title: "errors carry the operand", DependsOn: []string{"T1", "T2"}, Acceptance: check},
		}},
		{ID: "cli", Title: "Command line", Milestone: &task.Milestone{Manual: []string{"README example renders"}}, Tasks: []task.Task{
			{ID: "T4", Title: "wire divide into the CLI", Acceptance: check},
			{ID: "T5", Title: hostile, DependsOn: []string{"T4"}, Acceptance: check},
			{ID: "T6", Title: "usage text", DependsOn: []string{"T4"}, Acceptance: check},
		}},
		{ID: "ship", Title: "Release", Tasks: []task.Task{{ID: "T7", Title: "release notes", Acceptance: check}}},
	}}
	release, started := make(chan struct{}), make(chan struct{})
	spend := func(in, out int64, usd float64) executor.Usage {
		return executor.Usage{InputTokens: in, OutputTokens: out, CostUSD: usd}
	}
	exec := &looptest.Executor{Script: map[string][]looptest.Act{
		"T1": {{Usage: spend(18000, 2200, 0.31)}, {Usage: spend(21000, 1900, 0.34)}},
		"T2": {{Usage: spend(9000, 800, 0.12), Violations: []executor.Violation{{Rule: "scope", Reason: "edited a file outside the task's files", Action: "edit cmd/main.go"}}}},
		"T3": {{Usage: spend(12000, 1500, 0.2)}, {Usage: spend(8000, 900, 0.14)}},
		"T4": {{Usage: spend(15000, 2000, 0.25), Do: func(*executor.Request) error {
			close(started)
			<-release
			return nil
		}}},
		"T5": {{Usage: spend(7000, 600, 0.09)}},
		"T6": {{Usage: spend(5000, 400, 0.07)}},
	}}
	ver := &looptest.Verifier{Script: map[string][]string{"T1": {"divzero-panics"}}}
	rev := &looptest.Reviewer{Critical: map[string][]bool{"T3": {true}}}
	dir := t.TempDir()
	store, err := loop.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now().Add(-20 * time.Minute)
	now := func() time.Time { clock = clock.Add(37 * time.Second); return clock }
	l, err := loop.New(loop.Config{Plan: plan, Executor: exec, Verifier: ver, Reviewer: rev, Store: store, RunID: "20261203-0915",
		RecordsDir: dir, Gate: gateFunc{"api": true}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *loop.Result, 1)
	go func() {
		res, _ := l.Run(context.Background())
		store.Close()
		done <- res
	}()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
		<-done
	}()
	<-started

	h, err := web.New(web.Config{Dir: dir, Plan: plan, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close() // first: the page's live stream ends, so the server's Close does not wait for it

	step, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	shots := t.TempDir()
	if err := chromedp.Do(step,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#t-T4[data-status="running"]`)),
	); err != nil {
		t.Fatalf("the page of the running plan: %v", err)
	}
	title, err := chromedp.Run(step, chromedp.Text(chromedp.CSS(`#t-T5 .task-title`)))
	if err != nil || title != hostile {
		t.Errorf("the hostile title reads %q (%v), want it as text: %q", title, err, hostile)
	}
	pwned, err := chromedp.Run(step, chromedp.Evaluate[bool](`window.pwned !== undefined || document.querySelectorAll("#plan script").length > 0`))
	if err != nil || pwned {
		t.Errorf("the hostile title became a script: %v %v", pwned, err)
	}
	shot(t, step, filepath.Join(shots, "running.png"))

	// A mark the page keeps only as long as it is not reloaded.
	if _, err := chromedp.Run(step, chromedp.Evaluate[int](`window.notReloaded = 42`)); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := chromedp.Do(step,
		chromedp.WaitVisible(chromedp.CSS(`#t-T4[data-status="done"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#gate`)),
	); err != nil {
		t.Fatalf("the page did not follow the run: %v", err)
	}
	mark, err := chromedp.Run(step, chromedp.Evaluate[int](`window.notReloaded || 0`))
	if err != nil || mark != 42 {
		t.Errorf("the page was reloaded to show the change (mark %d, %v)", mark, err)
	}
	// A person opens a task's failed attempts.
	if err := chromedp.Do(step, chromedp.Click(chromedp.CSS(`#t-T1 summary`)), chromedp.Click(chromedp.CSS(`#t-T3 summary`)),
		chromedp.WaitVisible(chromedp.CSS(`#t-T1 .fp`))); err != nil {
		t.Errorf("open the failed attempts: %v", err)
	}
	shot(t, step, filepath.Join(shots, "gate.png"))
	if res := <-done; res.Outcome != policy.AwaitingApproval {
		t.Errorf("outcome %s", res.Outcome)
	}
	done <- nil
}

func shot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100) /* 100: PNG */)
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	// For a person to look at: HARNISH_SCREENSHOTS names a directory to copy them to.
	if d := os.Getenv("HARNISH_SCREENSHOTS"); d != "" {
		os.WriteFile(filepath.Join(d, filepath.Base(path)), png, 0o644)
	}
}
