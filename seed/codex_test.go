package seed_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/seed"
)

// harnishHook is the program Codex's hooks run, built once by TestMain.
var harnishHook string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		dir, err := os.MkdirTemp("", "harnish-seed-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		harnishHook = filepath.Join(dir, "harnish-hook")
		if out, err := exec.Command("go", "build", "-o", harnishHook, "github.com/harnish/harnish/cmd/harnish-hook").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building harnish-hook: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}())
}

// addFile is an apply_patch that writes text to name.
func addFile(name, text string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + name + "\n")
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		b.WriteString("+" + l + "\n")
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// TestDraftWithCodex drives the real Codex CLI against the scripted model:
// its first draft is refused, the problems reach the model in the second
// round's prompt, and its second draft is the plan.
func TestDraftWithCodex(t *testing.T) {
	if _, err := exec.LookPath("codex"); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("the codex CLI is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", err)
		}
		t.Skip("the codex CLI is not on PATH (npm install -g @openai/codex); set HARNISH_REQUIRE_AGENTS=1 to fail instead")
	}
	srv := codextest.NewServer(t,
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addFile(seed.DraftFile, badDraft))},
			Expect: codextest.Containing("## The PRD (docs/prd-cache.md)", "read-through cache")},
		codextest.Turn{Items: []codextest.Item{codextest.Message("Wrote the plan.")}},
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(addFile(seed.DraftFile, goodDraft))},
			Expect: codextest.Containing("Your previous draft was refused", "owner: unknown field", "has no check that runs")},
		codextest.Turn{Items: []codextest.Item{codextest.Message("Fixed the plan.")}},
	)
	dir := testkit.GitTree(t)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "prd-cache.md"), []byte(prd), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := &codex.Executor{Harnish: harnishHook, Provider: srv.Provider(), Model: codextest.Model,
		Env: map[string]string{"HOME": t.TempDir()}}
	res, err := seed.Draft(context.Background(), seed.Config{Executor: ex, Dir: dir}, seed.Request{PRD: "docs/prd-cache.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rounds != 2 || string(res.YAML) != goodDraft || len(res.Plan.Tasks()) != 1 {
		t.Errorf("rounds %d, plan:\n%s", res.Rounds, res.YAML)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests reached the model, want 4", n)
	}
}
