package verify_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"timestamps", "2026-12-02T10:44:18.277301581Z start\n2024/01/02 15:04:05 log line\nat 10:44:18.5", "<time> start\n<time> log line\nat <time>"},
		{"durations", "--- FAIL: TestX (0.00s)\nok  \tpkg\t1.234s\n   Passed    0.01 sec\ntook 1m30.5s, 300ms", "--- FAIL: TestX (<dur>)\nok pkg <dur>\nPassed <dur>\ntook <dur>, <dur>"},
		{"temp paths", "/tmp/TestFoo123/001/a.go /tmp/go-build3581/b001/x.test /var/folders/ab/cd12/T/go-build9/x $WORK/b001",
			"<tmp>/001/a.go <tmp>/b001/x.test <tmp>/x <tmp>/b001"},
		{"addresses", "main.f(0xc000012345, {0x55a8c0?})\n\t/src/a.go:12 +0x1d", "main.f(0x?, {0x??})\n/src/a.go:# +0x?"},
		{"line and column", "calc.go:12:5: undefined: x\na.cpp:3:1: error\nCMakeLists.txt:3 (add_executable)\nfile.cpp(12,5): error C2065\nat line 42", "calc.go:#: undefined: x\na.cpp:#: error\nCMakeLists.txt:# (add_executable)\nfile.cpp(#): error C2065\nat line #"},
		{"goroutines", "goroutine 18 [chan receive, 3 minutes]:\ncreated by main in goroutine 1", "goroutine # [chan receive]:\ncreated by main in goroutine #"},
		{"ids", "run 3f2a9c1e-1b2c-4d5e-8f90-123456789abc build 9f86d081884c7d65 ref deadbeef12 year 20261202", "run <id> build <hex> ref <hex> year 20261202"},
		{"words and short numbers stay", "expected 3, got 4 in TestDecade", "expected 3, got 4 in TestDecade"},
		{"colours, blanks and blank lines", "\x1b[31mFAIL\x1b[0m  \t x  \r\n\n\n  y", "FAIL x\ny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verify.Normalize(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewFingerprint(t *testing.T) {
	a := verify.NewFingerprint(verify.ClassTest, "--- FAIL: TestX (0.01s)\n    x_test.go:12: got 3", "TestX failed")
	tests := []struct {
		name string
		fp   verify.Fingerprint
		same bool
	}{
		{"rerun with other times and lines", verify.NewFingerprint(verify.ClassTest, "--- FAIL: TestX (0.20s)\n    x_test.go:14: got 3", "reworded"), true},
		{"other message", verify.NewFingerprint(verify.ClassTest, "--- FAIL: TestX (0.01s)\n    x_test.go:12: got 4", ""), false},
		{"other class", verify.NewFingerprint(verify.ClassCompile, "--- FAIL: TestX (0.01s)\n    x_test.go:12: got 3", ""), false},
	}
	if len(a.Hash) != 16 || a.Summary != "TestX failed" || a.Class != verify.ClassTest {
		t.Errorf("fingerprint %+v: want class test, 16 hex digits and the summary", a)
	}
	for _, tt := range tests {
		if got := a.Same(tt.fp); got != tt.same {
			t.Errorf("%s: Same = %t, want %t", tt.name, got, tt.same)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		argv   []string
		output string
		want   verify.FailureClass
	}{
		{"go build error", []string{"go", "build", "./..."}, "# example.com/x\n./x.go:3:9: undefined: y\n", verify.ClassCompile},
		{"go test build failure", []string{"go", "test"}, "FAIL\texample.com/x [build failed]\n", verify.ClassCompile},
		{"go test failure", []string{"go", "test"}, "--- FAIL: TestX (0.00s)\n    x_test.go:9: error: want 3\nFAIL\n", verify.ClassTest},
		{"gcc error", []string{"make"}, "a.cpp:1:18: error: 'x' was not declared in this scope\n", verify.ClassCompile},
		{"link error", []string{"make"}, "undefined reference to `h()'\ncollect2: error: ld returned 1 exit status\n", verify.ClassCompile},
		{"msvc error", []string{"msbuild"}, "calc.cpp(12,5): error C2065: 'x': undeclared identifier\n", verify.ClassCompile},
		{"msvc link error", []string{"msbuild"}, "main.obj : error LNK2019: unresolved external symbol \"int __cdecl h(void)\"\n", verify.ClassCompile},
		{"msbuild error", []string{"msbuild"}, "C:\\VS\\Microsoft.CppCommon.targets(254,5): error MSB8066: Custom build exited with code 1.\n", verify.ClassCompile},
		{"vet by argv", []string{"go", "vet", "./..."}, "x.go:1:1: something\n", verify.ClassLint},
		{"linter by program", []string{"/usr/bin/golangci-lint", "run"}, "whatever\n", verify.ClassLint},
		{"gofmt in a script", []string{"sh", "-c", "test -z $(gofmt -l .)"}, "x.go is not gofmt-ed\n", verify.ClassLint},
		{"missing tool", []string{"sh", "-c", "mytool"}, "sh: 1: mytool: not found\n", verify.ClassInfra},
		{"network", []string{"go", "test"}, "dial tcp 1.2.3.4:443: connect: connection refused\n", verify.ClassInfra},
		{"go test timeout", []string{"go", "test"}, "panic: test timed out after 1s\n", verify.ClassTimeout},
		{"a script that just fails", []string{"sh", "-c", "test -f x"}, "", verify.ClassTest},
		{"pytest", []string{"pytest"}, "=== 2 failed, 3 passed in 0.1s ===\n", verify.ClassTest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verify.Classify(tt.argv, tt.output); got != tt.want {
				t.Errorf("Classify = %q, want %q", got, tt.want)
			}
		})
	}
}
