//go:build unix

package verify_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestCommand(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Passed   bool
		Class    verify.FailureClass
		Name     string
		Argv     []string
		Dir      string
		ExitCode int
		Tail     string // a substring of the output tail
	}
	tests := []struct {
		name string
		cmd  verify.Command
		want result
	}{
		{"passes", verify.Command{Argv: []string{"sh", "-c", `test "$HARNISH_VERIFY" = 1 && pwd`}, Dir: "sub"},
			result{Passed: true, Name: `sh -c test "$HARNISH_VERIFY" = 1 && pwd`, Argv: []string{"sh", "-c", `test "$HARNISH_VERIFY" = 1 && pwd`}, Dir: "sub", Tail: "/sub\n"}},
		{"script", verify.Command{Script: "echo from-sh; exit 0"},
			result{Passed: true, Name: "echo from-sh; exit 0", Argv: []string{"sh", "-c", "echo from-sh; exit 0"}, Dir: ".", Tail: "from-sh"}},
		{"fails", verify.Command{Script: "echo boom >&2; exit 3"},
			result{Class: verify.ClassTest, Name: "echo boom >&2; exit 3", Argv: []string{"sh", "-c", "echo boom >&2; exit 3"}, Dir: ".", ExitCode: 3, Tail: "boom"}},
		{"secrets masked", verify.Command{Argv: []string{"sh", "-c", "exit 1", "--token=s3cret"}},
			result{Class: verify.ClassTest, Name: "sh -c exit 1 --token=***", Argv: []string{"sh", "-c", "exit 1", "--token=***"}, Dir: ".", ExitCode: 1}},
		{"missing program", verify.Command{Argv: []string{"harnish-no-such-tool"}},
			result{Class: verify.ClassInfra, Name: "harnish-no-such-tool", Argv: []string{"harnish-no-such-tool"}, Dir: ".", ExitCode: -1, Tail: "executable file not found"}},
		{"times out", verify.Command{Argv: []string{"sleep", "30"}, Timeout: 200 * time.Millisecond},
			result{Class: verify.ClassTimeout, Name: "sleep 30", Argv: []string{"sleep", "30"}, Dir: ".", ExitCode: -1, Tail: "timed out"}},
		{"dir outside", verify.Command{Argv: []string{"touch", "ran"}, Dir: ".."},
			result{Class: verify.ClassInfra, Name: "touch ran", Argv: []string{"touch", "ran"}, Dir: "..", ExitCode: -1, Tail: "outside the repository root"}},
		{"symlink outside", verify.Command{Argv: []string{"touch", "ran"}, Dir: "escape"},
			result{Class: verify.ClassInfra, Name: "touch ran", Argv: []string{"touch", "ran"}, Dir: "escape", ExitCode: -1, Tail: "outside the repository root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := tt.cmd.Verify(t.Context(), request(t, root))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Checks) != 1 {
				t.Fatalf("%d check results, want 1", len(rep.Checks))
			}
			c := rep.Checks[0]
			got := result{Passed: rep.Passed, Class: rep.Fingerprint.Class, Name: c.Name, Argv: c.Argv, Dir: c.Dir, ExitCode: c.ExitCode, Tail: tt.want.Tail}
			if !strings.Contains(c.OutputTail, tt.want.Tail) {
				got.Tail = c.OutputTail
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.Passed != rep.Passed || rep.Passed != rep.Fingerprint.IsZero() {
				t.Errorf("passed %t, check passed %t, fingerprint %v disagree", rep.Passed, c.Passed, rep.Fingerprint)
			}
			if strings.Contains(rep.Fingerprint.Summary+c.OutputTail+strings.Join(c.Argv, " "), "s3cret") {
				t.Errorf("the secret leaked into the report")
			}
			for _, d := range []string{root, outside, filepath.Dir(root)} {
				if _, err := os.Stat(filepath.Join(d, "ran")); err == nil {
					t.Errorf("a refused command ran in %s", d)
				}
			}
		})
	}
}

func TestCommandCancelled(t *testing.T) {
	cause := errors.New("run budget spent")
	ctx, cancel := context.WithCancelCause(t.Context())
	time.AfterFunc(200*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	rep, err := (&verify.Command{Argv: []string{"sleep", "30"}}).Verify(ctx, request(t, t.TempDir()))
	if !errors.Is(err, cause) || rep != nil {
		t.Errorf("Verify = %v, %v; want nil and an error wrapping the cause", rep, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s after cancellation", d)
	}
}

func TestCommandMisconfigured(t *testing.T) {
	tests := []struct {
		name string
		cmd  verify.Command
		is   error
	}{
		{"nothing to run", verify.Command{}, verify.ErrNoChecks},
		{"argv and script", verify.Command{Argv: []string{"true"}, Script: "true"}, verify.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := tt.cmd.Verify(t.Context(), request(t, t.TempDir()))
			if !errors.Is(err, tt.is) || rep != nil {
				t.Errorf("Verify = %v, %v; want an error matching %v", rep, err, tt.is)
			}
		})
	}
}

// The same failure twice has one fingerprint; another failure another.
func TestCommandFingerprintStable(t *testing.T) {
	fp := func(script string) verify.Fingerprint {
		// A fresh directory each time: the tree's path is not part of the failure.
		dir := t.TempDir()
		rep, err := (&verify.Command{Script: script}).Verify(t.Context(), request(t, dir))
		if err != nil || rep.Passed {
			t.Fatalf("Verify = %+v, %v; want a failing report", rep, err)
		}
		return rep.Fingerprint
	}
	const script = `echo "$(date +%s%N) $PWD/x.go:$$:7: bad thing at 0x$(printf %x $$)"; exit 1`
	a, b := fp(script), fp(script)
	if !a.Same(b) {
		t.Errorf("reruns differ: %v and %v", a, b)
	}
	if c := fp(`echo "another thing"; exit 1`); c.Same(a) {
		t.Errorf("different failures share fingerprint %v", c)
	}
}
