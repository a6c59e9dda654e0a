package verify_test

import (
	"encoding/json"
	"fmt"

	"github.com/harnish/harnish/verify"
)

func ExampleParseSeverity() {
	for _, s := range []string{"critical", " High ", "blocker"} {
		sev, err := verify.ParseSeverity(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(sev, sev >= verify.SeverityHigh)
	}
	// Output:
	// critical true
	// high true
	// invalid severity "blocker"
}

// The same finding after the agent edited code above it: another line, another
// count in the message, and still the same key, so the loop sees the reviewer
// repeat itself.
func ExampleFinding_Key() {
	round1 := verify.Finding{Severity: verify.SeverityCritical, File: "calc/calc.go", Line: 12,
		Message: "Division by zero is not checked (2 callers)."}
	round2 := verify.Finding{Severity: verify.SeverityCritical, File: "./calc/calc.go", Line: 19,
		Message: "division by zero is not checked  (3 callers)"}
	fmt.Println(round1.Key())
	fmt.Println(round1.Key() == round2.Key())
	// Output:
	// critical|calc/calc.go|msg:division by zero is not checked (# callers)
	// true
}

// A reviewer program prints its findings as JSON; Review.Critical picks out
// those that send the task back.
func ExampleReview_Critical() {
	out := `{"findings": [
		{"severity": "low", "file": "calc/calc.go", "line": 3, "message": "doc comment"},
		{"severity": "CRITICAL", "file": "calc/calc.go", "line": 9, "message": "panics on b == 0"}
	]}`
	var r verify.Review
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range r.Critical() {
		fmt.Printf("%s %s:%d %s\n", f.Severity, f.File, f.Line, f.Message)
	}
	// Output: critical calc/calc.go:9 panics on b == 0
}

// Two runs of the same failing test, minutes apart and in different
// temporary directories, have one fingerprint.
func ExampleNewFingerprint() {
	run1 := "--- FAIL: TestDiv (0.00s)\n    /tmp/TestDiv4021/calc_test.go:12: Div(1, 0) = 0, want error\nFAIL\texample.com/calc\t0.004s"
	run2 := "--- FAIL: TestDiv (0.02s)\n    /tmp/TestDiv9977/calc_test.go:14: Div(1, 0) = 0, want error\nFAIL\texample.com/calc\t0.131s"
	a := verify.NewFingerprint(verify.Classify([]string{"go", "test"}, run1), run1, "TestDiv failed")
	b := verify.NewFingerprint(verify.Classify([]string{"go", "test"}, run2), run2, "TestDiv failed")
	fmt.Println(a.Class, a.Same(b))
	fmt.Println(verify.Normalize(run1))
	// Output:
	// test true
	// --- FAIL: TestDiv (<dur>)
	// <tmp>/calc_test.go:#: Div(1, 0) = 0, want error
	// FAIL example.com/calc <dur>
}
