package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

// needCMake skips the test when cmake is missing, unless
// HARNISH_REQUIRE_CMAKE is set (as CI sets it): then it fails.
func needCMake(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"cmake", "ctest", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("HARNISH_REQUIRE_CMAKE") != "" {
				t.Fatalf("%s is required (HARNISH_REQUIRE_CMAKE is set): %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
}

// copyProject copies testdata/cmake/<name> into a fresh working tree, so
// build trees never land in testdata.
func copyProject(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "cpp"), os.DirFS(filepath.Join("testdata", "cmake", name))); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestCMake(t *testing.T) {
	needCMake(t)
	type result struct {
		Passed     bool
		Class      verify.FailureClass
		Stages     []string
		Run, Fails int // of the last stage
		Summary    string
	}
	all := []string{"configure", "build", "list", "test"}
	tests := []struct {
		name    string
		project string
		v       verify.CMake
		want    result
	}{
		{"passes, with a compiler ID check", "pass", verify.CMake{Dir: "cpp", BuildDir: "b", CompilerID: "GNU"},
			result{Passed: true, Stages: []string{"configure", "compiler-id", "build", "list", "test"}, Run: 2}},
		{"passes with a preset", "pass", verify.CMake{Dir: "cpp", Preset: "dev"}, result{Passed: true, Stages: all, Run: 2}},
		{"compiler ID differs, in a preset's build tree", "pass", verify.CMake{Dir: "cpp", Preset: "dev", CompilerID: "MSVC"},
			result{Class: verify.ClassInfra, Stages: []string{"configure", "compiler-id"}, Summary: `CMAKE_CXX_COMPILER_ID is "GNU", want "MSVC"`}},
		{"does not compile", "compile-error", verify.CMake{Dir: "cpp"},
			result{Class: verify.ClassCompile, Stages: []string{"configure", "build"}, Summary: "build failed:"}},
		{"no tests", "no-tests", verify.CMake{Dir: "cpp"},
			result{Class: verify.ClassTest, Stages: []string{"configure", "build", "list"}, Summary: "ctest lists no tests"}},
		{"configure fails", "bad-cmake", verify.CMake{Dir: "cpp"},
			result{Class: verify.ClassCompile, Stages: []string{"configure"}, Summary: "configure failed: CMake Error"}},
		{"unknown preset", "pass", verify.CMake{Dir: "cpp", Preset: "nope"},
			result{Class: verify.ClassCompile, Stages: []string{"configure"}, Summary: "configure failed"}},
		{"build and test presets named, configure arguments added", "pass",
			verify.CMake{Dir: "cpp", Preset: "dev", BuildPreset: "dev", TestPreset: "dev", ConfigureArgs: []string{"-DCMAKE_BUILD_TYPE=Debug"}},
			result{Passed: true, Stages: all, Run: 2}},
		{"unknown build preset", "pass", verify.CMake{Dir: "cpp", Preset: "dev", BuildPreset: "nope"},
			result{Class: verify.ClassCompile, Stages: []string{"configure", "build"}, Summary: "build failed"}},
		{"unknown test preset", "pass", verify.CMake{Dir: "cpp", Preset: "dev", TestPreset: "nope"},
			result{Class: verify.ClassCompile, Stages: []string{"configure", "build", "list"}, Summary: "listing tests failed: "}},
		{"bad configure argument", "pass", verify.CMake{Dir: "cpp", ConfigureArgs: []string{"--no-such-option"}},
			result{Class: verify.ClassCompile, Stages: []string{"configure"}, Summary: "configure failed: CMake Error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := tt.v.Verify(t.Context(), request(t, copyProject(t, tt.project)))
			if err != nil {
				t.Fatal(err)
			}
			var stages []string
			for _, c := range rep.Checks {
				stages = append(stages, c.Stage)
			}
			last := rep.Checks[len(rep.Checks)-1]
			got := result{Passed: rep.Passed, Class: rep.Fingerprint.Class, Stages: stages, Run: last.TestsRun, Fails: last.TestsFailed, Summary: tt.want.Summary}
			if !strings.Contains(rep.Fingerprint.Summary, tt.want.Summary) {
				got.Summary = rep.Fingerprint.Summary
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nlast output:\n%s", diff, last.OutputTail)
			}
			for i, c := range rep.Checks {
				if want := rep.Passed || i < len(rep.Checks)-1; c.Passed != want {
					t.Errorf("stage %s passed = %t, want %t", c.Stage, c.Passed, want)
				}
			}
		})
	}
}

// A failing test: its output reaches the report, and a rerun of the same
// failure in another tree has the same fingerprint.
func TestCMakeTestFails(t *testing.T) {
	needCMake(t)
	var fps []verify.Fingerprint
	for range 2 {
		rep, err := (&verify.CMake{Dir: "cpp"}).Verify(t.Context(), request(t, copyProject(t, "fail")))
		if err != nil {
			t.Fatal(err)
		}
		last := rep.Checks[len(rep.Checks)-1]
		type result struct {
			Passed              bool
			Stage               string
			Run, Passed_, Fails int
			Fingerprint         verify.Fingerprint
		}
		want := result{Stage: "test", Run: 2, Passed_: 1, Fails: 1,
			Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: rep.Fingerprint.Hash, Summary: "cmake: 1 of 2 tests failed: rejects_zero (Failed)"}}
		got := result{rep.Passed, last.Stage, last.TestsRun, last.TestsPassed, last.TestsFailed, rep.Fingerprint}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if !strings.Contains(last.OutputTail, "divide(1, 0) succeeded, want false") {
			t.Errorf("output tail lacks the test's output:\n%s", last.OutputTail)
		}
		fps = append(fps, rep.Fingerprint)
	}
	if !fps[0].Same(fps[1]) {
		t.Errorf("reruns differ: %v, %v", fps[0], fps[1])
	}
}
