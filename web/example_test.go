package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/web"
)

// A host that runs its own loop gives it a web.Store around its store and
// mounts the page; here the page is read once the run has ended.
func Example() {
	plan := &task.Plan{Version: "1", Name: "demo", Phases: []task.Phase{{ID: "p1", Tasks: []task.Task{
		{ID: "T1", Title: "divide() with zero check", Acceptance: []task.Check{{Run: []string{"go", "test", "./..."}}}},
		{ID: "T2", Title: "<b>escaped</b>", DependsOn: []string{"T1"}, Acceptance: []task.Check{{Run: []string{"go", "vet"}}}},
	}}}}
	ctx := context.Background()
	store, err := web.NewStore(ctx, looptest.NewStore())
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := web.New(web.Config{Store: store, Plan: plan})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer page.Close()
	// A platform mounts it, e.g. mux.Handle("/runs/demo/", http.StripPrefix("/runs/demo", page)).

	l, err := loop.New(loop.Config{Plan: plan, Store: store, Executor: &looptest.Executor{}, Verifier: &looptest.Verifier{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := l.Run(ctx)
	fmt.Println("run:", res.Outcome)

	rec := httptest.NewRecorder()
	page.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	html := rec.Body.String()
	fmt.Println("done cards:", strings.Count(html, `data-status="done"`))
	fmt.Println("escaped:", strings.Contains(html, "&lt;b&gt;escaped&lt;/b&gt;"))
	// Output:
	// run: completed
	// done cards: 2
	// escaped: true
}
