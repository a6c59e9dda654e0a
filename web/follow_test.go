package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/web"
)

// TestFollowAcrossCompactions: a follower started before a run sees every
// transition once, in order, while the store folds its journal into
// snapshots many times over; what it applies equals what the store holds.
func TestFollowAcrossCompactions(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type seen struct {
		st    *policy.RunState
		kinds int
	}
	got := make(chan seen, 1)
	go func() {
		var st *policy.RunState
		n := 0
		for c, err := range web.Follow(ctx, dir, &web.FollowOptions{PollInterval: time.Millisecond}) {
			if err != nil {
				t.Error(err)
				break
			}
			if c.State != nil {
				st = c.State
			}
			for _, tr := range c.Transitions {
				if err := st.Apply(tr); err != nil {
					t.Errorf("a transition the follower handed on does not apply: %v", err)
				}
				n++
			}
			if st != nil && st.Outcome != "" {
				break
			}
		}
		got <- seen{st, n}
	}()
	store, err := loop.OpenDir(dir, &loop.DirOptions{CompactBytes: 2 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	commit := func(ts ...policy.Transition) {
		t.Helper()
		if err := store.Commit(ctx, ts...); err != nil {
			t.Fatal(err)
		}
	}
	commit(policy.Transition{Kind: policy.TransRunStarted, Time: now, Run: "r", Plan: "p"})
	for i := range 300 {
		id := fmt.Sprintf("T%d", i)
		commit(policy.Transition{Kind: policy.TransTaskStarted, Time: now, Phase: "p1", Task: id},
			policy.Transition{Kind: policy.TransAttemptStarted, Time: now, Task: id, Attempt: 1})
		commit(policy.Transition{Kind: policy.TransAttemptFinished, Time: now, Task: id, Attempt: 1, Tokens: int64(i), CostUSD: 0.01})
		commit(policy.Transition{Kind: policy.TransTaskFinished, Time: now, Task: id, Status: policy.StatusDone})
		if i%50 == 0 {
			time.Sleep(2 * time.Millisecond) // let the follower read in the middle of it
		}
	}
	commit(policy.Transition{Kind: policy.TransRunFinished, Time: now, Outcome: policy.Completed})
	want, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, loop.SnapshotFile)); err != nil {
		t.Fatalf("the store never compacted: %v", err)
	}
	select {
	case s := <-got:
		if diff := cmp.Diff(want, s.st); diff != "" {
			t.Errorf("the follower's state (-store +follower):\n%s", diff)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the follower did not see the run end")
	}
}

// TestFollowRejectsACorruptLine: a journal line whose checksum fails is an
// error naming the file and line.
func TestFollowRejectsACorruptLine(t *testing.T) {
	dir := t.TempDir()
	store, err := loop.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := store.Commit(ctx, policy.Transition{Kind: policy.TransRunStarted, Time: time.Now(), Run: "r", Plan: "p"}); err != nil {
		t.Fatal(err)
	}
	store.Close()
	var errs []string
	for c, err := range web.Follow(ctx, dir, &web.FollowOptions{PollInterval: time.Millisecond}) {
		if err != nil {
			errs = append(errs, err.Error())
			break
		}
		if c.State != nil {
			f, _ := os.OpenFile(filepath.Join(dir, loop.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(`{"seq":2,"crc32c":1,"t":{"kind":"task.started","task":"T1"}}` + "\n")
			f.Close()
		}
	}
	want := filepath.Join(dir, loop.JournalFile) + ":2: checksum mismatch"
	if len(errs) != 1 || !strings.Contains(errs[0], want) {
		t.Errorf("errors %q, want one with %q", errs, want)
	}
}

// TestPageOverStore: a page over a Store the host's loop commits through
// follows the run live, and shows tasks side by side and the merge queue
// of a state directory.
func TestPageOverStore(t *testing.T) {
	plan := testPlan()
	store, err := web.NewStore(context.Background(), looptest.NewStore())
	if err != nil {
		t.Fatal(err)
	}
	h, err := web.New(web.Config{Store: store, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	if page := get(t, srv.URL+"/"); !strings.Contains(page, "No run is recorded here yet") {
		t.Fatalf("before the run:\n%s", page)
	}
	res, _, _ := looptest.Run(t, loop.Config{Plan: plan, Store: store,
		Verifier: &looptest.Verifier{Script: map[string][]string{"T2": {"beef02"}}}})
	if res.Outcome != policy.AwaitingApproval {
		t.Fatalf("outcome %s", res.Outcome)
	}
	page := get(t, srv.URL+"/")
	for _, want := range []string{`id="t-T1" class="task s-done"`, `id="t-T2" class="task s-done"`, "test:beef02", "Milestone after phase build"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page over the store lacks %q", want)
		}
	}
}

// TestRunningSideBySide: tasks running at once all show, and the merge
// queue, read from the state directory, shows in order and changes live.
func TestRunningSideBySide(t *testing.T) {
	dir := t.TempDir()
	plan := &task.Plan{Version: "1", Name: "wide", Parallel: 3, Phases: []task.Phase{{ID: "p", Tasks: []task.Task{
		{ID: "A", Acceptance: []task.Check{{Run: []string{"true"}}}},
		{ID: "B", Acceptance: []task.Check{{Run: []string{"true"}}}},
		{ID: "C", Acceptance: []task.Check{{Run: []string{"true"}}}},
		{ID: "D", DependsOn: []string{"A", "B", "C"}, Acceptance: []task.Check{{Run: []string{"true"}}}},
	}}}}
	store, err := loop.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	now := time.Now()
	ts := []policy.Transition{{Kind: policy.TransRunStarted, Time: now, Run: "r", Plan: "wide"}}
	for _, id := range []string{"A", "B", "C"} {
		ts = append(ts, policy.Transition{Kind: policy.TransTaskStarted, Time: now, Phase: "p", Task: id},
			policy.Transition{Kind: policy.TransAttemptStarted, Time: now, Task: id, Attempt: 1})
	}
	if err := store.Commit(ctx, ts...); err != nil {
		t.Fatal(err)
	}
	writeQueue := func(q ...string) {
		b, _ := json.Marshal(q)
		if err := os.WriteFile(filepath.Join(dir, loop.QueueFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeQueue("B")
	h, err := web.New(web.Config{Dir: dir, Plan: plan, PollInterval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer h.Close()
	page := get(t, srv.URL+"/")
	for _, want := range []string{`href="#t-A"><span class="pulse"`, `href="#t-B"><span class="pulse"`, `href="#t-C"><span class="pulse"`,
		`<b>Merge queue</b> <a class="chip" href="#t-B">B</a>`, "up to 3 side by side", `data-status="running"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `data-status="running"`); n != 3 {
		t.Errorf("%d running cards, want 3", n)
	}
	writeQueue("B", "A")
	waitFor(t, func() bool {
		return strings.Contains(get(t, srv.URL+"/"), `<a class="chip" href="#t-B">B</a> → <a class="chip" href="#t-A">A</a>`)
	})
}

// TestPageWithoutPlan: a run whose plan is not kept beside its state shows
// its state and says why its tasks do not show.
func TestPageWithoutPlan(t *testing.T) {
	dir := t.TempDir()
	store, err := loop.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Commit(context.Background(), policy.Transition{Kind: policy.TransRunStarted, Time: time.Now(), Run: "r1", Plan: "lost"}); err != nil {
		t.Fatal(err)
	}
	h, err := web.New(web.Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	for _, want := range []string{"<h1>lost</h1>", "run r1", "The run's plan could not be read"} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("the page lacks %q:\n%s", want, rec.Body.String())
		}
	}
}
