package msvc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
	"github.com/harnish/harnish/verify"
)

// needCMake skips the test when cmake, ctest or a C++ compiler is missing,
// unless HARNISH_REQUIRE_CMAKE is set (as CI sets it): then it fails. The
// same convention as verify's tests.
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

// project writes a small CMake project with two tests into a fresh tree;
// edits replace text in its files to make it fail in one way or another.
func project(t *testing.T, edits ...string) string {
	t.Helper()
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(calc LANGUAGES CXX)\nenable_testing()\n" +
			"add_executable(calc_test calc_test.cpp calc.cpp)\n" +
			"add_test(NAME adds COMMAND calc_test adds)\nadd_test(NAME subtracts COMMAND calc_test subtracts)\n",
		"CMakePresets.json": `{"version": 3,
  "configurePresets": [{"name": "dev", "binaryDir": "${sourceDir}/out/dev", "generator": "Unix Makefiles", "cacheVariables": {"CMAKE_BUILD_TYPE": "Debug"}}],
  "buildPresets": [{"name": "dev-build", "configurePreset": "dev"}],
  "testPresets": [{"name": "dev-test", "configurePreset": "dev", "output": {"outputOnFailure": true}}]}`,
		"calc.h":   "#pragma once\nint add(int a, int b);\nint sub(int a, int b);\n",
		"calc.cpp": "#include \"calc.h\"\nint add(int a, int b) { return a + b; }\nint sub(int a, int b) { return a - b; }\n",
		"calc_test.cpp": "#include <cstdio>\n#include <cstring>\n#include \"calc.h\"\n" +
			"int main(int argc, char **argv) {\n" +
			"  if (argc == 2 && std::strcmp(argv[1], \"adds\") == 0) return add(2, 3) == 5 ? 0 : 1;\n" +
			"  if (argc == 2 && std::strcmp(argv[1], \"subtracts\") == 0) {\n" +
			"    if (sub(5, 3) != 2) { std::fprintf(stderr, \"sub(5, 3) = %d, want 2\\n\", sub(5, 3)); return 1; }\n" +
			"    return 0;\n  }\n  return 2;\n}\n",
	}
	root := t.TempDir()
	for name, content := range files {
		for i := 0; i+1 < len(edits); i += 2 {
			content = strings.ReplaceAll(content, edits[i], edits[i+1])
		}
		writeFile(t, root, name, content)
	}
	return root
}

