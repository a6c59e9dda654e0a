package verify_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestGoTest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("testdata", "gotest"))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Passed                        bool
		Class                         verify.FailureClass
		Run, Passed_, Failed, Skipped int
		Summary                       string // a substring of the fingerprint's summary
	}
	tests := []struct {
		name string
		v    verify.GoTest
		want result
	}{
		{"passes", verify.GoTest{Dir: "pass"}, result{Passed: true, Run: 5, Passed_: 4, Skipped: 1}},
		{"flags and packages", verify.GoTest{Dir: "pass", Flags: []string{"-run=TestDivZero", "-count=1"}, Packages: []string{"."}},
			result{Passed: true, Run: 1, Passed_: 1}},
		{"a test fails", verify.GoTest{Dir: "fail"},
			result{Class: verify.ClassTest, Run: 5, Passed_: 3, Failed: 1, Skipped: 1, Summary: "1 of 5 tests failed: example.com/calc.TestDivZero"}},
		{"does not build", verify.GoTest{Dir: "build"},
			result{Class: verify.ClassCompile, Summary: "build failed: ./calc.go:6:16: undefined: undefinedError"}},
		{"no test files", verify.GoTest{Dir: "notests"},
			result{Class: verify.ClassTest, Summary: "no tests ran"}},
		{"no test matches", verify.GoTest{Dir: "pass", Flags: []string{"-run=NoSuchTest"}},
			result{Class: verify.ClassTest, Summary: "no tests ran"}},
		{"too few tests", verify.GoTest{Dir: "pass", MinTests: 6},
			result{Class: verify.ClassTest, Run: 5, Passed_: 4, Skipped: 1, Summary: "5 tests ran, want at least 6"}},
		{"a test panics", verify.GoTest{Dir: "panic"},
			result{Class: verify.ClassTest, Run: 2, Passed_: 1, Failed: 1, Summary: "example.com/calc.TestPanics"}},
		{"no such package", verify.GoTest{Dir: "pass", Packages: []string{"./nosuch"}},
			result{Class: verify.ClassCompile, Summary: "nosuch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := tt.v.Verify(t.Context(), request(t, root))
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Checks[0]
			got := result{Passed: rep.Passed, Class: rep.Fingerprint.Class, Run: c.TestsRun, Passed_: c.TestsPassed,
				Failed: c.TestsFailed, Skipped: c.TestsSkipped, Summary: tt.want.Summary}
			if !strings.Contains(rep.Fingerprint.Summary, tt.want.Summary) {
				got.Summary = rep.Fingerprint.Summary
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\noutput tail:\n%s", diff, c.OutputTail)
			}
			if rep.Passed != rep.Fingerprint.IsZero() {
				t.Errorf("passed %t with fingerprint %v", rep.Passed, rep.Fingerprint)
			}
		})
	}
}
