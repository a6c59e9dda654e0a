package main

import (
	"strings"
	"testing"
)

// TestEmbedding runs the example and checks it tells its story: the
// library's wiring with the program's own agent, a retry, a commit per task.
func TestEmbedding(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), t.TempDir(), &out); err != nil {
		t.Fatalf("embedding: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"  hello attempt 1: checks pass\n  hello done\n",
		"  milestone after phase words approved\n",
		"  world attempt 1: checks fail: grep -qx world world.txt: exit status 1\n  world attempt 2\n  world attempt 2: checks pass\n",
		"outcome: completed (exit code 0)\n",
		"  feat(more): world — write world.txt\n  feat(words): hello — write hello.txt",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the example did not print %q:\n%s", want, out.String())
		}
	}
}
