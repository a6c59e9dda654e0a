package guardrail_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

// editCase is a recorded git diff of testdata/edits with the settings and
// decisions its "# key: value" preamble states.
type editCase struct {
	file, why, diff string
	cfg             guardrail.EditConfig
	want            []string // "LEVEL RULE PATH[:LINE]"; empty means allowed
}

func readEditCase(t *testing.T, file string) editCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := editCase{file: file, diff: string(data), cfg: guardrail.EditConfig{TDD: guardrail.TDDConfig{Level: guardrail.Soft}}}
	list := func(v string) []string {
		var out []string
		for _, s := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(s))
		}
		return out
	}
	tree := fstest.MapFS{}
	for _, line := range strings.Split(c.diff, "\n") {
		kv, ok := strings.CutPrefix(line, "# ")
		if !ok {
			break
		}
		key, v, _ := strings.Cut(kv, ": ")
		switch key {
		case "why":
			c.why = v
		case "want":
			if v != "allow" {
				c.want = append(c.want, v)
			}
		case "scope":
			c.cfg.Scope = map[string][]string{"T1": list(v)}
		case "protected":
			c.cfg.Protected = guardrail.NewProtected(list(v)...)
		case "max":
			if c.cfg.MaxChangedLines, err = strconv.Atoi(v); err != nil {
				t.Fatalf("%s: max: %v", file, err)
			}
		case "tdd":
			if v == "off" {
				v = "allow"
			}
			if c.cfg.TDD.Level, err = guardrail.ParseLevel(v); err != nil {
				t.Fatalf("%s: tdd: %v", file, err)
			}
		case "exempt":
			c.cfg.TDD.Exempt = append(guardrail.DefaultTDDExempt(), list(v)...)
		case "roots":
			c.cfg.TDD.Roots = list(v)
		case "patterns":
			ext, pats, _ := strings.Cut(v, " = ")
			c.cfg.TDD.Patterns = guardrail.DefaultTestPatterns()
			c.cfg.TDD.Patterns[ext] = list(pats)
		case "tree":
			name, content, _ := strings.Cut(v, " = ")
			tree[name] = &fstest.MapFile{Data: []byte(content + "\n")}
			c.cfg.Tree = tree
		default:
			t.Fatalf("%s: unknown key %q", file, key)
		}
	}
	if c.why == "" {
		t.Fatalf("%s: no '# why:' line", file)
	}
	return c
}

