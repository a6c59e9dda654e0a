package msvc_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

func request(root string, files ...string) *verify.Request {
	return &verify.Request{Task: &task.Task{ID: "T1", Files: files}, WorkDir: root}
}

// noTools finds nothing in PATH, on Linux.
func noTools() msvc.Finder {
	return msvc.Finder{GOOS: "linux", LookPath: func(file string) (string, error) {
		return "", &exec.Error{Name: file, Err: exec.ErrNotFound}
	}}
}

// A repository without C or C++ passes, saying there was nothing to check.
func TestVerifyNothingToVerify(t *testing.T) {
	root := tree(t, "go.mod", "main.go")
	rep, err := (&msvc.Verifier{Finder: noTools()}).Verify(t.Context(), request(root))
	if err != nil {
		t.Fatal(err)
	}
	want := &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "msvc (discover)", Stage: "discover", Dir: ".", ExitCode: -1,
		OutputTail: "harnish: no C/C++ sources and no build metadata: nothing to verify", Passed: true}}}
	if diff := cmp.Diff(want, rep, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Duration" }, cmp.Ignore())); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// What keeps a report from being made is an unavailable verify.Error, with
// the cause to match.
func TestVerifyUnavailable(t *testing.T) {
	windowsNoVS := msvc.Finder{GOOS: "windows", Getenv: func(string) string { return t.TempDir() },
		LookPath: func(file string) (string, error) {
			if file == "vswhere.exe" {
				return "", exec.ErrNotFound
			}
			return `C:\bin\` + file, nil
		}}
	tests := []struct {
		name   string
		files  map[string]string
		v      *msvc.Verifier
		target error
		text   string
	}{
		{"config does not parse", map[string]string{msvc.ConfigFile: "{\"version\": 1,\n \"cmake\": {\"bin\": \"x\"}}"}, &msvc.Verifier{Finder: noTools()},
			nil, ".harnish/msvc.json:2:12: cmake.bin: unknown field"},
		{"config given is not valid", map[string]string{"CMakeLists.txt": ""}, &msvc.Verifier{Config: &msvc.Config{}, Finder: noTools()},
			nil, "version: 0 is not a supported version"},
		{"orphan project", map[string]string{"src/a.cpp": ""}, &msvc.Verifier{Finder: noTools()}, msvc.ErrOrphanProject, "src/a.cpp"},
		{"ambiguous project", map[string]string{"a.sln": "", "b.sln": ""}, &msvc.Verifier{Finder: noTools()}, msvc.ErrAmbiguousProject, "a.sln, b.sln"},
		{"no cmake", map[string]string{"CMakeLists.txt": ""}, &msvc.Verifier{Finder: noTools()}, msvc.ErrToolNotFound, "cmake (tried cmake in PATH)"},
		{"MSVC wanted, no Visual Studio", map[string]string{"CMakeLists.txt": ""}, &msvc.Verifier{Finder: windowsNoVS},
			msvc.ErrToolNotFound, "vswhere found no Visual Studio with the C++ tools"},
		{"MSBuild without a test command", map[string]string{"app.vcxproj": ""},
			&msvc.Verifier{Finder: msvc.Finder{GOOS: "linux", LookPath: func(string) (string, error) { return "unused", nil }}},
			nil, "set msbuild.testCommand in .harnish/msvc.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, root, name, content)
			}
			rep, err := tt.v.Verify(t.Context(), request(root))
			ve, ok := errors.AsType[*verify.Error](err)
			if !ok || ve.Kind != verify.KindUnavailable || verify.IsRetryable(err) {
				t.Fatalf("Verify() = %+v, %v; want an unavailable *verify.Error", rep, err)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("error %v does not match %v", err, tt.target)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q lacks %q", err, tt.text)
			}
		})
	}
}

// A context done before the start is the context's cause, not a report.
func TestVerifyCanceled(t *testing.T) {
	done, stop := contextWithCause(t.Context())
	stop()
	_, err := (&msvc.Verifier{Finder: noTools()}).Verify(done, request(tree(t, "CMakeLists.txt")))
	if !errors.Is(err, errStopped) {
		t.Errorf("Verify() error = %v, want the cause %v", err, errStopped)
	}
}

// The MSBuild plan, with fakes of MSBuild and of the tests.
func TestVerifyMSBuild(t *testing.T) {
	type stage struct {
		Stage      string
		Passed     bool
		Run, Fails int
	}
	type result struct {
		Passed  bool
		Class   verify.FailureClass
		Stages  []stage
		Summary string
	}
	tests := []struct {
		name           string
		config         string
		buildOut       string
		buildExit      int
		testOut        string
		testExit       int
		wantBuildArgs  []string
		wantTestCalled bool
		want           result
	}{
		{"passes", `{"version": 1, "msbuild": {"testCommand": ["bin/tests.exe", "--all"]}}`,
			"Build succeeded.\n", 0, "100% tests passed, 0 tests failed out of 3\n", 0,
			[]string{"app.sln", "/m", "/nologo", "/p:Configuration=Debug", "/p:Platform=x64"}, true,
			result{Passed: true, Stages: []stage{{"discover", true, 0, 0}, {"build", true, 0, 0}, {"test", true, 3, 0}}}},
		{"configuration and platform", `{"version": 1, "configuration": "Release", "platform": "Win32", "msbuild": {"testCommand": ["bin/tests.exe"]}}`,
			"", 0, "ok\n", 0,
			[]string{"app.sln", "/m", "/nologo", "/p:Configuration=Release", "/p:Platform=Win32"}, true,
			result{Passed: true, Stages: []stage{{"discover", true, 0, 0}, {"build", true, 0, 0}, {"test", true, 0, 0}}}},
		{"does not compile", `{"version": 1, "msbuild": {"testCommand": ["bin/tests.exe"]}}`,
			"main.cpp(3,5): error C2065: 'x': undeclared identifier [C:\\src\\app.vcxproj]\nBuild FAILED.\n", 1, "", 0,
			[]string{"app.sln", "/m", "/nologo", "/p:Configuration=Debug", "/p:Platform=x64"}, false,
			result{Class: verify.ClassCompile, Stages: []stage{{"discover", true, 0, 0}, {"build", false, 0, 0}}, Summary: "Build FAILED."}},
		{"does not link", `{"version": 1, "msbuild": {"testCommand": ["bin/tests.exe"]}}`,
			"main.obj : error LNK2019: unresolved external symbol h\n", 1, "", 0,
			[]string{"app.sln", "/m", "/nologo", "/p:Configuration=Debug", "/p:Platform=x64"}, false,
			result{Class: verify.ClassCompile, Stages: []stage{{"discover", true, 0, 0}, {"build", false, 0, 0}}, Summary: "error LNK2019"}},
		{"tests fail", `{"version": 1, "msbuild": {"testCommand": ["bin/tests.exe"]}}`,
			"", 0, "50% tests passed, 1 tests failed out of 2\n\nThe following tests FAILED:\n\t  2 - divides (Failed)\n", 8,
			[]string{"app.sln", "/m", "/nologo", "/p:Configuration=Debug", "/p:Platform=x64"}, true,
			result{Class: verify.ClassTest, Stages: []stage{{"discover", true, 0, 0}, {"build", true, 0, 0}, {"test", false, 2, 1}}, Summary: "divides (Failed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tree(t, "app.sln", "app/main.cpp")
			writeFile(t, root, msvc.ConfigFile, tt.config)
			msbuild := fake(t, t.TempDir(), "MSBuild.exe", tt.buildOut, tt.buildExit)
			tests := fake(t, root, "bin/tests.exe", tt.testOut, tt.testExit)
			v := &msvc.Verifier{Finder: msvc.Finder{GOOS: "linux", LookPath: func(file string) (string, error) {
				if file == "msbuild" {
					return msbuild, nil
				}
				return "", exec.ErrNotFound
			}}}
			rep, err := v.Verify(t.Context(), request(root))
			if err != nil {
				t.Fatal(err)
			}
			got := result{Passed: rep.Passed, Class: rep.Fingerprint.Class, Summary: tt.want.Summary}
			if !strings.Contains(rep.Fingerprint.Summary, tt.want.Summary) {
				got.Summary = rep.Fingerprint.Summary
			}
			for _, c := range rep.Checks {
				got.Stages = append(got.Stages, stage{c.Stage, c.Passed, c.TestsRun, c.TestsFailed})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantBuildArgs, fakeArgs(t, msbuild)); diff != "" {
				t.Errorf("MSBuild's arguments (-want +got):\n%s", diff)
			}
			if called := fakeArgs(t, tests) != nil; called != tt.wantTestCalled {
				t.Errorf("tests called = %t, want %t", called, tt.wantTestCalled)
			}
			if build := rep.Checks[1]; build.Argv[0] != msbuild || build.Dir != "." || build.ExitCode != tt.buildExit ||
				!strings.Contains(build.OutputTail, strings.TrimSpace(tt.buildOut)) {
				t.Errorf("build check = %+v; want MSBuild's argv, dir, exit code %d and output", build, tt.buildExit)
			}
		})
	}
}

// The timeout bounds the whole verification: a build that outlives it is a
// failed check of class timeout.
func TestVerifyTimeout(t *testing.T) {
	root := tree(t, "app.vcxproj")
	writeFile(t, root, msvc.ConfigFile, `{"version": 1, "timeout": 1, "msbuild": {"testCommand": ["bin/tests.exe"]}}`)
	msbuild := fake(t, t.TempDir(), "MSBuild.exe", "building\n", 0)
	writeFile(t, "", strings.TrimSuffix(msbuild, ".exe")+".sleep", "20s")
	v := &msvc.Verifier{Finder: msvc.Finder{GOOS: "linux", LookPath: func(string) (string, error) { return msbuild, nil }}}
	rep, err := v.Verify(t.Context(), request(root))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || rep.Fingerprint.Class != verify.ClassTimeout || len(rep.Checks) != 2 || rep.Checks[1].Duration > 15e9 {
		t.Errorf("report = %+v; want a build that timed out after about 1s", rep)
	}
}

// The test-first check: a file of the task's scope needs its test.
func TestVerifyTDD(t *testing.T) {
	cfg := `{"version": 1, "tdd": {"patterns": {".cpp": ["{stem}_test.cpp", "test_{stem}.cpp"]}}, "msbuild": {"testCommand": ["bin/tests.exe"]}}`
	tests := []struct {
		name    string
		files   []string // in the tree
		scope   []string // the task's
		passed  bool
		tail    string
		summary string
	}{
		{"tests beside and elsewhere", []string{"src/a.cpp", "src/a_test.cpp", "src/b.cpp", "tests/test_b.cpp"}, []string{"src/a.cpp", "src/b.cpp", "README.md"},
			true, "harnish: 2 C/C++ files of the task's scope have their tests", ""},
		{"a test is no product", []string{"src/a_test.cpp"}, []string{"src/a_test.cpp"}, true, "harnish: 0 C/C++ files", ""},
		{"a deleted file needs no test", nil, []string{"src/gone.cpp"}, true, "harnish: 0 C/C++ files", ""},
		{"headers have no pattern", []string{"src/a.h"}, []string{"src/a.h"}, true, "harnish: 0 C/C++ files", ""},
		{"missing tests", []string{"src/a.cpp", "src/b.cpp", "build/b_test.cpp"}, []string{"src/a.cpp", "src/b.cpp"},
			false, "harnish: no test file for:\n  src/a.cpp (want a_test.cpp or test_a.cpp)\n  src/b.cpp (want b_test.cpp or test_b.cpp)",
			"msvc: no test file for src/a.cpp (want a_test.cpp or test_a.cpp), src/b.cpp (want b_test.cpp or test_b.cpp)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := tree(t, append(tt.files, "app.sln")...)
			writeFile(t, root, msvc.ConfigFile, cfg)
			fake(t, root, "bin/tests.exe", "", 0)
			msbuild := fake(t, t.TempDir(), "MSBuild.exe", "", 0)
			v := &msvc.Verifier{Finder: msvc.Finder{GOOS: "linux", LookPath: func(string) (string, error) { return msbuild, nil }}}
			rep, err := v.Verify(t.Context(), request(root, tt.scope...))
			if err != nil {
				t.Fatal(err)
			}
			tdd := rep.Checks[1]
			if rep.Passed != tt.passed || tdd.Stage != "tdd" || tdd.Passed != tt.passed || !strings.HasPrefix(tdd.OutputTail, tt.tail) ||
				rep.Fingerprint.Summary != tt.summary {
				t.Errorf("report = %+v; want passed %t, a tdd check with %q, summary %q", rep, tt.passed, tt.tail, tt.summary)
			}
			if !tt.passed && (len(rep.Checks) != 2 || rep.Fingerprint.Class != verify.ClassTest || fakeArgs(t, msbuild) != nil) {
				t.Errorf("a failed tdd check must stop before the build: %+v", rep)
			}
		})
	}
}

var errStopped = errors.New("stopped by the test")

func contextWithCause(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, func() { cancel(errStopped) }
}
