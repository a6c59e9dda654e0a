package claude_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// harnishBin is the program the real Claude Code's hooks call, built once
// for the tests: harnish-hook, as "harnish run" hands it to Claude Code when
// it is installed.
var harnishBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "harnish-claude-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	harnishBin = filepath.Join(dir, "harnish-hook")
	out, err := exec.Command("go", "build", "-o", harnishBin, "github.com/harnish/harnish/cmd/harnish-hook").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building harnish-hook: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needClaude skips the test when Claude Code is not installed, unless
// HARNISH_REQUIRE_AGENTS=1 says it must be (as in CI): then it fails. The
// test gets a HOME of its own.
func needClaude(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("claude"); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("claude is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", err)
		}
		t.Skip("claude (Claude Code) is not on PATH; install @anthropic-ai/claude-code or set HARNISH_REQUIRE_AGENTS=1 to require it")
	}
	t.Setenv("HOME", t.TempDir()) // the test's own, for git and the checks the loop runs
}
