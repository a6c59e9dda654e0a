package codex_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/executor/codex/codextest"
)

// harnishBin is the program the hooks run, built once by TestMain:
// harnish-hook, as "harnish run" hands it to Codex when it is installed.
var harnishBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "harnish-codex-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	harnishBin = filepath.Join(dir, "harnish-hook")
	out, err := exec.Command("go", "build", "-o", harnishBin, "github.com/harnish/harnish/cmd/harnish-hook").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building harnish-hook: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// needCodex skips the test when the codex CLI is not installed, unless
// HARNISH_REQUIRE_AGENTS=1 (as in CI), where a missing CLI fails it.
func needCodex(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("codex"); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("the codex CLI is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", err)
		}
		t.Skip("the codex CLI is not on PATH (npm install -g @openai/codex); set HARNISH_REQUIRE_AGENTS=1 to fail instead")
	}
}

// newExecutor returns an executor that runs the real codex against srv,
// with a HOME of its own.
func newExecutor(t testing.TB, srv *codextest.Server) *codex.Executor {
	t.Helper()
	return &codex.Executor{Harnish: harnishBin, Provider: srv.Provider(), Model: codextest.Model,
		Env: map[string]string{"HOME": t.TempDir()}}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