// TestEditCorpus replays the recorded diffs of testdata/edits against their
// expected decisions.
func TestEditCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/edits/*.diff")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	rules := map[string]bool{}
	for _, file := range files {
		c := readEditCase(t, file)
		t.Run(strings.TrimSuffix(filepath.Base(file), ".diff"), func(t *testing.T) {
			g, err := guardrail.NewEditGuard(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ds, err := g.CheckEdit(t.Context(), guardrail.Action{Kind: guardrail.KindEdit, Diff: c.diff, Task: "T1"})
			if err != nil {
				t.Fatalf("CheckEdit: %v", err)
			}
			var got []string
			for _, d := range ds {
				s := fmt.Sprintf("%s %s %s", d.Level, d.Rule, d.Path)
				if d.Line > 0 {
					s += ":" + strconv.Itoa(d.Line)
				}
				got = append(got, s)
				rules[d.Rule] = true
				if d.Reason == "" {
					t.Errorf("decision %+v has no reason", d)
				}
				if secret := strings.HasPrefix(d.Rule, "edit.secret."); secret && !strings.HasSuffix(d.Match, "***") ||
					d.Rule == guardrail.RuleEditProtected && d.Match == "" {
					t.Errorf("decision %+v: want the masked secret or the protected path as its match", d)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s\ndecisions (-want +got):\n%s", c.why, diff)
			}
		})
	}
	for _, r := range []string{guardrail.RuleEditProtected, guardrail.RuleEditScope, guardrail.RuleEditSize, guardrail.RuleEditTDD} {
		if !rules[r] {
			t.Errorf("no corpus case decides by %s", r)
		}
	}
}

func TestEditGuardCheck(t *testing.T) {
	g, err := guardrail.NewEditGuard(guardrail.EditConfig{TDD: guardrail.TDDConfig{Level: guardrail.Soft}})
	if err != nil {
		t.Fatal(err)
	}
	hunk := "@@ -1,2 +1,4 @@\n package calc\n+\n+var token = \"ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d\"\n x\n"
	tests := []struct {
		name string
		a    guardrail.Action
		want guardrail.Decision
	}{
		{"not an edit", guardrail.Action{Kind: guardrail.KindCommand, Command: "rm -rf .harnish"}, guardrail.Decision{}},
		{"nothing changed", guardrail.Action{Kind: guardrail.KindEdit}, guardrail.Decision{}},
		{"path only", guardrail.Action{Kind: guardrail.KindEdit, Path: "calc/calc.go"}, guardrail.Decision{Level: guardrail.Soft, Rule: guardrail.RuleEditTDD,
			Reason: "calc/calc.go: product file changed without its test; write the test first (calc/calc_test.go, calc/test/calc_test.go, calc/tests/calc_test.go and 7 more)"}},
		{"path only, protected", guardrail.Action{Kind: guardrail.KindEdit, Path: `.harnish\state.json`}, guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleEditProtected,
			Reason: `.harnish/state.json: .harnish/state.json is protected (under ".harnish"); no change may modify it`, Match: ".harnish/state.json"}},
		{"hunks of the action's path; the hard decision wins", guardrail.Action{Kind: guardrail.KindEdit, Path: "calc/calc.go", Diff: hunk},
			guardrail.Decision{Level: guardrail.Hard, Rule: guardrail.RuleSecretGitHub,
				Reason: "calc/calc.go:3: GitHub token added (ghp_***); read credentials from the environment or a secret store instead (and 1 more)",
				Match:  "ghp_***"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.Check(t.Context(), tt.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditGuardFailsClosed(t *testing.T) {
	g, err := guardrail.NewEditGuard(guardrail.EditConfig{})
	if err != nil {
		t.Fatal(err)
	}
	a := guardrail.Action{Kind: guardrail.KindEdit, Diff: "--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n-a\n"}
	if _, err := g.Check(t.Context(), a); !errors.Is(err, guardrail.ErrDiff) {
		t.Errorf("Check of a truncated diff: error %v, want ErrDiff", err)
	}
	if d := guardrail.Evaluate(t.Context(), g, a); d.Level != guardrail.Hard || d.Rule != guardrail.RuleError {
		t.Errorf("Evaluate of a truncated diff = %+v, want hard %s", d, guardrail.RuleError)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := g.CheckEdit(ctx, guardrail.Action{Kind: guardrail.KindEdit, Path: "a.go"}); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckEdit with a cancelled context: error %v, want context.Canceled", err)
	}
}

func TestNewEditGuardErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     guardrail.EditConfig
		wantErr string
	}{
		{"bad scope glob", guardrail.EditConfig{Scope: map[string][]string{"T1": {"src/[a"}}}, `guardrail: scope of task "T1": bad pattern "src/[a"`},
		{"bad level", guardrail.EditConfig{TDD: guardrail.TDDConfig{Level: 5}}, "guardrail: tdd: guardrail: invalid level 5"},
		{"pattern without stem", guardrail.EditConfig{TDD: guardrail.TDDConfig{Patterns: map[string][]string{".go": {"all_test.go"}}}},
			`guardrail: tdd: test pattern "all_test.go" for .go: want a file name with {stem}`},
		{"extension without dot", guardrail.EditConfig{TDD: guardrail.TDDConfig{Patterns: map[string][]string{"go": {"{stem}_test.go"}}}},
			`guardrail: tdd: extension "go" does not start with '.'`},
		{"root with a slash", guardrail.EditConfig{TDD: guardrail.TDDConfig{Roots: []string{"a/tests"}}}, `guardrail: tdd: test root "a/tests": want a directory name`},
		{"bad exemption", guardrail.EditConfig{TDD: guardrail.TDDConfig{Exempt: []string{"[x"}}}, `guardrail: tdd: bad exempt pattern "[x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := guardrail.NewEditGuard(tt.cfg)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("NewEditGuard error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestInScope(t *testing.T) {
	entries := []string{"calc/calc.go", "docs/", "cmd/*", "*.md", "./internal//fsx"}
	for name, want := range map[string]bool{
		"calc/calc.go": true, "calc/calc_test.go": false, "docs/a/b.txt": true, "docsx/a": false,
		"cmd/harnish/main.go": true, "cmd": false, "README.md": true, "sub/README.md": false,
		"internal/fsx/atomic.go": true, "internal/fsxy/a.go": false, "./calc/calc.go": true,
	} {
		if got := guardrail.InScope(entries, name); got != want {
			t.Errorf("InScope(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEditDecisionString(t *testing.T) {
	for _, tt := range []struct {
		d    guardrail.EditDecision
		want string
	}{
		{guardrail.EditDecision{Decision: guardrail.Decision{Level: guardrail.Hard, Rule: "r", Reason: "why"}, Path: "a.go", Line: 3}, "hard r a.go:3: why"},
		{guardrail.EditDecision{Decision: guardrail.Decision{Level: guardrail.Soft, Rule: "r", Reason: "why"}, Path: "a.go"}, "soft r a.go: why"},
		{guardrail.EditDecision{Decision: guardrail.Decision{Level: guardrail.Hard, Rule: "r", Reason: "why"}}, "hard r: why"},
	} {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// The guard is used by hooks answering parallel tool calls.
func TestEditGuardConcurrent(t *testing.T) {
	c := readEditCase(t, "testdata/edits/everything.diff")
	g, err := guardrail.NewEditGuard(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	for range 8 {
		go func() {
			ds, _ := g.CheckEdit(context.Background(), guardrail.Action{Kind: guardrail.KindEdit, Diff: c.diff, Task: "T1"})
			done <- len(ds)
		}()
	}
	for range 8 {
		if n := <-done; n != len(c.want) {
			t.Errorf("concurrent CheckEdit: %d decisions, want %d", n, len(c.want))
		}
	}
}

// TestEditGuardLargeDiff judges a diff large enough for its files to be
// judged side by side, with one goroutine and with several: the decisions
// are the same, in the diff's order, and a cancelled context stops both.
func TestEditGuardLargeDiff(t *testing.T) {
	diff := benchDiff()
	for f := range 6 { // secrets in files of their own, among the others
		name := fmt.Sprintf("pkg%d/settings%d.env", f%5, f)
		diff += fmt.Sprintf("diff --git a/%s b/%[1]s\n--- a/%[1]s\n+++ b/%[1]s\n@@ -1,1 +1,2 @@\n LOG_LEVEL=info\n+DB_PASSWORD=Zq8%dvLk2Rm9Tx\n", name, f)
	}
	a := guardrail.Action{Kind: guardrail.KindEdit, Diff: diff, Task: "T1"}
	check := func(procs int) []guardrail.EditDecision {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		g, err := guardrail.NewEditGuard(benchConfig)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := g.CheckEdit(t.Context(), a)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := g.CheckEdit(ctx, a); !errors.Is(err, context.Canceled) {
			t.Errorf("GOMAXPROCS %d: CheckEdit with a cancelled context: error %v, want context.Canceled", procs, err)
		}
		return ds
	}
	one := check(1)
	secrets := 0
	for _, d := range one {
		if strings.HasPrefix(d.Rule, "edit.secret.") {
			secrets++
		}
	}
	if secrets != 6 {
		t.Errorf("%d secrets found, want 6: %v", secrets, one)
	}
	order := func(d guardrail.EditDecision) int { return strings.Index(diff, "+++ b/"+d.Path+"\n") }
	if !slices.IsSortedFunc(one, func(x, y guardrail.EditDecision) int { return order(x) - order(y) }) {
		t.Errorf("decisions not in the diff's order: %v", one)
	}
	for _, procs := range []int{2, 4, 8} {
		if d := cmp.Diff(one, check(procs)); d != "" {
			t.Errorf("GOMAXPROCS %d decides otherwise than 1 (-1 +%d):\n%s", procs, procs, d)
		}
	}
}
