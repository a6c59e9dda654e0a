package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/verify"
)

func TestParseCTestList(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string
		wantErr bool
	}{
		{"tests", `{"kind": "ctestInfo", "version": {"major": 1, "minor": 0}, "tests": [{"name": "a", "command": ["x"]}, {"name": "b"}]}`, []string{"a", "b"}, false},
		{"no tests", `{"kind": "ctestInfo", "version": {"major": 1}, "tests": []}`, []string{}, false},
		{"tests missing", `{"kind": "ctestInfo", "version": {"major": 1}}`, nil, true},
		{"other kind", `{"kind": "codemodel", "version": {"major": 1}, "tests": []}`, nil, true},
		{"other major", `{"kind": "ctestInfo", "version": {"major": 2}, "tests": []}`, nil, true},
		{"not JSON", "No tests were found!!!", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verify.ParseCTestList([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %t", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseCTestOutput(t *testing.T) {
	corpus := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	tests := []struct {
		name string
		in   string
		want verify.CTestSummary
	}{
		{"a failure, recorded", corpus("test/ctest-divides/run1.txt"), verify.CTestSummary{Found: true, Total: 2, Failed: 1, FailedTests: []string{"divides (Failed)"}}},
		{"a timeout, recorded", corpus("timeout/ctest-hangs/run1.txt"), verify.CTestSummary{Found: true, Total: 2, Failed: 1, FailedTests: []string{"hangs (Timeout)"}}},
		{"all pass", "100% tests passed, 0 tests failed out of 3\n\nTotal Test time (real) =   0.01 sec\n", verify.CTestSummary{Found: true, Total: 3}},
		{"several failures, names with spaces", "0% tests passed, 2 tests failed out of 2\n\nThe following tests FAILED:\n\t  2 - b c (SEGFAULT)\n\t  1 - a (Not Run)\nErrors while running CTest\n",
			verify.CTestSummary{Found: true, Total: 2, Failed: 2, FailedTests: []string{"a (Not Run)", "b c (SEGFAULT)"}}},
		{"no summary", "No tests were found!!!\n", verify.CTestSummary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, verify.ParseCTestOutput(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseCTestList: no panic; a list means a valid ctestInfo object.
func FuzzParseCTestList(f *testing.F) {
	f.Add([]byte(`{"kind": "ctestInfo", "version": {"major": 1}, "tests": [{"name": "a"}]}`))
	f.Add([]byte(`{"kind": "ctestInfo", "version": {"major": 1}, "tests": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		names, err := verify.ParseCTestList(data)
		if err == nil && (names == nil || !strings.Contains(string(data), "ctestInfo")) {
			t.Fatalf("accepted %q as %v", data, names)
		}
	})
}

// FuzzParseCTestOutput: no panic; the failures listed never exceed what the
// summary line allows to be read.
func FuzzParseCTestOutput(f *testing.F) {
	f.Add("50% tests passed, 1 tests failed out of 2\n\nThe following tests FAILED:\n\t  2 - b (Failed)\n")
	f.Add("100% tests passed, 0 tests failed out of 1\n")
	f.Add("The following tests FAILED:\n 1 - x (y)\n")
	f.Fuzz(func(t *testing.T, out string) {
		s := verify.ParseCTestOutput(out)
		if !s.Found && (s.Total != 0 || s.Failed != 0 || len(s.FailedTests) != 0) {
			t.Fatalf("no summary line, yet %+v", s)
		}
		for _, name := range s.FailedTests {
			if !strings.HasSuffix(name, ")") {
				t.Fatalf("failed test %q lacks its status", name)
			}
		}
	})
}
