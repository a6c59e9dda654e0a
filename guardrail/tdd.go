package guardrail

import (
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	tests    []glob // the patterns as globs on a file name: *_test.go
	roots    []string
	exempt   pathPatterns
	// known caches test places by path: a loop's diffs touch the same
	// files again and again.
	known *pathCache[testPlaces]
}

func newTDDRule(c TDDConfig) (tddRule, error) {
	if !c.Level.Valid() {
		return tddRule{}, fmt.Errorf("guardrail: tdd: %w %d", ErrInvalidLevel, int(c.Level))
	}
	if c.Patterns == nil && c.Roots == nil && c.Exempt == nil {
		// The defaults, compiled once: a hook makes a guard per call.
		r := defaultTDDRule()
		r.level, r.known = c.Level, &pathCache[testPlaces]{}
		return r, nil
	}
	return compileTDDRule(c)
}

// defaultTDDRule is the rule of the default patterns, roots and
// exemptions, without a level or a cache; it is only read.
var defaultTDDRule = sync.OnceValue(func() tddRule {
	r, err := compileTDDRule(TDDConfig{Level: Soft})
	if err != nil {
		panic(err) // the defaults are valid (TestDefaultTDDRule)
	}
	return r
})

// compileTDDRule is newTDDRule for a valid level.
func compileTDDRule(c TDDConfig) (tddRule, error) {
	r := tddRule{level: c.Level, patterns: c.Patterns, roots: c.Roots, known: &pathCache[testPlaces]{}}
	exempt := c.Exempt
	if r.patterns == nil {
		r.patterns = DefaultTestPatterns()
	}
	if r.roots == nil {
		r.roots = DefaultTestRoots
	}
	if exempt == nil {
		exempt = DefaultTDDExempt()
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
				r.tests = append(r.tests, compileGlob(glob))
			}
		}
	}
	for _, root := range r.roots {
		if root == "" || strings.Contains(root, "/") {
			return r, fmt.Errorf("guardrail: tdd: test root %q: want a directory name", root)
		}
	}
	for _, e := range exempt {
		if _, err := path.Match(strings.TrimSuffix(e, "/"), ""); err != nil || e == "" {
			return r, fmt.Errorf("guardrail: tdd: bad exempt pattern %q", e)
		}
	}
	r.exempt = compilePatterns(exempt)
	return r, nil
}

// diffPaths are the paths of a diff, each with its status, and the names
// of their files, which rule out most test candidates without making a
// path.
type diffPaths struct {
	status map[string]FileStatus
	names  map[string]bool
}

func newDiffPaths(files []FileDiff) *diffPaths {
	d := &diffPaths{status: make(map[string]FileStatus, len(files)), names: make(map[string]bool, len(files))}
	for _, f := range files {
		d.status[f.Path] = f.Status
		d.names[path.Base(f.Path)] = true
	}
	return d
}

// check is the edit.tdd rule for one file; inDiff holds every path of the
// diff.
func (r *tddRule) check(f *FileDiff, pathOnly, generated bool, inDiff *diffPaths, tree fs.FS) []EditDecision {
	if r.level == Allow || f.Status == StatusDeleted || generated || f.Binary {
		return nil
	}
	if !pathOnly && f.Status != StatusAdded && !f.adds() {
		return nil // a pure deletion of lines, a mode change, a plain rename
	}
	places := r.known.get(f.Path, r.places)
	if len(places.names) == 0 {
		return nil // not a product file
	}
	// Candidates are looked up through one buffer, not made one string each.
	var buf [256]byte
	for _, n := range places.names {
		if !inDiff.names[n] {
			continue // no path of the diff ends in it
		}
		for _, d := range places.dirs {
			if st, ok := inDiff.status[string(appendJoin(buf[:0], d, n))]; ok && st != StatusDeleted {
				return nil
			}
		}
	}
	if tree != nil {
		for c := range places.all() {
			if inDiff.status[c] == StatusDeleted {
				continue
			}
			if _, err := fs.Stat(tree, c); err == nil {
				return nil
			}
		}
	}
	return []EditDecision{{
		Decision: Decision{Level: r.level, Rule: RuleEditTDD,
			Reason: "product file changed without its test; write the test first (" + places.listed(3) + ")"},
		Path: f.Path,
	}}
}

// testPlaces are where the test of a product file may be: each of names
// in each of dirs, nearest dir first. No names: the file needs no test.
type testPlaces struct {
	dirs  []string // clean, distinctStrings; "" is the tree's root
	names []string // distinctStrings file names
}