// moveInto moves the files of root into its directory sub.
func moveInto(t *testing.T, root, sub string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(root, e.Name()), filepath.Join(root, sub, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

type cmakeResult struct {
	Passed      bool
	Class       verify.FailureClass
	Stages      []string
	Run, Failed int // of the last stage
	Summary     string
}

func runCMake(t *testing.T, root, config string) (*verify.Report, cmakeResult, string) {
	t.Helper()
	if config != "" {
		writeFile(t, root, msvc.ConfigFile, config)
	}
	rep, err := (&msvc.Verifier{}).Verify(t.Context(), request(root))
	if err != nil {
		t.Fatal(err)
	}
	got := cmakeResult{Passed: rep.Passed, Class: rep.Fingerprint.Class, Summary: rep.Fingerprint.Summary}
	for _, c := range rep.Checks {
		got.Stages = append(got.Stages, c.Stage)
	}
	last := rep.Checks[len(rep.Checks)-1]
	got.Run, got.Failed = last.TestsRun, last.TestsFailed
	return rep, got, last.OutputTail
}

const gnu = `{"version": 1, "compilerId": "GNU"}`

// The real thing, with GCC standing in for MSVC (compilerId GNU). One tree
// is configured once and reused by the cases that need no other sources.
func TestCMake(t *testing.T) {
	needCMake(t)
	all := []string{"discover", "configure", "compiler-id", "build", "list", "test"}
	t.Run("shared tree", func(t *testing.T) {
		t.Parallel()
		root := project(t)
		steps := []struct {
			name   string
			config string
			want   cmakeResult
		}{
			{"passes", gnu, cmakeResult{Passed: true, Stages: all, Run: 2}},
			{"MSVC expected by default, GNU found", `{"version": 1}`, cmakeResult{Class: verify.ClassInfra,
				Stages: []string{"discover", "configure", "compiler-id"}, Summary: `cmake: CMAKE_CXX_COMPILER_ID is "GNU", want "MSVC"`}},
			{"any compiler", `{"version": 1, "compilerId": "any"}`,
				cmakeResult{Passed: true, Stages: []string{"discover", "configure", "build", "list", "test"}, Run: 2}},
			{"presets", `{"version": 1, "compilerId": "GNU", "cmake": {"configurePreset": "dev", "buildPreset": "dev-build", "testPreset": "dev-test", "binaryDir": "out/dev"}}`,
				cmakeResult{Passed: true, Stages: all, Run: 2}},
		}
		for _, s := range steps {
			rep, got, tail := runCMake(t, root, s.config)
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s\nlast output:\n%s", s.name, diff, tail)
			}
			if s.name == "passes" {
				configure := rep.Checks[1]
				want := []string{"cmake", "-S", ".", "-B", filepath.FromSlash(".harnish/msvc/build"), "-DCMAKE_BUILD_TYPE=Debug"}
				if !strings.HasSuffix(configure.Argv[0], "cmake") || !cmp.Equal(configure.Argv[1:], want[1:]) || configure.Dir != "." || configure.ExitCode != 0 {
					t.Errorf("configure check = %+v, want argv %q in .", configure, want)
				}
				if !strings.Contains(rep.Checks[0].OutputTail, "harnish: cmake project CMakePresets.json (found CMakePresets.json)") {
					t.Errorf("discover check says %q", rep.Checks[0].OutputTail)
				}
			}
			if s.name == "presets" {
				if build := rep.Checks[3]; !cmp.Equal(build.Argv[1:], []string{"--build", "--preset", "dev-build"}) {
					t.Errorf("build argv = %q, want the build preset", build.Argv)
				}
			}
		}
	})
	tests := []struct {
		name     string
		edits    []string
		sub      string // a directory the project is moved into
		config   string
		want     cmakeResult
		wantTail string
	}{
		{"a test fails", []string{"return a - b;", "return a + b;"}, "", gnu, cmakeResult{Class: verify.ClassTest, Stages: all, Run: 2, Failed: 1,
			Summary: "cmake: 1 of 2 tests failed: subtracts (Failed)"}, "sub(5, 3) = 8, want 2"},
		{"no tests", []string{"add_test(", "# add_test("}, "", gnu, cmakeResult{Class: verify.ClassTest,
			Stages: []string{"discover", "configure", "compiler-id", "build", "list"}, Summary: "cmake: ctest lists no tests"}, "harnish: ctest lists no tests"},
		{"does not compile", []string{"return a - b;", "return a - ;"}, "", gnu, cmakeResult{Class: verify.ClassCompile,
			Stages: []string{"discover", "configure", "compiler-id", "build"}, Summary: "cmake: build failed: "}, "error: expected primary-expression"},
		{"in a source directory", nil, "cpp", `{"version": 1, "compilerId": "GNU", "cmake": {"sourceDir": "cpp"}}`,
			cmakeResult{Passed: true, Stages: all, Run: 2}, "100% tests passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := project(t, tt.edits...)
			if tt.sub != "" {
				moveInto(t, root, tt.sub)
			}
			_, got, tail := runCMake(t, root, tt.config)
			if strings.HasPrefix(got.Summary, tt.want.Summary) {
				got.Summary = tt.want.Summary
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nlast output:\n%s", diff, tail)
			}
			if !strings.Contains(tail, tt.wantTail) {
				t.Errorf("last output lacks %q:\n%s", tt.wantTail, tail)
			}
			if _, err := os.Stat(filepath.Join(root, ".harnish", "msvc", "build", "CMakeCache.txt")); err != nil {
				t.Errorf("no build tree under .harnish/msvc/build: %v", err)
			}
		})
	}
}
