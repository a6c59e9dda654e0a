package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
)

func TestSelectTasks(t *testing.T) {
	check := []task.Check{{Run: []string{"true"}}}
	plan := &task.Plan{Version: "1", Name: "s", Phases: []task.Phase{
		{ID: "p1", Tasks: []task.Task{{ID: "41.1", Title: "a", Acceptance: check}, {ID: "41.2", Title: "b", Acceptance: check, Status: task.StatusDone},
			{ID: "41.3", Title: "c", Acceptance: check, DependsOn: []string{"41.2"}}}},
		{ID: "p2", Tasks: []task.Task{{ID: "T-9", Title: "d", Acceptance: check, DependsOn: []string{"41.1"}}}},
	}}
	ids := func(p *task.Plan) []string {
		var out []string
		for _, pt := range p.Tasks() {
			out = append(out, pt.Phase.ID+"/"+pt.Task.ID)
		}
		return out
	}
	for _, tc := range []struct {
		spec string
		want []string
		err  string
	}{
		{"41.1-41.3", []string{"p1/41.1", "p1/41.2", "p1/41.3"}, ""},
		{"41.3", []string{"p1/41.3"}, ""}, // its dependency is done
		{"41.1, T-9", []string{"p1/41.1", "p2/T-9"}, ""},
		{"T-9", nil, "task T-9 depends on 41.1, which is left out and not done"},
		{"41.3-41.1", nil, "runs backwards"},
		{"nope", nil, `"nope" is neither a task of the plan nor a range`},
		{"41.1,,41.3", nil, "an empty item"},
	} {
		got, err := selectTasks(plan, tc.spec)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.spec, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.spec, err)
		default:
			if diff := cmp.Diff(tc.want, ids(got)); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.spec, diff)
			}
			if err := got.Validate().Err(); err != nil {
				t.Errorf("%q: the selection does not validate: %v", tc.spec, err)
			}
		}
	}
}

// TestRunTasksAndCycles: --tasks runs the selection, which resume keeps;
// --cycles caps the attempts.
func TestRunTasksAndCycles(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": "touch b.txt\n"})
	var out bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--tasks", "T2", "--yes"}, &out, &out); code != 0 {
		t.Fatalf("run --tasks T2: exit %d\n%s", code, out.String())
	}
	st, err := loop.ReadState(dir + "/" + loop.StateDir)
	if err != nil || st.Tasks["T1"] != nil || st.Tasks["T2"] == nil {
		t.Fatalf("state: %v, %+v", err, st)
	}
	kept, err := loop.LoadKeptPlan(dir + "/" + loop.StateDir)
	if err != nil || len(kept.Tasks()) != 1 {
		t.Fatalf("the kept plan: %v, %v", err, kept)
	}

	dir = testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": "true\n"})
	out.Reset()
	if code := run([]string{"run", "--dir", dir, "--cycles", "2", "--yes"}, &out, &out); code != 4 || !strings.Contains(out.String(), "2 cycles used of 2") {
		t.Errorf("run --cycles 2 with an agent that never succeeds: exit %d\n%s", code, out.String())
	}
}

// TestRunPush: --push pushes the run's branch to origin once the run
// completes, and never forces: a remote that cannot take it is reported.
func TestRunPush(t *testing.T) {
	origin := t.TempDir()
	testkit.Git(t, origin, "init", "-q", "--bare")
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": "touch a.txt b.txt\n", ".gitignore": ".harnish/\n"})
	testkit.Git(t, dir, "init", "-q")
	testkit.Git(t, dir, "add", ".")
	testkit.Git(t, dir, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	testkit.Git(t, dir, "remote", "add", "origin", origin)
	var out bytes.Buffer
	if code := run([]string{"run", "--dir", dir, "--yes", "--push"}, &out, &out); code != 0 || !strings.Contains(out.String(), "pushed harnish/cli-test-") {
		t.Fatalf("run --push: exit %d\n%s", code, out.String())
	}
	branch := testkit.Git(t, dir, "branch", "--show-current")
	if got, want := testkit.Git(t, origin, "rev-parse", "refs/heads/"+branch), testkit.Git(t, dir, "rev-parse", "HEAD"); got != want {
		t.Errorf("origin has %s at %q, the tree %q", branch, got, want)
	}

	// A remote that cannot take the branch (here, one that is not there):
	// reported, the run staying completed.
	dir2 := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": "touch a.txt b.txt\n", ".gitignore": ".harnish/\n"})
	testkit.Git(t, dir2, "init", "-q")
	testkit.Git(t, dir2, "add", ".")
	testkit.Git(t, dir2, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "init")
	testkit.Git(t, dir2, "remote", "add", "origin", t.TempDir()+"/missing")
	out.Reset()
	if code := run([]string{"run", "--dir", dir2, "--yes", "--push"}, &out, &out); code != 1 || !strings.Contains(out.String(), "the run completed, and pushing") {
		t.Errorf("run --push to a missing remote: exit %d\n%s", code, out.String())
	}
}
