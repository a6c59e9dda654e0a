//go:build unix

package seed_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/executor/claude/claudetest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/seed"
)

// promptHas is a turn's check that the request's prompt holds every one of
// wants.
func promptHas(wants ...string) func(*claudetest.Request) error {
	return func(r *claudetest.Request) error {
		p := r.Prompt()
		for _, w := range wants {
			if !strings.Contains(p, w) {
				return fmt.Errorf("the prompt lacks %q", w)
			}
		}
		return nil
	}
}

// TestDraftWithClaude drives the real Claude Code CLI against the scripted
// Anthropic server: its first draft, written with Claude Code's own Write
// tool, is refused; the problems reach the model in the second round's
// prompt; its second draft is the plan.
func TestDraftWithClaude(t *testing.T) {
	if _, err := exec.LookPath("claude"); err != nil {
		if os.Getenv("HARNISH_REQUIRE_AGENTS") == "1" {
			t.Fatalf("the claude CLI is not on PATH and HARNISH_REQUIRE_AGENTS=1: %v", err)
		}
		t.Skip("the claude CLI is not on PATH (npm install @anthropic-ai/claude-code); set HARNISH_REQUIRE_AGENTS=1 to fail instead")
	}
	dir := testkit.GitTree(t)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "prd-cache.md"), []byte(prd), 0o644); err != nil {
		t.Fatal(err)
	}
	draft := filepath.Join(dir, seed.DraftFile)
	srv := claudetest.NewServer(t,
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write(draft, badDraft)},
			Expect: promptHas("## The PRD (docs/prd-cache.md)", "read-through cache")},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Wrote the plan.")}},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write(draft, goodDraft)},
			Expect: promptHas("Your previous draft was refused", "owner: unknown field", "has no check that runs")},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Fixed the plan.")}},
	)
	ex := srv.Executor()
	ex.Harnish, ex.Model = harnishHook, "claude-test-model"
	ex.Env["HOME"] = t.TempDir()
	res, err := seed.Draft(context.Background(), seed.Config{Executor: ex, Dir: dir}, seed.Request{PRD: "docs/prd-cache.md"})
	if err != nil {
		t.Fatalf("%v\nserver calls: %v", err, srv.Calls())
	}
	if res.Rounds != 2 || string(res.YAML) != goodDraft || len(res.Plan.Tasks()) != 1 {
		t.Errorf("rounds %d, plan:\n%s", res.Rounds, res.YAML)
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("%d scripted turns were not asked for; calls: %v", n, srv.Calls())
	}
}
