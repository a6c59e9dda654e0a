package secretrules_test

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

func TestDefault(t *testing.T) {
	s := secretrules.Default()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if s.Len() < 200 || s.Version() == "" {
		t.Errorf("Default has %d rules of version %q; want more than 200 and a version", s.Len(), s.Version())
	}
}

func TestScan(t *testing.T) {
	s := secretrules.Default()
	for _, c := range []struct{ path, line, want string }{
		{".env", "STRIPE_KEY=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", "stripe-access-token"},
		{"notes.md", "token: npm_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "npm-access-token"},
		{"README.md", "nothing to see here", ""},
		{"go.sum", "x", ""},
	} {
		var got []string
		s.Scan(c.path, c.line, func(m secretrules.Match) {
			got = append(got, m.Rule.ID)
			if !strings.Contains(c.line, m.Secret) || c.line[m.Start:m.End] != m.Secret {
				t.Errorf("%s: secret %q at %d:%d is not in the line", c.line, m.Secret, m.Start, m.End)
			}
		})
		if c.want == "" && len(got) > 0 || c.want != "" && !slices.Contains(got, c.want) {
			t.Errorf("Scan(%s, %q) = %v, want %q", c.path, c.line, got, c.want)
		}
	}
	if !s.PathAllowed("web/package-lock.json") || s.PathAllowed("web/config.js") {
		t.Errorf("PathAllowed: want lock files exempt and source files not")
	}
}

// TestMatcher compares the keyword automaton with strings.Contains on
// random text over the keywords' alphabet.
func TestMatcher(t *testing.T) {
	keywords := [][]string{{"akia", "asia"}, {"ghp_"}, {"sk", "key"}, {"ey"}, {"a"}, {"aa", "aaa"}}
	var rules []secretrules.Rule
	for i, ks := range keywords {
		rules = append(rules, secretrules.Rule{ID: string(rune('a' + i)), Regex: "^$", Keywords: ks})
	}
	s, err := secretrules.New(&secretrules.Config{Rules: rules}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "akisghp_ey .QAKG"
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		text := string(b)
		var want []string
		for i, ks := range keywords {
			for _, k := range ks {
				if strings.Contains(strings.ToLower(text), k) {
					want = append(want, rules[i].ID)
					break
				}
			}
		}
		got := secretrules.KeywordRules(s, text)
		if !slices.Equal(got, want) {
			t.Fatalf("keywords in %q: got %v, want %v", text, got, want)
		}
	}
}

// FuzzScan checks that no line makes a rule panic and that every secret is
// where the match says.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"AKIAJIBAGI3MNBQNSPUQ", "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d", "xoxb-1-2-x", "key=sk_live_x", ""} {
		f.Add("a.env", s)
	}
	set := secretrules.Default()
	f.Fuzz(func(t *testing.T, path, line string) {
		set.Scan(path, line, func(m secretrules.Match) {
			if m.Start < 0 || m.End > len(line) || line[m.Start:m.End] != m.Secret {
				t.Fatalf("%q: secret %q at %d:%d", line, m.Secret, m.Start, m.End)
			}
		})
	})
}

func TestPathFilters(t *testing.T) {
	paths := []string{"a.go", "web/package-lock.json", "vendor/modules.txt", "x/node_modules/y.js", "IMG.PNG", "go.sum",
		"src/gradlew", "infra/main.TF", "a/b/nuget.config", "lib/python3.12/site-packages/x.py", "Pipfile.lock", "k.yml",
		"a/.git", "Database.refactorlog", "x.php", "/Users/me/x", "deps/foo-1.2.dist-info/RECORD",
		"logo.JPG", "a/b.tiff", "f.WOFF2", "r.docx", "x.dll", "go.work.sum", "a/vendor/golang.org/x/net/y.go",
		"gradlew.bat", "mvnw.cmd", "web/jquery-ui.min.js", "lib/plotly-2.1.min.js.map", ".VENV/lib/x", "VirtualEnv/lib64/y",
		"usr/lib64/python3.11/os.py", "python/2.7/lib/x", "cfg.YML", "x/NuGet.Config", "cert.PFX", "k/a.p12",
		// Lower-cased beyond ASCII: the Kelvin sign is k, so x.socKet holds
		// "socket" (and its regexp, case-folding, matches).
		"x.soc\u212aet", "a.\u212aML"}
	if bad := secretrules.PathMismatches(secretrules.Default(), paths); len(bad) > 0 {
		t.Errorf("the literal filters change the answer of: %v", bad)
	}
}

// TestHeads checks the head filters lose no match: on every line of the
// secret corpora, and on lines the fuzzer finds (FuzzHeads).
func TestHeads(t *testing.T) {
	s := secretrules.Default()
	t.Logf("%d of %d rules have a head filter", secretrules.Heads(s), s.Len())
	n := 0
	for _, name := range []string{"secrets.txt", "secrets-field.txt", "secrets-heldout.txt", "secrets-heldout2.txt"} {
		data, err := os.ReadFile("../../testdata/edits/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			for _, part := range strings.Split(line, "⏎") {
				n++
				if bad := secretrules.HeadMisses(s, part); len(bad) > 0 {
					t.Errorf("%s: the head filter of %v loses %q", name, bad, part)
				}
			}
		}
	}
	if n < 300 {
		t.Fatalf("only %d lines read", n)
	}
}

func FuzzHeads(f *testing.F) {
	f.Add("token hvs.CAESIJ0000000000000000000000000000000000000000000000000000000000000000000000000000000000000")
	f.Add("s.abcdefghijklmnopqrstuvwx ")
	f.Add("ghp_0123456789abcdefghijklmnopqrstuvwxyz")
	s := secretrules.Default()
	f.Fuzz(func(t *testing.T, line string) {
		if bad := secretrules.HeadMisses(s, line); len(bad) > 0 {
			t.Fatalf("the head filter of %v loses %q", bad, line)
		}
	})
}
