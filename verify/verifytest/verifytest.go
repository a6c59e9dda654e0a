package verifytest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// helperArg is the first argument that turns a test binary that imports
// this package into the helper program; see init.
const helperArg = "harnish-verifytest-helper"

// init makes any test binary that imports verifytest a helper program when
// run as "BINARY harnish-verifytest-helper MODE MARKER": it exits before the
// testing package looks at its flags. The argv is one no test framework
// passes, so ordinary runs are unaffected.
func init() {
	if len(os.Args) == 4 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2], os.Args[3]))
	}
}

// helper behaves as mode says; marker lets the suite find its output.
func helper(mode, marker string) int {
	switch mode {
	case "pass":
		fmt.Println("ok", marker)
		return 0
	case "fail":
		fmt.Println("stdout", marker)
		fmt.Fprintln(os.Stderr, "stderr", marker)
		return 3
	case "fail-long":
		// Far more output than any tail keeps, the marker at its very end.
		line := strings.Repeat("x", 99) + "\n"
		for range 20_000 {
			os.Stdout.WriteString(line)
		}
		fmt.Println("end", marker)
		return 1
	case "hang":
		fmt.Println("hanging", marker)
		time.Sleep(time.Hour)
	}
	return 2
}

// NewVerifier returns the verifier under test, set up to run check in the
// working tree of the request it will get.
type NewVerifier func(t testing.TB, check task.Check) verify.Verifier

// Run runs the conformance suite against the verifiers newVerifier returns.
// Each case is a subtest; t must not be used in parallel tests of its own.
func Run(t *testing.T, newVerifier NewVerifier) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("verifytest: cannot find the test binary to use as a helper: %v", err)
	}
	s := &suite{exe: exe, newVerifier: newVerifier}
	t.Run("Passes", s.passes)
	t.Run("FailingCommandNeverPasses", s.fails)
	t.Run("ReportsTheTail", s.tail)
	t.Run("CheckTimeoutIsAFailedCheck", s.timeout)
	t.Run("StopsOnCancel", s.cancel)
	t.Run("StopsOnDeadline", s.deadline)
	t.Run("CancelledBeforeStart", s.cancelledBefore)
	t.Run("ConcurrentUse", s.concurrent)
}

type suite struct {
	exe         string
	newVerifier NewVerifier
}

// check returns a check running the helper in mode, and its marker.
func (s *suite) check(t testing.TB, mode string) (task.Check, string) {
	marker := fmt.Sprintf("verifytest-%s-%d", mode, time.Now().UnixNano())
	return task.Check{Run: []string{s.exe, helperArg, mode, marker}}, marker
}

func (s *suite) request(t testing.TB, c task.Check) *verify.Request {
	return &verify.Request{Task: &task.Task{ID: "T1", Title: "conformance", Acceptance: []task.Check{c}},
		PhaseID: "p1", Checks: []task.Check{c}, WorkDir: t.TempDir(), Attempt: 1}
}

// verify runs the verifier on a copy of the request and checks the request
// was left alone and the result is coherent.
func (s *suite) verify(t testing.TB, ctx context.Context, c task.Check) (*verify.Report, error) {
	t.Helper()
	req := s.request(t, c)
	before := *req
	before.Checks = append([]task.Check(nil), req.Checks...)
	v := s.newVerifier(t, c)
	rep, err := v.Verify(ctx, req)
	if diff := cmp.Diff(&before, req); diff != "" {
		t.Errorf("Verify modified the request (-before +after):\n%s", diff)
	}
	if err == nil && rep == nil {
		t.Fatal("Verify returned neither a report nor an error")
	}
	if rep != nil && rep.Passed != rep.Fingerprint.IsZero() {
		t.Errorf("report passed = %t with fingerprint %v: a failing report needs one, a passing one none", rep.Passed, rep.Fingerprint)
	}
	return rep, err
}

func (s *suite) passes(t *testing.T) {
	c, _ := s.check(t, "pass")
	rep, err := s.verify(t, t.Context(), c)
	if err != nil {
		t.Fatalf("Verify of a passing check: %v", err)
	}
	if !rep.Passed || len(rep.Checks) == 0 {
		t.Fatalf("a passing check gave passed = %t with %d results", rep.Passed, len(rep.Checks))
	}
	for _, r := range rep.Checks {
		if !r.Passed {
			t.Errorf("check %q failed in a passing report", r.Name)
		}
	}
}

