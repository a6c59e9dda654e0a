package guardrail_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail"
)

// corpusEntry is one line of a command corpus.
type corpusEntry struct {
	file    string
	line    int
	shell   guardrail.Shell
	want    string // "allow" or a rule ID
	command string
	why     string
	// open is what the guard decided on a held-out case's first run when
	// that differs from want ("[open: allow]" at the end of WHY): the case
	// is on record, not yet closed. TestCommandCorpus holds the guard to
	// it, so a change is noticed, and asks for the mark to go once the
	// guard decides want.
	open string
}

func (c corpusEntry) String() string { return fmt.Sprintf("%s:%d", c.file, c.line) }

// decides is what the guard decides on the case now: want, or what an open
// case's first run decided.
func (c corpusEntry) decides() string {
	if c.open != "" {
		return c.open
	}
	return c.want
}

// loadCorpus reads the command corpora, testdata/commands*.txt: "SHELL WANT
// COMMAND ## WHY" per line, "⏎" standing for a newline inside COMMAND.
// commands.txt is harnish's own; the others hold one kind each of what
// other projects' guards test (commands-wrappers.txt, ...). A WHY ending in
// "[open: GOT]" marks a held-out case whose first run decided GOT.
func loadCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	files, err := filepath.Glob("testdata/commands*.txt")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no command corpus: %v", err)
	}
	var out []corpusEntry
	for _, name := range files {
		out = append(out, loadCorpusFile(tb, name)...)
	}
	return out
}

func loadCorpusFile(tb testing.TB, name string) []corpusEntry {
	tb.Helper()
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	base := filepath.Base(name)
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			tb.Fatalf("%s:%d: want SHELL WANT COMMAND ## WHY", base, n)
		}
		rest := strings.TrimSpace(line[strings.Index(line, fields[1])+len(fields[1]):])
		i := strings.LastIndex(rest, " ## ")
		if i < 0 {
			tb.Fatalf("%s:%d: no \" ## why\"", base, n)
		}
		e := corpusEntry{
			file: base, line: n, shell: guardrail.Shell(fields[0]), want: fields[1],
			command: strings.ReplaceAll(strings.TrimSpace(rest[:i]), "⏎", "\n"),
			why:     strings.TrimSpace(rest[i+4:]),
		}
		if j := strings.LastIndex(e.why, "[open: "); j >= 0 && strings.HasSuffix(e.why, "]") {
			e.open = strings.TrimSpace(e.why[j+len("[open: ") : len(e.why)-1])
			e.why = strings.TrimSpace(e.why[:j])
			if e.open == "" || e.open == e.want {
				tb.Fatalf("%s:%d: [open: %s] must name what the guard decides instead of %s", base, n, e.open, e.want)
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// corpusGuard is the policy the corpus is written against: the root /repo,
// protected .harnish/ (always), secrets/ and go.sum, and a small package
// allowlist.
func corpusGuard(tb testing.TB) *guardrail.CommandGuard {
	tb.Helper()
	g, err := guardrail.NewCommandGuard(guardrail.CommandConfig{
		Protected: guardrail.NewProtected("secrets/", "go.sum"),
		Packages: map[string][]string{
			"go":    {"github.com/google/go-cmp"},
			"npm":   {"zod", "@types/node"},
			"pypi":  {"requests", "typing_extensions"},
			"cargo": {"serde"},
			"apt":   {"jq"},
		},
		Root: "/repo",
	})
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func TestCommandCorpus(t *testing.T) {
	g := corpusGuard(t)
	for _, c := range loadCorpus(t) {
		a := guardrail.Action{Kind: guardrail.KindCommand, Shell: c.shell, Command: c.command}
		d := guardrail.Evaluate(t.Context(), g, a)
		got := "allow"
		if d.Level != guardrail.Allow {
			got = d.Rule
		}
		switch {
		case c.open != "" && got == c.want:
			t.Errorf("%s: %s %q = %s now: closed, drop its [open: %s]", c, c.shell, c.command, got, c.open)
		case c.open != "" && got != c.open:
			t.Errorf("%s: %s %q = %s (%s), recorded open as %s, want %s: %s", c, c.shell, c.command, got, d.Reason, c.open, c.want, c.why)
		case c.open == "" && got != c.want:
			t.Errorf("%s: %s %q = %s (%s), want %s: %s", c, c.shell, c.command, got, d.Reason, c.want, c.why)
		}
	}
}

// TestCommandHeldoutFigures logs, per held-out file (testdata/commands-heldout*.txt),
// how many must-block cases are blocked (by any hard rule, and by the rule
// written down) and how many must-pass cases are blocked: the recall and
// false-block figures of the report. Run with -v; TestCommandCorpus holds
// the exact rules.
func TestCommandHeldoutFigures(t *testing.T) {
	g := corpusGuard(t)
	files, err := filepath.Glob("testdata/commands-heldout*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no held-out corpus: %v", err)
	}
	var tb, tc, tr, ta, tf int
	for _, name := range files {
		var block, caught, right, pass, falsely int
		for _, c := range loadCorpusFile(t, name) {
			a := guardrail.Action{Kind: guardrail.KindCommand, Shell: c.shell, Command: c.command}
			d := guardrail.Evaluate(t.Context(), g, a)
			blocked := d.Level != guardrail.Allow
			if c.want == "allow" {
				pass++
				if blocked {
					falsely++
					t.Logf("false block %s: %s %q = %s", c, c.shell, c.command, d.Rule)
				}
				continue
			}
			block++
			switch {
			case !blocked:
				t.Logf("miss %s: %s %q (want %s)", c, c.shell, c.command, c.want)
			case d.Rule != c.want:
				caught++
				t.Logf("other rule %s: %s %q = %s, want %s", c, c.shell, c.command, d.Rule, c.want)
			default:
				caught++
				right++
			}
		}
		t.Logf("%s: blocked %d/%d (%d with the written rule), falsely blocked %d/%d",
			filepath.Base(name), caught, block, right, falsely, pass)
		tb, tc, tr, ta, tf = tb+block, tc+caught, tr+right, ta+pass, tf+falsely
	}
	t.Logf("all held out: blocked %d/%d (%.1f%%; %d with the written rule), falsely blocked %d/%d (%.1f%%)",
		tc, tb, 100*float64(tc)/float64(max(tb, 1)), tr, tf, ta, 100*float64(tf)/float64(max(ta, 1)))
}
