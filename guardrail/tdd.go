package guardrail

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
)

// TDDConfig configures the test-first rule (edit.tdd): a changed product
// file needs its test file, in the same diff or already in the working tree.
// The zero value turns the rule off.
type TDDConfig struct {
	// Level is the decision for a product file changed without its test:
	// Soft or Hard. Allow, the zero value, turns the rule off.
	Level Level
	// Patterns maps the extension of a product file (".go") to the names its
	// test file may have, "{stem}" standing for the product's name without
	// its extension ("{stem}_test.go"). A file whose extension is not in the
	// map (docs, configuration, data) needs no test. Nil means
	// [DefaultTestPatterns].
	Patterns map[string][]string
	// Roots are directory names that hold tests: beside the product file
	// (pkg/__tests__/x.test.ts) or at the top of a tree that mirrors the
	// source (tests/pkg/test_x.py, tests/test_x.py for pkg/x.py). Files under
	// a root are tests, never product files. Nil means [DefaultTestRoots].
	Roots []string
	// Exempt are patterns of files that need no test. A pattern ending in "/"
	// names a directory anywhere in the path ("vendor/"); one with another
	// "/" is a path.Match glob on the whole path; any other a glob on the
	// file's name ("main.go", "*.pb.go"). Nil means [DefaultTDDExempt].
	// Generated files (a "Code generated ... DO NOT EDIT." or "@generated"
	// marker near the top) are always exempt.
	Exempt []string
}

// DefaultTestRoots are the test roots of a zero [TDDConfig].
var DefaultTestRoots = []string{"test", "tests", "__tests__"}

// DefaultTestPatterns returns the test-file patterns of a zero [TDDConfig]:
// Go {stem}_test.go; Python test_{stem}.py and {stem}_test.py;
// TypeScript and JavaScript {stem}.test.X and {stem}.spec.X for X in ts,
// tsx, js, jsx; C and C++ {stem}_test.cpp, {stem}_tests.cpp,
// test_{stem}.cpp and {stem}.test.cpp, and the same with .cc.
func DefaultTestPatterns() map[string][]string {
	var js []string
	for _, kind := range []string{"test", "spec"} {
		for _, ext := range []string{"ts", "tsx", "js", "jsx"} {
			js = append(js, "{stem}."+kind+"."+ext)
		}
	}
	var cpp []string
	for _, ext := range []string{"cpp", "cc"} {
		cpp = append(cpp, "{stem}_test."+ext, "{stem}_tests."+ext, "test_{stem}."+ext, "{stem}.test."+ext)
	}
	m := map[string][]string{
		".go": {"{stem}_test.go"},
		".py": {"test_{stem}.py", "{stem}_test.py"},
	}
	for _, ext := range []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"} {
		m[ext] = slices.Clone(js)
	}
	for _, ext := range []string{".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx"} {
		m[ext] = slices.Clone(cpp)
	}
	return m
}

// DefaultTDDExempt returns the exemptions of a zero [TDDConfig]: entry
// points (main.go, main.c, main.cpp, main.cc, __main__.py, __init__.py,
// conftest.py, setup.py, manage.py, index.ts and its kin), Go's doc.go, type
// declarations and tool configuration (*.d.ts, *.config.*), build output
// (build/, dist/, out/, target/), vendored code (vendor/, node_modules/,
// third_party/), test data (testdata/) and generated code by name (*.pb.go,
// *_gen.go, *.gen.go, *_generated.go, zz_generated*, *_pb2.py,
// *_pb2_grpc.py, *.pb.cc, *.pb.h).
func DefaultTDDExempt() []string {
	return []string{
		"main.go", "main.c", "main.cpp", "main.cc", "__main__.py", "__init__.py", "conftest.py", "setup.py",
		"manage.py", "index.ts", "index.tsx", "index.js", "index.jsx", "index.mjs", "index.cjs",
		"doc.go", "*.d.ts", "*.config.*",
		"build/", "dist/", "out/", "target/", "vendor/", "node_modules/", "third_party/", "testdata/",
		"*.pb.go", "*_gen.go", "*.gen.go", "*_generated.go", "zz_generated*", "*_pb2.py", "*_pb2_grpc.py",
		"*.pb.cc", "*.pb.h",
	}
}

// generatedPatterns are the exemptions that name generated code; the size
// rule skips files they match.
var generatedPatterns = []string{"*.pb.go", "*_gen.go", "*.gen.go", "*_generated.go", "zz_generated*",
	"*_pb2.py", "*_pb2_grpc.py", "*.pb.cc", "*.pb.h"}

// tddRule is a validated TDDConfig.
type tddRule struct {
	level    Level
	patterns map[string][]string
	tests    []string // the patterns as globs on a file name: *_test.go
	roots    []string
	exempt   []string
	// known caches candidates by path: a loop's diffs touch the same
	// files again and again.
	known *pathCache[[]string]
}

