package guardrail

import (
	"os"
	"path"
	"reflect"
	"strings"
	"testing"
)

// The edit guard's per-file rules read their patterns in faster ways than
// they once did: scope entries and exempt patterns compiled once, the
// generated-code marker found with one search, the TDD rule's candidates
// ruled out by file name. These tests compare each with the plain
// reading it replaced, kept here as the specification.

// inScopeSpec is InScope as it was: every entry cleaned, and path.Match
// tried on the name and each of its directories.
func inScopeSpec(entries []string, name string) bool {
	name = cleanRel(name)
	for _, e := range entries {
		e = cleanRel(e)
		if e == "" {
			continue
		}
		if e == "." || name == e || strings.HasPrefix(name, e+"/") {
			return true
		}
		for p := name; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if ok, _ := path.Match(e, p); ok {
				return true
			}
		}
	}
	return false
}

// matchSpec is pathPatterns.match as it was: each pattern tried in turn.
func matchSpec(ps []string, name string) bool {
	base := path.Base(name)
	for _, s := range ps {
		var ok bool
		switch {
		case strings.HasSuffix(s, "/"):
			ok = hasDir(name, strings.TrimSuffix(s, "/"))
		case strings.Contains(s, "/"):
			ok, _ = path.Match(s, name)
		default:
			ok, _ = path.Match(s, base)
		}
		if ok {
			return true
		}
	}
	return false
}

func generatedMarkerSpec(line string) bool {
	return strings.Contains(line, "Code generated") && strings.Contains(line, "DO NOT EDIT") ||
		strings.Contains(line, "@generated")
}

var (
	specEntries = [][]string{
		{"pkg0/", "pkg1/", "pkg2/*", "pkg3", "pkg4/"},
		{"cmd/*", "internal/store/store.go", "./docs/", "a\\b", "  web/src  "},
		{".", "x"},
		{"*.go", "a/*/c", "b/[xy]z", "c/?", "d\\*", "[", "e/**"},
		{"", "/", "//x/", "../y"},
	}
	specPatterns = [][]string{
		DefaultTDDExempt(),
		generatedPatterns,
		{"a/b/", "/", "x*/", "[ab]c", "c/d*.go", "vendor/", "main.go", "\\*.go", "*"},
	}
	specNames = []string{"pkg0/a.go", "pkg2/x/y.ts", "pkg3", "pkg33/a.go", "cmd/harnish/main.go", "internal/store/store.go",
		"docs/a.md", "a/b", "web/src/x.ts", "x", "a.go", "a/x/c", "b/xz", "c/1", "d*", "e/f", "vendor/a/b.go", "a/vendor/b.go",
		"a/b/c.go", "x/a/b/c", "xy/z.go", "ac", "c/dd.go", "main.go", "sub/main.go", "*.go", "api.pb.go", "zz_generated.deepcopy.go",
		"build/out.js", "node_modules/x/y.js", "web/index.ts", "/abs/p.go", "./rel.go", "a//b.go", "", ".", "..", "/"}
)

func TestScopeCompiled(t *testing.T) {
	for _, entries := range specEntries {
		for _, name := range specNames {
			if got, want := InScope(entries, name), inScopeSpec(entries, name); got != want {
				t.Errorf("InScope(%q, %q) = %t, want %t", entries, name, got, want)
			}
		}
	}
}

func FuzzScopeCompiled(f *testing.F) {
	for _, entries := range specEntries {
		for _, name := range specNames[:8] {
			f.Add(strings.Join(entries, "\n"), name)
		}
	}
	f.Fuzz(func(t *testing.T, entries, name string) {
		es := strings.Split(entries, "\n")
		if got, want := InScope(es, name), inScopeSpec(es, name); got != want {
			t.Fatalf("InScope(%q, %q) = %t, want %t", es, name, got, want)
		}
	})
}

func TestPatternsCompiled(t *testing.T) {
	for _, ps := range specPatterns {
		p := compilePatterns(ps)
		for _, name := range specNames {
			if got, want := p.match(name), matchSpec(ps, name); got != want {
				t.Errorf("patterns %q on %q: %t, want %t", ps, name, got, want)
			}
		}
	}
}

func FuzzPatternsCompiled(f *testing.F) {
	for _, ps := range specPatterns {
		for _, name := range specNames[:8] {
			f.Add(strings.Join(ps, "\n"), name)
		}
	}
	f.Fuzz(func(t *testing.T, patterns, name string) {
		ps := strings.Split(patterns, "\n")
		p := compilePatterns(ps)
		if got, want := p.match(name), matchSpec(ps, name); got != want {
			t.Fatalf("patterns %q on %q: %t, want %t", ps, name, got, want)
		}
	})
}

// checkSpec is tddRule.check's lookup in the diff as it was: every
// candidate path made and looked up.
func checkSpec(r *tddRule, f *FileDiff, status map[string]FileStatus) bool {
	places := r.places(f.Path)
	if len(places.names) == 0 {
		return false
	}
	for c := range places.all() {
		if st, ok := status[c]; ok && st != StatusDeleted {
			return false
		}
	}
	return true
}

