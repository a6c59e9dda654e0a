package secretrules_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// TestGenerated checks that rules_gen.go is what ./gen makes of
// gitleaks.json now: run go generate in this directory when it fails.
func TestGenerated(t *testing.T) {
	data, err := os.ReadFile("gitleaks.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := secretrules.GoSource(mustJSON(t, data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("rules_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("rules_gen.go is stale: run go generate ./guardrail/internal/secretrules")
	}
}

func mustJSON(t testing.TB, data []byte) *secretrules.Config {
	t.Helper()
	cfg, err := secretrules.DecodeJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// corpusLines are the lines of the secret corpora with their files' paths.
func corpusLines(t testing.TB) [][2]string {
	var out [][2]string
	for _, name := range []string{"secrets.txt", "secrets-field.txt", "secrets-heldout.txt", "secrets-heldout2.txt"} {
		data, err := os.ReadFile("../../testdata/edits/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.SplitN(l, "\t", 4)
			if len(f) != 4 || strings.HasPrefix(l, "#") {
				continue
			}
			for _, part := range strings.Split(f[3], "⏎") {
				out = append(out, [2]string{f[1], part})
			}
		}
	}
	if len(out) < 300 {
		t.Fatalf("only %d corpus lines", len(out))
	}
	return out
}

// scanAll returns what scan reports for line, one string per match.
func scanAll(scan func(path, line string, found func(secretrules.Match)), path, line string) []string {
	var out []string
	scan(path, line, func(m secretrules.Match) {
		out = append(out, m.Rule.ID+" "+m.Secret)
	})
	slices.Sort(out)
	return out
}

// differ returns how Default's scan, with its generated data, keyword
// automaton, head filters, literal filters and lazy compilation, differs
// from the full scan of the rules decoded from gitleaks.json, on line of
// the file at path; "" when it does not.
func differ(t testing.TB, full *secretrules.Set, path, line string) string {
	lazy := scanAll(secretrules.Default().Scan, path, line)
	want := scanAll(func(p, l string, found func(secretrules.Match)) { secretrules.FullScan(full, p, l, found) }, path, line)
	if !slices.Equal(lazy, want) {
		return strings.Join(lazy, ", ") + " | full: " + strings.Join(want, ", ")
	}
	return ""
}

func fullSet(t testing.TB) *secretrules.Set {
	data, err := os.ReadFile("gitleaks.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := secretrules.FromJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLazyFindsWhatFullFinds is the differential test of the fast path:
// on every line of every secret corpus, under its own file's path and
// under others (source, configuration, an exempt lock file, a path some
// rules are limited to), Default finds exactly what running every rule
// whose keyword the line holds finds, so no filter can silently lose a
// rule.
func TestLazyFindsWhatFullFinds(t *testing.T) {
	full := fullSet(t)
	found := 0
	for _, c := range corpusLines(t) {
		for _, path := range []string{c[0], "src/app.go", ".env", "package-lock.json", "infra/main.tf", "a/nuget.config"} {
			if d := differ(t, full, path, c[1]); d != "" {
				t.Errorf("%s: %q: %s", path, c[1], d)
			}
		}
		found += len(scanAll(secretrules.Default().Scan, c[0], c[1]))
	}
	if found < 100 {
		t.Errorf("the corpora gave only %d matches; the test compares too little", found)
	}
}

// FuzzLazyFull is TestLazyFindsWhatFullFinds on lines the fuzzer makes.
func FuzzLazyFull(f *testing.F) {
	for _, c := range corpusLines(f) {
		f.Add(c[0], c[1])
	}
	full := fullSet(f)
	f.Fuzz(func(t *testing.T, path, line string) {
		if d := differ(t, full, path, line); d != "" {
			t.Fatalf("%s: %q: %s", path, line, d)
		}
	})
}

// TestKeywordsConcurrent scans with a fresh matcher from several
// goroutines at once, so the transitions they work out race (go test
// -race), and checks every answer against strings.Contains.
func TestKeywordsConcurrent(t *testing.T) {
	groups := secretrules.Default().Keywords()
	k := secretrules.NewKeywords(groups)
	lines := corpusLines(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(lines); i += 2 {
				line := lines[i][1]
				got := map[uint16]bool{}
				lower := strings.ToLower(line)
				ascii := []byte(line) // lowered as keywords fold: ASCII only, byte for byte
				for i, c := range ascii {
					if 'A' <= c && c <= 'Z' {
						ascii[i] = c + 'a' - 'A'
					}
				}
				k.Scan(line, func(gs []uint16, end int) {
					for _, x := range gs {
						got[x] = true
						// A keyword of the group ends where Scan says.
						if !slices.ContainsFunc(groups[x], func(kw string) bool { return strings.HasSuffix(string(ascii[:end]), kw) }) {
							t.Errorf("%q: group %d (%v) reported ending at %d", line, x, groups[x], end)
						}
					}
				})
				for x, ks := range groups {
					want := slices.ContainsFunc(ks, func(kw string) bool { return strings.Contains(lower, kw) })
					if got[uint16(x)] != want {
						t.Errorf("%q: group %d (%v): got %t, want %t", line, x, ks, got[uint16(x)], want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// FuzzPathFilters checks that a path pattern's literals never reject a
// path its regexp matches (TestPathFilters on paths the fuzzer makes).
func FuzzPathFilters(f *testing.F) {
	for _, p := range []string{"a.go", "web/package-lock.json", "IMG.JPEG", "x/lib64/python3.12/y", "a/vendor/golang.org/x/y", "b.TIFF", "main.hcl", "x.soc\u212aet"} {
		f.Add(p)
	}
	s := secretrules.Default()
	f.Fuzz(func(t *testing.T, path string) {
		if bad := secretrules.PathMismatches(s, []string{path}); len(bad) > 0 {
			t.Fatalf("the literal filters change the answer of: %v", bad)
		}
	})
}
