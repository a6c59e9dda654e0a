package web_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/web"
)

const hostile = `<script>window.pwned=1</script>`

// testPlan has two phases: T1 (which the test holds running), T2 after it
// with a hostile title, and a gate with a checklist before phase two.
func testPlan() *task.Plan {
	check := []task.Check{{Run: []string{"true"}}}
	return &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{
		{ID: "build", Title: "Build it", Milestone: &task.Milestone{Manual: []string{"the README <b>renders</b>"}}, Tasks: []task.Task{
			{ID: "T1", Title: "divide() with zero check", Acceptance: check},
			{ID: "T2", Title: hostile, DependsOn: []string{"T1"}, Acceptance: check},
		}},
		{ID: "ship", Title: "Ship it", Tasks: []task.Task{{ID: "T3", Title: "release notes", Acceptance: check}}},
	}}
}

// running is a real loop over a state directory whose executor holds task
// T1 until release is closed.
type running struct {
	dir     string
	plan    *task.Plan
	release chan struct{}
	started chan struct{}
	done    chan *loop.Result
}

func startRun(t *testing.T, plan *task.Plan) *running {
	t.Helper()
	r := &running{dir: t.TempDir(), plan: plan, release: make(chan struct{}), started: make(chan struct{}), done: make(chan *loop.Result, 1)}
	exec := &looptest.Executor{Script: map[string][]looptest.Act{
		"T1": {{Do: func(*executor.Request) error {
			close(r.started)
			<-r.release
			return nil
		}, Usage: executor.Usage{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.25}}},
		"T2": {{Usage: executor.Usage{InputTokens: 500, CostUSD: 0.1}}, {Usage: executor.Usage{InputTokens: 700, CostUSD: 0.15}}},
	}}
	ver := &looptest.Verifier{Script: map[string][]string{"T2": {"cafe01"}}}
	l, closeStore, err := r.loop(exec, ver)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		res, _ := l.Run(context.Background())
		closeStore()
		r.done <- res
	}()
	t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
		<-r.done
	})
	return r
}

// loop opens the state directory and a loop over it; closeStore releases
// the state for the next loop.
func (r *running) loop(exec executor.Executor, ver *looptest.Verifier) (_ *loop.Loop, closeStore func() error, _ error) {
	store, err := loop.OpenDir(r.dir, nil)
	if err != nil {
		return nil, nil, err
	}
	l, err := loop.New(loop.Config{Plan: r.plan, Executor: exec, Verifier: ver, Store: store, RunID: "run-1", RecordsDir: r.dir})
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return l, store.Close, nil
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s: %s", u, resp.Status, b)
	}
	return string(b)
}

// card returns the HTML of task id's card in page.
func card(page, id string) string {
	i := strings.Index(page, `<article id="t-`+id+`"`)
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</article>")
	return page[i : i+j]
}

