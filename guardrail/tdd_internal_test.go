package guardrail

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// The test places of a clean path must be the candidates the rule listed
// before it kept them as directories and names: specCandidates is that
// rule, kept as the specification.
// specCandidates returns where the test of the product file name may be, nearest
// first; nil when name needs no test: not source code, a test itself, or
// exempt.
func specCandidates(r *tddRule, name string) []string {
	ext := path.Ext(name)
	pats := r.patterns[ext]
	if len(pats) == 0 || r.isTest(name) || r.exempted(name) {
		return nil
	}
	dir, base := path.Split(name)
	dir = strings.TrimSuffix(dir, "/")
	stem := strings.TrimSuffix(base, ext)
	var names []string
	for _, p := range pats {
		names = append(names, strings.ReplaceAll(p, "{stem}", stem))
	}
	out := make([]string, 0, len(names)*(1+len(r.roots)*(2+strings.Count(dir, "/"))))
	add := func(d string) {
		for _, n := range names {
			if c := joinClean(d, n); !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	add(dir)
	for _, root := range r.roots {
		add(joinClean(dir, root))
	}
	// Mirrors: tests/a/b/x, tests/b/x, tests/x for a/b/x.
	for _, root := range r.roots {
		for d := dir; ; {
			add(joinClean(root, d))
			i := strings.IndexByte(d, '/')
			if d == "" {
				break
			}
			if i < 0 {
				d = ""
			} else {
				d = d[i+1:]
			}
		}
	}
	return out
}

func TestTestPlacesAsSpecified(t *testing.T) {
	for _, name := range []string{"a.go", "pkg/a.go", "pkg/sub/deep/x.ts", "tests/a.go", "a/tests/b.py", "./a.go", "a//b.go",
		"a/./b.cpp", "a/../b.go", "x/test/y.go", "src/main.go", "index.ts", "a/b/c/d/e/f/g.tsx", "lib/x.test.ts", "pkg/a_test.go"} {
		checkPlaces(t, name)
	}
}

func FuzzTestPlaces(f *testing.F) {
	for _, s := range []string{"a.go", "pkg/sub/x.ts", "a//b/../c.py", "./x/./y.cc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if len(name) > 200 || strings.ContainsAny(name, "\x00\\") || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
			return
		}
		checkPlaces(t, name)
	})
}

func checkPlaces(t *testing.T, name string) {
	t.Helper()
	r, err := newTDDRule(TDDConfig{Level: Soft})
	if err != nil {
		t.Fatal(err)
	}
	p := r.places(name)
	got := slices.Collect(p.all())
	if path.Clean(name) != name {
		// The old rule let a path's "./" into its candidates; places
		// cleans them: each is clean and named once.
		for i, c := range got {
			if path.Clean(c) != c || slices.Index(got, c) != i {
				t.Fatalf("places(%q) holds %q: unclean or twice", name, c)
			}
		}
		return
	}
	want := specCandidates(&r, name)
	if !slices.Equal(got, want) {
		t.Fatalf("places(%q) = %q, want %q", name, got, want)
	}
	if len(want) > 0 {
		if w := listed(want, 3); p.listed(3) != w {
			t.Fatalf("places(%q).listed = %q, want %q", name, p.listed(3), w)
		}
	}
}

// joinClean is path.Join for clean, relative parts, as the specification
// joined them.
func joinClean(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.Contains(a, "..") || strings.Contains(b, "..") || strings.Contains(a, "./") || strings.Contains(b, "./") ||
		strings.HasSuffix(a, "/") || strings.HasPrefix(b, "/") || strings.Contains(b, "//") || strings.Contains(a, "//"):
		return path.Join(a, b)
	}
	return a + "/" + b
}
