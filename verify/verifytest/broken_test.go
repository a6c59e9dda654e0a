package verifytest_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
	"github.com/harnish/harnish/verify/verifytest"
)

// broken verifiers, each breaking one rule of the contract.
var broken = map[string]func(task.Check) verify.Verifier{
	"always-passes": func(task.Check) verify.Verifier { return alwaysPasses{} },
	"drops-the-tail": func(c task.Check) verify.Verifier {
		return verifierFunc(func(ctx context.Context, req *verify.Request) (*verify.Report, error) {
			rep, err := verify.Acceptance{}.Verify(ctx, req)
			if rep != nil {
				for i := range rep.Checks {
					rep.Checks[i].OutputTail = ""
				}
			}
			return rep, err
		})
	},
	"ignores-cancellation": func(c task.Check) verify.Verifier {
		return verifierFunc(func(ctx context.Context, req *verify.Request) (*verify.Report, error) {
			cmd := &verify.Command{Argv: c.Run, Timeout: 2 * time.Second}
			return cmd.Verify(context.WithoutCancel(ctx), req)
		})
	},
}

type alwaysPasses struct{}

func (alwaysPasses) Verify(context.Context, *verify.Request) (*verify.Report, error) {
	return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "x", Passed: true}}}, nil
}

type verifierFunc func(context.Context, *verify.Request) (*verify.Report, error)

func (f verifierFunc) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	return f(ctx, req)
}

// TestBroken runs the suite against the broken verifier named by
// HARNISH_VERIFYTEST_BROKEN; TestSuiteCatchesBrokenVerifiers runs it in a
// child process and wants it to fail.
func TestBroken(t *testing.T) {
	name := os.Getenv("HARNISH_VERIFYTEST_BROKEN")
	if name == "" {
		t.Skip("run by TestSuiteCatchesBrokenVerifiers")
	}
	verifytest.Run(t, func(_ testing.TB, c task.Check) verify.Verifier { return broken[name](c) })
}

func TestSuiteCatchesBrokenVerifiers(t *testing.T) {
	tests := []struct {
		broken, subtest, complaint string
	}{
		{"always-passes", "FailingCommandNeverPasses", "a command that exited 3 passed"},
		{"drops-the-tail", "ReportsTheTail", "output tail"},
		{"ignores-cancellation", "StopsOnCancel", "after the context was done"},
	}
	for _, tt := range tests {
		t.Run(tt.broken, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBroken$/^"+tt.subtest+"$", "-test.v")
			cmd.Env = append(os.Environ(), "HARNISH_VERIFYTEST_BROKEN="+tt.broken)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a verifier that %s:\n%s", tt.broken, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestBroken/"+tt.subtest) || !strings.Contains(string(out), tt.complaint) {
				t.Errorf("the suite failed, but not in %s with %q:\n%s", tt.subtest, tt.complaint, out)
			}
		})
	}
}
