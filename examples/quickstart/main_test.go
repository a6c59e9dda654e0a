package main

import (
	"strings"
	"testing"
)

// TestQuickstart runs the demo for real (git, go test, go vet, the scripted
// agent, reviewer and debugger) and checks it tells its story.
func TestQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a generated project")
	}
	var out strings.Builder
	code, err := run(t.TempDir(), &out)
	if code != 0 || err != nil {
		t.Fatalf("quickstart: exit %d, %v\n%s", code, err, out.String())
	}
	for _, want := range []string{
		"  add done",
		"  attempt 1: checks fail: go test ./calc/...: build failed: calc/divide.go:4:48: undefined: c",
		"  attempt 2: checks fail: go test ./calc/...: 1 of 2 tests failed: example.com/calc/calc.TestDivide",
		"  sent back: review failure: 1 critical review findings",
		"  -- milestone: phase library is done; checklist:",
		"  the same failure twice: the debugger investigates: no root cause",
		"outcome: halted (exit code 2): task cli: the failure repeated and the debugger found no root cause",
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("the demo did not print %q:\n%s", want, out.String())
		}
	}
}