// all yields the candidate paths in order.
func (p testPlaces) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, d := range p.dirs {
			for _, n := range p.names {
				if !yield(string(appendJoin(nil, d, n))) {
					return
				}
			}
		}
	}
}

// listed names the first n candidates and counts the rest, as [listed],
// in one buffer: every product file a diff changes without its test
// names its candidates.
func (p testPlaces) listed(n int) string {
	var buf []byte
	k := 0
	for _, d := range p.dirs {
		for _, name := range p.names {
			if k == n {
				break
			}
			if k > 0 {
				buf = append(buf, ", "...)
			}
			buf = appendJoin(buf, d, name)
			k++
		}
	}
	if total := len(p.dirs) * len(p.names); total > n {
		buf = strconv.AppendInt(append(buf, " and "...), int64(total-n), 10)
		buf = append(buf, " more"...)
	}
	return string(buf)
}

// appendJoin appends dir/name (name alone in the root) to buf.
func appendJoin(buf []byte, dir, name string) []byte {
	if dir != "" {
		buf = append(append(buf, dir...), '/')
	}
	return append(buf, name...)
}

// places returns where the test of the product file name may be; none
// when name needs no test: not source code, a test itself, or exempt.
func (r *tddRule) places(name string) testPlaces {
	ext := path.Ext(name)
	pats := r.patterns[ext]
	if len(pats) == 0 || r.isTest(name) || r.exempted(name) {
		return testPlaces{}
	}
	dir, base := path.Split(name)
	dir = cleanDir(strings.TrimSuffix(dir, "/"))
	stem := strings.TrimSuffix(base, ext)
	// The names and dirs are made in one buffer each, one string each in
	// the end: a new file's places are a dozen or more strings. The
	// buffers are made once at about their final size: grown from nothing
	// they were most of the cost of a new path.
	depth := strings.Count(dir, "/") + 1
	var names distinctStrings
	names.make(len(pats), len(pats)*(len(stem)+16))
	for _, pat := range pats {
		for {
			before, after, ok := strings.Cut(pat, "{stem}")
			names.buf = append(names.buf, before...)
			if !ok {
				break
			}
			names.buf = append(names.buf, stem...)
			pat = after
		}
		names.end()
	}
	// dir is clean, roots are names: their joins are clean.
	var dirs distinctStrings
	n := 1 + len(r.roots)*(depth+2)
	dirs.make(n, n*(len(dir)+12))
	dirs.add(dir, "")
	for _, root := range r.roots {
		if dir != "" {
			dirs.add(dir, "/"+root)
		} else {
			dirs.add(root, "")
		}
	}
	// Mirrors: tests/a/b/x, tests/b/x, tests/x for a/b/x.
	for _, root := range r.roots {
		for d := dir; ; {
			if d == "" {
				dirs.add(root, "")
				break
			}
			dirs.add(root+"/", d)
			if i := strings.IndexByte(d, '/'); i < 0 {
				d = ""
			} else {
				d = d[i+1:]
			}
		}
	}
	return testPlaces{dirs: dirs.strings(), names: names.strings()}
}

// distinctStrings makes distinctStrings strings, in the order first made, in one buffer.
type distinctStrings struct {
	buf  []byte
	ends []int // where each string ends in buf; each starts where the last ends
}

// make sets aside room for n strings of size bytes in all.
func (d *distinctStrings) make(n, size int) {
	d.buf, d.ends = make([]byte, 0, size), make([]int, 0, n)
}

// end ends the string made since the last one, dropping it when it is one
// of them already.
func (d *distinctStrings) end() {
	start := 0
	if len(d.ends) > 0 {
		start = d.ends[len(d.ends)-1]
	}
	s := d.buf[start:]
	prev := 0
	for _, e := range d.ends {
		if string(d.buf[prev:e]) == string(s) {
			d.buf = d.buf[:start]
			return
		}
		prev = e
	}
	d.ends = append(d.ends, len(d.buf))
}

// add makes a+b.
func (d *distinctStrings) add(a, b string) {
	d.buf = append(append(d.buf, a...), b...)
	d.end()
}

// strings returns the strings made.
func (d *distinctStrings) strings() []string {
	all := string(d.buf)
	out := make([]string, len(d.ends))
	prev := 0
	for i, e := range d.ends {
		out[i] = all[prev:e]
		prev = e
	}
	return out
}

// cleanDir is dir cleaned, "" for the root.
func cleanDir(dir string) string {
	if d := path.Clean(dir); d != "." {
		return d
	}
	return ""
}