func newTDDRule(c TDDConfig) (tddRule, error) {
	r := tddRule{level: c.Level, patterns: c.Patterns, roots: c.Roots, exempt: c.Exempt, known: &pathCache[[]string]{}}
	if !c.Level.Valid() {
		return r, fmt.Errorf("guardrail: tdd: %w %d", ErrInvalidLevel, int(c.Level))
	}
	if r.patterns == nil {
		r.patterns = DefaultTestPatterns()
	}
	if r.roots == nil {
		r.roots = DefaultTestRoots
	}
	if r.exempt == nil {
		r.exempt = DefaultTDDExempt()
	}
	seen := map[string]bool{}
	for _, ext := range slices.Sorted(maps.Keys(r.patterns)) {
		if !strings.HasPrefix(ext, ".") {
			return r, fmt.Errorf("guardrail: tdd: extension %q does not start with '.'", ext)
		}
		for _, p := range r.patterns[ext] {
			glob := strings.ReplaceAll(p, "{stem}", "*")
			if !strings.Contains(p, "{stem}") || strings.Contains(p, "/") {
				return r, fmt.Errorf("guardrail: tdd: test pattern %q for %s: want a file name with {stem}", p, ext)
			}
			if _, err := path.Match(glob, ""); err != nil {
				return r, fmt.Errorf("guardrail: tdd: test pattern %q for %s: %w", p, ext, err)
			}
			if !seen[glob] {
				seen[glob] = true
				r.tests = append(r.tests, glob)
			}
		}
	}
	for _, root := range r.roots {
		if root == "" || strings.Contains(root, "/") {
			return r, fmt.Errorf("guardrail: tdd: test root %q: want a directory name", root)
		}
	}
	for _, e := range r.exempt {
		if _, err := path.Match(strings.TrimSuffix(e, "/"), ""); err != nil || e == "" {
			return r, fmt.Errorf("guardrail: tdd: bad exempt pattern %q", e)
		}
	}
	return r, nil
}

// check is the edit.tdd rule for one file; inDiff holds every path of the
// diff with its status.
func (r *tddRule) check(f *FileDiff, pathOnly, generated bool, inDiff map[string]FileStatus, tree fs.FS) []EditDecision {
	if r.level == Allow || f.Status == StatusDeleted || generated || f.Binary {
		return nil
	}
	if !pathOnly && f.Status != StatusAdded && !f.adds() {
		return nil // a pure deletion of lines, a mode change, a plain rename
	}
	candidates := r.known.get(f.Path, r.candidates)
	if len(candidates) == 0 {
		return nil // not a product file
	}
	for _, c := range candidates {
		if st, ok := inDiff[c]; ok && st != StatusDeleted {
			return nil
		}
	}
	if tree != nil {
		for _, c := range candidates {
			if inDiff[c] == StatusDeleted {
				continue
			}
			if _, err := fs.Stat(tree, c); err == nil {
				return nil
			}
		}
	}
	return []EditDecision{{
		Decision: Decision{Level: r.level, Rule: RuleEditTDD,
			Reason: fmt.Sprintf("product file changed without its test; write the test first (%s)", listed(candidates, 3))},
		Path: f.Path,
	}}
}

// candidates returns where the test of the product file name may be, nearest
// first; nil when name needs no test: not source code, a test itself, or
// exempt.
func (r *tddRule) candidates(name string) []string {
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

// isTest reports whether name is a test file or lies under a test root.
func (r *tddRule) isTest(name string) bool {
	base := path.Base(name)
	for _, g := range r.tests {
		if globMatch(g, base) {
			return true
		}
	}
	for _, root := range r.roots {
		if hasDir(name, root) {
			return true
		}
	}
	return false
}

// exempted reports whether name matches an exempt pattern.
// joinClean is path.Join for the clean, relative parts candidates joins
// (a diff's paths, test roots, patterns), without its cleaning pass; a part
// that is not plainly clean goes through path.Join.
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

func (r *tddRule) exempted(name string) bool {
	return matchAny(r.exempt, name)
}

// generatedName reports whether name is generated code by its name.
func (r *tddRule) generatedName(name string) bool {
	return matchAny(generatedPatterns, name)
}

// matchAny reports whether name matches one of patterns, read as
// [TDDConfig.Exempt] describes.
func matchAny(patterns []string, name string) bool {
	base := path.Base(name)
	for _, p := range patterns {
		switch {
		case strings.HasSuffix(p, "/"):
			if hasDir(name, strings.TrimSuffix(p, "/")) {
				return true
			}
		case strings.Contains(p, "/"):
			if globMatch(p, name) {
				return true
			}
		default:
			if globMatch(p, base) {
				return true
			}
		}
	}
	return false
}

// hasDir reports whether the directories of name include dir (one or more
// whole components).
func hasDir(name, dir string) bool {
	d := path.Dir(name)
	return d == dir || strings.HasPrefix(d, dir+"/") || strings.HasSuffix(d, "/"+dir) || strings.Contains(d, "/"+dir+"/")
}

// globMatch is path.Match(pattern, name) for a well-formed pattern, with
// the common shapes (a plain name, *suffix, prefix*) matched without it.
func globMatch(pattern, name string) bool {
	switch i := strings.IndexAny(pattern, `*?[\`); {
	case i < 0:
		return pattern == name
	case i == 0 && !strings.ContainsAny(pattern[1:], `*?[\/`):
		return !strings.Contains(name, "/") && strings.HasSuffix(name, pattern[1:])
	case i == len(pattern)-1 && pattern[i] == '*' && !strings.Contains(pattern, "/"):
		return !strings.Contains(name, "/") && strings.HasPrefix(name, pattern[:i])
	}
	ok, _ := path.Match(pattern, name)
	return ok
}
