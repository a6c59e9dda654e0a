package shell_test

import (
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func TestNestedLoopsBounded(t *testing.T) {
	src := strings.Repeat("for a in 1 2 3 4 5 6 7 8; do ", 12) + "rm -rf $a" + strings.Repeat("; done", 12)
	start := time.Now()
	s, err := shell.ParseBash(src)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second || len(s.Cmds) > 1000 {
		t.Fatalf("12 nested loops of 8 words: %d commands in %v", len(s.Cmds), d)
	}
}
