package verify_test

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/verify"
)

func TestParseGoTestJSON(t *testing.T) {
	ev := func(action, pkg, test, output string) string {
		return `{"Action":"` + action + `","Package":"` + pkg + `","Test":"` + test + `","Output":` + quote(output) + "}\n"
	}
	tests := []struct {
		name string
		in   string
		want verify.GoTestSummary
	}{
		{"empty", "", verify.GoTestSummary{}},
		{
			"pass, fail, skip and a subtest",
			ev("start", "p", "", "") + ev("run", "p", "TestA", "") + ev("output", "p", "TestA", "=== RUN   TestA\n") + ev("pass", "p", "TestA", "") +
				ev("run", "p", "TestB", "") + ev("run", "p", "TestB/sub", "") + ev("output", "p", "TestB/sub", "    b_test.go:9: got 3\n") +
				ev("fail", "p", "TestB/sub", "") + ev("fail", "p", "TestB", "") + ev("run", "p", "TestC", "") + ev("skip", "p", "TestC", "") +
				ev("output", "p", "", "FAIL\n") + ev("fail", "p", "", ""),
			verify.GoTestSummary{Run: 4, Passed: 1, Failed: 2, Skipped: 1, FailedTests: []string{"p.TestB", "p.TestB/sub"},
				FailedPackages: []string{"p"}, TestOutput: map[string]string{"p.TestB": "", "p.TestB/sub": "    b_test.go:9: got 3\n"},
				PackageOutput: map[string]string{"p": "FAIL\n"}},
		},
		{
			"build failure",
			`{"ImportPath":"p [p.test]","Action":"build-output","Output":"# p\n"}` + "\n" +
				`{"ImportPath":"p [p.test]","Action":"build-output","Output":"./a.go:3:9: undefined: x\n"}` + "\n" +
				`{"ImportPath":"p [p.test]","Action":"build-fail"}` + "\n" +
				`{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}` + "\n" +
				`{"Action":"fail","Package":"p","FailedBuild":"p [p.test]"}` + "\n",
			verify.GoTestSummary{BuildFailed: true, BuildOutput: "# p\n./a.go:3:9: undefined: x\n", FailedPackages: []string{"p"},
				PackageOutput: map[string]string{"p": "FAIL\tp [build failed]\n"}},
		},
		{
			"a test still running when its package fails",
			ev("run", "p", "TestHang", "") + ev("output", "p", "TestHang", "panic: test timed out after 1s\n") + ev("fail", "p", "", ""),
			verify.GoTestSummary{Run: 1, Failed: 1, FailedTests: []string{"p.TestHang"}, FailedPackages: []string{"p"},
				TestOutput: map[string]string{"p.TestHang": "panic: test timed out after 1s\n"}, PackageOutput: map[string]string{"p": ""}},
		},
		{
			"passing package without tests, and lines that are not events",
			"go: downloading x\n" + ev("start", "q", "", "") + ev("output", "q", "", "?   \tq\t[no test files]\n") + ev("skip", "q", "", "") + "{not json}\n" + `{"Action":""}` + "\n",
			verify.GoTestSummary{NotJSON: 3},
		},
		{"last line without a newline", strings.TrimSuffix(ev("run", "p", "T", "")+ev("pass", "p", "T", ""), "\n"), verify.GoTestSummary{Run: 1, Passed: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []struct {
				name string
				fn   func(string) verify.GoTestSummary
			}{
				{"whole", func(s string) verify.GoTestSummary {
					sum, err := verify.ParseGoTestJSON(strings.NewReader(s))
					if err != nil {
						t.Fatal(err)
					}
					return sum
				}},
				{"byte by byte", func(s string) verify.GoTestSummary {
					sum, err := verify.ParseGoTestJSON(iotest.OneByteReader(strings.NewReader(s)))
					if err != nil {
						t.Fatal(err)
					}
					return sum
				}},
			} {
				if diff := cmp.Diff(tt.want, r.fn(tt.in), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s: (-want +got):\n%s", r.name, diff)
				}
			}
		})
	}
}

// A line longer than the parser keeps is dropped, not a reason to grow.
func TestGoTestParserLongLine(t *testing.T) {
	var p verify.GoTestParser
	long := `{"Action":"output","Package":"p","Test":"T","Output":"` + strings.Repeat("x", 3<<20) + `"}` + "\n"
	p.Write([]byte(`{"Action":"run","Package":"p","Test":"T"}` + "\n"))
	p.Write([]byte(long))
	p.Write([]byte(`{"Action":"fail","Package":"p","Test":"T"}` + "\n"))
	sum := p.Summary()
	if sum.Run != 1 || sum.Failed != 1 || sum.NotJSON != 1 {
		t.Errorf("summary %+v: want 1 run, 1 failed, the long line not parsed", sum)
	}
	if n := len(sum.TestOutput["p.T"]); n != 0 {
		t.Errorf("kept %d bytes of the dropped line", n)
	}
}

// FuzzParseGoTestJSON: any stream parses without panic, the counts are
// consistent, and chunking does not change the result.
func FuzzParseGoTestJSON(f *testing.F) {
	f.Add([]byte(`{"Action":"run","Package":"p","Test":"T"}`+"\n"+`{"Action":"fail","Package":"p","Test":"T"}`+"\n"), uint8(3))
	f.Add([]byte(`{"ImportPath":"p","Action":"build-fail"}`+"\n"+`{"Action":"fail","Package":"p","FailedBuild":"p"}`), uint8(1))
	f.Add([]byte("x\n{\n}\n{\"Action\":\"output\",\"Package\":\"p\",\"Output\":\"a\\n\"}"), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, err := verify.ParseGoTestJSON(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if whole.Failed != len(whole.FailedTests) {
			t.Fatalf("inconsistent summary %+v", whole)
		}
		var p verify.GoTestParser
		step := int(chunk%16) + 1
		for i := 0; i < len(data); i += step {
			p.Write(data[i:min(i+step, len(data))])
		}
		if diff := cmp.Diff(whole, p.Summary(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("chunked parse differs (-whole +chunked):\n%s", diff)
		}
	})
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
