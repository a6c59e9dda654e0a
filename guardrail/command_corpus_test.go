package guardrail_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail"
)

// corpusEntry is one line of testdata/commands.txt.
type corpusEntry struct {
	line    int
	shell   guardrail.Shell
	want    string // "allow" or a rule ID
	command string
	why     string
}

// loadCorpus reads testdata/commands.txt: "SHELL WANT COMMAND ## WHY" per
// line, "⏎" standing for a newline inside COMMAND.
func loadCorpus(tb testing.TB) []corpusEntry {
	tb.Helper()
	f, err := os.Open("testdata/commands.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			tb.Fatalf("commands.txt:%d: want SHELL WANT COMMAND ## WHY", n)
		}
		rest := strings.TrimSpace(line[strings.Index(line, fields[1])+len(fields[1]):])
		i := strings.LastIndex(rest, " ## ")
		if i < 0 {
			tb.Fatalf("commands.txt:%d: no \" ## why\"", n)
		}
		out = append(out, corpusEntry{
			line: n, shell: guardrail.Shell(fields[0]), want: fields[1],
			command: strings.ReplaceAll(strings.TrimSpace(rest[:i]), "⏎", "\n"),
			why:     strings.TrimSpace(rest[i+4:]),
		})
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
		if got != c.want {
			t.Errorf("commands.txt:%d: %s %q = %s (%s), want %s: %s", c.line, c.shell, c.command, got, d.Reason, c.want, c.why)
		}
	}
}