// generatedSpec is EditGuard.generated's look at the diff as it was:
// every line of every hunk.
func generatedSpec(f *FileDiff) bool {
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.NewLine > 0 && l.NewLine <= generatedHeaderLines && generatedMarkerSpec(l.Text) {
				return true
			}
		}
	}
	return false
}

// diffDiffer returns how the guard's TDD and generated-code judgements of
// diff differ from their specifications, or "".
func diffDiffer(diff string) string {
	files, err := ParseDiff(diff)
	if err != nil {
		return ""
	}
	g, err := NewEditGuard(EditConfig{TDD: TDDConfig{Level: Soft}})
	if err != nil {
		return err.Error()
	}
	in := newDiffPaths(files)
	for i := range files {
		f := &files[i]
		if got, want := g.generated(f), generatedSpec(f) || g.tdd.generatedName(f.Path); got != want {
			return "generated(" + f.Path + ") differs"
		}
		if f.Status == StatusDeleted || f.Binary {
			continue
		}
		got := len(g.tdd.check(f, true, false, in, nil)) > 0
		if want := checkSpec(&g.tdd, f, in.status); got != want {
			return "tdd(" + f.Path + ") differs"
		}
	}
	return ""
}

// specDiffs are diffs with tests beside, under and away from their
// products, deleted tests, and generated markers above, at and below
// line 20.
func specDiffs(t testing.TB) []string {
	var out []string
	for _, name := range []string{"testdata/diffs/git.diff", "testdata/diffs/git-binary.diff"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	file := func(status, p, hunk string) string {
		h := "diff --git a/" + p + " b/" + p + "\n"
		switch status {
		case "new":
			h += "new file mode 100644\n--- /dev/null\n+++ b/" + p + "\n"
		case "deleted":
			h += "deleted file mode 100644\n--- a/" + p + "\n+++ /dev/null\n"
		default:
			h += "--- a/" + p + "\n+++ b/" + p + "\n"
		}
		return h + hunk
	}
	add := "@@ -1,1 +1,2 @@\n x\n+y\n"
	del := "@@ -1,2 +0,0 @@\n-x\n-y\n"
	out = append(out,
		file("", "pkg/a.go", add)+file("new", "pkg/a_test.go", add),
		file("", "pkg/a.go", add)+file("deleted", "pkg/a_test.go", del),
		file("", "src/pkg/b.py", add)+file("new", "tests/pkg/test_b.py", add),
		file("", "src/pkg/b.py", add)+file("new", "other/test_b.py", add),
		file("", "web/c.ts", add)+file("", "web/__tests__/c.spec.ts", add),
		file("", "web/c.ts", add)+file("", "c.spec.ts", add),
		file("", "gen/d.go", "@@ -18,2 +18,4 @@\n x\n+// Code generated by x. DO NOT EDIT.\n+y\n z\n"),
		file("", "gen/e.go", "@@ -19,2 +19,4 @@\n x\n+y\n+// Code generated by x. DO NOT EDIT.\n z\n"),
		file("", "gen/f.go", "@@ -30,1 +21,2 @@\n x\n+// @generated\n"),
		file("", "gen/g.go", "@@ -1,1 +1,3 @@\n x\n+a @generated b\n+y\n"),
	)
	return out
}

func TestPerFileRulesAsSpecified(t *testing.T) {
	for _, d := range specDiffs(t) {
		if msg := diffDiffer(d); msg != "" {
			t.Errorf("%s in:\n%s", msg, d)
		}
	}
	for _, l := range []string{"// Code generated by x. DO NOT EDIT.", "// @generated", "@generated", "generated", "x generated @generated",
		"Code generated", "DO NOT EDIT generated Code generated", "ungenerated", ""} {
		if got, want := generatedMarker(l), generatedMarkerSpec(l); got != want {
			t.Errorf("generatedMarker(%q) = %t, want %t", l, got, want)
		}
	}
}

func FuzzPerFileRulesAsSpecified(f *testing.F) {
	for _, d := range specDiffs(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, diff string) {
		if msg := diffDiffer(diff); msg != "" {
			t.Fatalf("%s in:\n%s", msg, diff)
		}
		for l := range strings.SplitSeq(diff, "\n") {
			if got, want := generatedMarker(l), generatedMarkerSpec(l); got != want {
				t.Fatalf("generatedMarker(%q) = %t, want %t", l, got, want)
			}
		}
	})
}

// TestDefaultTDDRule checks that the shared default rule is the rule a
// zero TDDConfig compiles to, and that guards do not share its cache.
func TestDefaultTDDRule(t *testing.T) {
	want, err := compileTDDRule(TDDConfig{Level: Hard})
	if err != nil {
		t.Fatal(err)
	}
	got, err := newTDDRule(TDDConfig{Level: Hard})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newTDDRule(TDDConfig{Level: Soft})
	if got.known == want.known || got.known == other.known || other.level != Soft {
		t.Fatal("guards share a TDD cache or a level")
	}
	got.known, want.known = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("default TDD rule:\n%+v\nwant\n%+v", got, want)
	}
	if _, err := newTDDRule(TDDConfig{Level: Level(9)}); err == nil {
		t.Fatal("an invalid level passes")
	}
}