func TestPageFollowsRunInDir(t *testing.T) {
	r := startRun(t, testPlan())
	<-r.started
	h, err := web.New(web.Config{Dir: r.dir, Plan: r.plan, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	page := get(t, srv.URL+"/")
	if c := card(page, "T1"); !strings.Contains(c, `data-status="running"`) {
		t.Fatalf("T1's card does not show it running:\n%s", c)
	}
	if c := card(page, "T2"); !strings.Contains(c, `data-status="pending"`) || !strings.Contains(c, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
		t.Fatalf("T2's card is not pending with its title escaped:\n%s", c)
	}
	if strings.Contains(page, hostile) {
		t.Fatal("the hostile title is in the page unescaped")
	}

	// The live stream: T1 goes on to done, T2 fails once, the run ends at the gate.
	seq := between(page, `data-seq="`, `"`)
	resp, err := http.Get(srv.URL + "/events?since=" + url.QueryEscape(seq))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events: Content-Type %q", ct)
	}
	close(r.release)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var sawDone, sawFailure, sawGate bool
	deadline := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
	defer deadline.Stop()
	for !(sawDone && sawFailure && sawGate) && sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		sawDone = sawDone || strings.Contains(line, `id=\"t-T1\" class=\"task s-done\"`)
		sawFailure = sawFailure || strings.Contains(line, "cafe01")
		sawGate = sawGate || strings.Contains(line, "waits for approval")
		if strings.Contains(line, "window.pwned=1</script>") || strings.Contains(line, `\u003cscript\u003ewindow`) {
			t.Fatalf("a patch carries the hostile title unescaped: %s", line)
		}
	}
	if !sawDone || !sawFailure || !sawGate {
		t.Fatalf("the stream showed T1 done %v, T2's failure %v, the gate %v", sawDone, sawFailure, sawGate)
	}
	res := <-r.done
	if res.Outcome != policy.AwaitingApproval {
		t.Fatalf("outcome %s", res.Outcome)
	}
	r.done <- res

	page = get(t, srv.URL+"/")
	for _, want := range []string{"Milestone after phase build", "the README &lt;b&gt;renders&lt;/b&gt;", "test:cafe01", "Approve with <code>harnish resume --approve</code>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page at the gate lacks %q", want)
		}
	}
	if strings.Contains(page, `action="approve"`) {
		t.Error("a read-only page offers to approve")
	}
	resp2, err := http.PostForm(srv.URL+"/approve", url.Values{"phase": {"build"}, "token": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != http.StatusForbidden {
		t.Errorf("approve on a read-only page: %s", resp2.Status)
	}
	resp.Body.Close()
	srv.Close()
}

// The page approves the gate through the host's Approve, which here resumes
// the run with approval as the CLI's resume --approve does.
func TestApproveFromPage(t *testing.T) {
	r := startRun(t, testPlan())
	close(r.release)
	res := <-r.done
	r.done <- res
	if res.Outcome != policy.AwaitingApproval {
		t.Fatalf("outcome %s", res.Outcome)
	}
	const token = "0123456789abcdef-token"
	resumed := make(chan *loop.Result, 1)
	approve := func(ctx context.Context, phase string) error {
		l, closeStore, err := r.loop(&looptest.Executor{}, &looptest.Verifier{})
		if err != nil {
			return err
		}
		go func() {
			res, _ := l.Resume(context.Background(), loop.ResumeOptions{Approve: true})
			closeStore()
			resumed <- res
		}()
		return nil
	}
	h, err := web.New(web.Config{Dir: r.dir, Plan: r.plan, PollInterval: 10 * time.Millisecond, Approve: approve, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	if page := get(t, srv.URL+"/"); !strings.Contains(page, `action="approve"`) {
		t.Fatal("the page does not offer to approve")
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		form url.Values
		want int
	}{
		{url.Values{"phase": {"build"}, "token": {"wrong-token-0123456"}}, http.StatusForbidden},
		{url.Values{"phase": {"ship"}, "token": {token}}, http.StatusConflict},
		{url.Values{"phase": {"build"}, "token": {token}}, http.StatusSeeOther},
	} {
		resp, err := noRedirect.PostForm(srv.URL+"/approve", tc.form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("approve %v: %s, want %d", tc.form, resp.Status, tc.want)
		}
	}
	select {
	case res := <-resumed:
		if res == nil || res.Outcome != policy.Completed {
			t.Fatalf("the resumed run: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the approval did not resume the run")
	}
	waitFor(t, func() bool { return strings.Contains(get(t, srv.URL+"/"), `id="run-status">completed<`) })
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []web.Config{
		{},
		{Dir: "x", Store: &web.Store{}},
		{Store: &web.Store{}},
		{Dir: t.TempDir(), Approve: func(context.Context, string) error { return nil }, Token: "short"},
	} {
		if _, err := web.New(cfg); !errors.Is(err, web.ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("timed out")
}

func between(s, a, b string) string {
	_, rest, _ := strings.Cut(s, a)
	v, _, _ := strings.Cut(rest, b)
	return v
}
