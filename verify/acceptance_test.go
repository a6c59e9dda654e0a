package verify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// A plugin check runs the verifier Acceptance has under its name, for that
// check alone, in its directory and within its timeout, in order with the
// other checks; a plugin not started is unavailable.
func TestAcceptancePluginChecks(t *testing.T) {
	var seen []*verify.Request
	plugin := verifierFunc(func(ctx context.Context, req *verify.Request) (*verify.Report, error) {
		seen = append(seen, req)
		_, hasDeadline := ctx.Deadline()
		return &verify.Report{Passed: req.Checks[0].Dir != "broken", Checks: []verify.CheckResult{{Name: fmt.Sprintf("msvc in %s (deadline %t)", req.WorkDir, hasDeadline)}}}, nil
	})
	a := verify.Acceptance{Plugins: map[string]verify.Verifier{"msvc": plugin}}
	tk := &task.Task{ID: "T1", Acceptance: []task.Check{{Sh: "true"}, {Plugin: "msvc", Dir: "native", Timeout: task.Duration(time.Minute)}}}
	dir := t.TempDir()
	rep, err := a.Verify(context.Background(), &verify.Request{Task: tk, WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || len(rep.Checks) != 2 || rep.Checks[1].Name != "msvc in "+dir+"/native (deadline true)" {
		t.Errorf("report %+v", rep)
	}
	if len(seen) != 1 || len(seen[0].Checks) != 1 || seen[0].Checks[0].Plugin != "msvc" {
		t.Errorf("the plugin saw %+v", seen)
	}
	// A failing plugin check stops the sequence like any other.
	tk.Acceptance = []task.Check{{Plugin: "msvc", Dir: "broken"}, {Sh: "true"}}
	if rep, err := a.Verify(context.Background(), &verify.Request{Task: tk, WorkDir: dir}); err != nil || rep.Passed || len(rep.Checks) != 1 {
		t.Errorf("a failing plugin check: %+v, %v", rep, err)
	}
	// Not started: unavailable, before anything runs.
	tk.Acceptance = []task.Check{{Sh: "true"}, {Plugin: "cmake-win"}}
	_, err = a.Verify(context.Background(), &verify.Request{Task: tk, WorkDir: dir})
	var ve *verify.Error
	if !errors.As(err, &ve) || ve.Kind != verify.KindUnavailable || !strings.Contains(err.Error(), `"cmake-win"`) {
		t.Errorf("a plugin not started: %v", err)
	}
}

type verifierFunc func(context.Context, *verify.Request) (*verify.Report, error)

func (f verifierFunc) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	return f(ctx, req)
}