func (s *suite) fails(t *testing.T) {
	c, marker := s.check(t, "fail")
	rep, err := s.verify(t, t.Context(), c)
	if err != nil {
		t.Fatalf("Verify of a failing check returned an error, want a failing report: %v", err)
	}
	if rep.Passed {
		t.Fatal("a command that exited 3 passed")
	}
	failed := failedCheck(t, rep)
	if failed.ExitCode == 0 {
		t.Errorf("failed check %q reports exit code 0", failed.Name)
	}
	for _, want := range []string{"stdout " + marker, "stderr " + marker} {
		if !strings.Contains(failed.OutputTail, want) {
			t.Errorf("output tail lacks %q:\n%s", want, failed.OutputTail)
		}
	}
}

func (s *suite) tail(t *testing.T) {
	c, marker := s.check(t, "fail-long")
	rep, err := s.verify(t, t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed {
		t.Fatal("a failing command passed")
	}
	failed := failedCheck(t, rep)
	if !strings.Contains(failed.OutputTail, "end "+marker) {
		t.Errorf("output tail (%d bytes) does not end with the output's end %q", len(failed.OutputTail), "end "+marker)
	}
	if len(failed.OutputTail) > 64<<10 {
		t.Errorf("output tail is %d bytes; a tail is the end of the output, not all of it", len(failed.OutputTail))
	}
}

func (s *suite) timeout(t *testing.T) {
	c, _ := s.check(t, "hang")
	c.Timeout = task.Duration(time.Second)
	start := time.Now()
	rep, err := s.verify(t, t.Context(), c)
	if err != nil {
		t.Fatalf("a check out of time gave an error, want a failed check: %v", err)
	}
	if rep.Passed || rep.Fingerprint.Class != verify.ClassTimeout {
		t.Errorf("report passed = %t, class %q; want a failure of class %q", rep.Passed, rep.Fingerprint.Class, verify.ClassTimeout)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a check with a 1s timeout took %s", d)
	}
}

// stopsPromptly runs a hanging check under ctx and wants an error wrapping
// want soon after ctx is done.
func (s *suite) stopsPromptly(t *testing.T, ctx context.Context, want error) {
	c, _ := s.check(t, "hang")
	start := time.Now()
	rep, err := s.verify(t, ctx, c)
	if err == nil {
		t.Fatalf("Verify returned a report (passed = %t) after the context was done; want an error", rep.Passed)
	}
	if !errors.Is(err, want) {
		t.Errorf("error %v does not wrap %v", err, want)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s to stop", d)
	}
}

func (s *suite) cancel(t *testing.T) {
	cause := errors.New("verifytest: cancelled on purpose")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(300*time.Millisecond, func() { cancel(cause) })
	s.stopsPromptly(t, ctx, cause)
}

func (s *suite) deadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	s.stopsPromptly(t, ctx, context.DeadlineExceeded)
}

func (s *suite) cancelledBefore(t *testing.T) {
	cause := errors.New("verifytest: cancelled before the call")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	c, _ := s.check(t, "pass")
	rep, err := s.verify(t, ctx, c)
	if err == nil {
		t.Fatalf("Verify under a cancelled context returned a report (passed = %t)", rep.Passed)
	}
	if !errors.Is(err, cause) {
		t.Errorf("error %v does not wrap the cause", err)
	}
}

func (s *suite) concurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 8 {
		mode := []string{"pass", "fail"}[i%2]
		wg.Go(func() {
			c, _ := s.check(t, mode)
			rep, err := s.verify(t, t.Context(), c)
			if err != nil {
				t.Errorf("concurrent Verify (%s): %v", mode, err)
				return
			}
			if rep.Passed != (mode == "pass") {
				t.Errorf("concurrent Verify (%s): passed = %t", mode, rep.Passed)
			}
		})
	}
	wg.Wait()
}

func failedCheck(t testing.TB, rep *verify.Report) verify.CheckResult {
	t.Helper()
	for _, r := range rep.Checks {
		if !r.Passed {
			return r
		}
	}
	t.Fatalf("a failing report has no failed check among %d", len(rep.Checks))
	return verify.CheckResult{}
}