// isTest reports whether name is a test file or lies under a test root.
func (r *tddRule) isTest(name string) bool {
	base := path.Base(name)
	for i := range r.tests {
		if r.tests[i].match(base) {
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
func (r *tddRule) exempted(name string) bool {
	return r.exempt.match(name)
}

// generatedNames are generatedPatterns compiled.
var generatedNames = compilePatterns(generatedPatterns)

// generatedName reports whether name is generated code by its name.
func (r *tddRule) generatedName(name string) bool {
	return generatedNames.match(name)
}

// pathPatterns are patterns read as [TDDConfig.Exempt] describes,
// compiled: each is looked at in the way it matches.
type pathPatterns struct {
	// "vendor/": a directory anywhere in the path; dirNames are those of
	// one component, looked up per component of the path, dirs the
	// others.
	dirNames map[string]bool
	dirs     []string
	paths    []glob // a pattern with another "/": a glob on the whole path
	// Any other: a glob on the file's name; exact are the plain names,
	// looked up at once, names the others.
	exact map[string]bool
	names []glob
}

func compilePatterns(ps []string) pathPatterns {
	p := pathPatterns{dirNames: map[string]bool{}, exact: map[string]bool{}}
	for _, s := range ps {
		switch {
		case strings.HasSuffix(s, "/"):
			switch d := strings.TrimSuffix(s, "/"); {
			case d == "":
				// hasDir finds no empty directory
			case strings.Contains(d, "/"):
				p.dirs = append(p.dirs, d)
			default:
				p.dirNames[d] = true
			}
		case strings.Contains(s, "/"):
			p.paths = append(p.paths, compileGlob(s))
		default:
			if g := compileGlob(s); g.kind == globExact {
				p.exact[s] = true
			} else {
				p.names = append(p.names, g)
			}
		}
	}
	return p
}

// match reports whether name matches one of the patterns.
func (p *pathPatterns) match(name string) bool {
	base := path.Base(name)
	if p.exact[base] {
		return true
	}
	for i := range p.names {
		if p.names[i].match(base) {
			return true
		}
	}
	if len(p.dirNames) > 0 {
		// hasDir of each: a component of name's directory equal to it.
		for d := path.Dir(name); ; {
			i := strings.IndexByte(d, '/')
			if i < 0 {
				if p.dirNames[d] {
					return true
				}
				break
			}
			if p.dirNames[d[:i]] {
				return true
			}
			d = d[i+1:]
		}
	}
	for _, d := range p.dirs {
		if hasDir(name, d) {
			return true
		}
	}
	for i := range p.paths {
		if p.paths[i].match(name) {
			return true
		}
	}
	return false
}

// hasDir reports whether the directories of name include dir (one or more
// whole components).
func hasDir(name, dir string) bool {
	d := path.Dir(name)
	for i := 0; dir != "" && i <= len(d); {
		j := strings.Index(d[i:], dir)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(dir)
		if (j == 0 || d[j-1] == '/') && (end == len(d) || d[end] == '/') {
			return true
		}
		i = j + 1
	}
	return false
}

// glob is a path.Match pattern compiled for the shapes that are common: a
// plain name, and one '*' between two literals (*_test.go, test_*.py,
// zz_generated*), which need no path.Match.
type glob struct {
	pat            string
	prefix, suffix string // around the one '*' of a star glob
	kind           uint8
}

const (
	globExact = iota
	globStar
	globAny
)

func compileGlob(p string) glob {
	i := strings.IndexAny(p, `*?[\`)
	switch {
	case i < 0:
		return glob{pat: p, kind: globExact}
	case p[i] == '*' && !strings.ContainsAny(p[i+1:], `*?[\`):
		return glob{pat: p, prefix: p[:i], suffix: p[i+1:], kind: globStar}
	}
	return glob{pat: p, kind: globAny}
}

func (g *glob) match(name string) bool {
	switch g.kind {
	case globExact:
		return name == g.pat
	case globStar:
		// '*' is any run of characters but '/'.
		return len(name) >= len(g.prefix)+len(g.suffix) && strings.HasPrefix(name, g.prefix) && strings.HasSuffix(name, g.suffix) &&
			!strings.Contains(name[len(g.prefix):len(name)-len(g.suffix)], "/")
	}
	ok, _ := path.Match(g.pat, name)
	return ok
}

// globMatch is path.Match(pattern, name) for a well-formed pattern.
func globMatch(pattern, name string) bool {
	g := compileGlob(pattern)
	return g.match(name)
}
