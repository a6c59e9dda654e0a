package secretrules

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Config is a rule set as gitleaks.json holds it.
type Config struct {
	// Source and Version say where the rules come from.
	Source  string `json:"source"`
	Version string `json:"version"`
	// Allowlist applies to every rule.
	Allowlist Allowlist `json:"allowlist"`
	Rules     []Rule    `json:"rules"`
	// derived says the generator set the rules' heads and the path
	// patterns' literals (see rules_gen.go), so that nothing needs to be
	// parsed before a line needs it.
	derived bool
}

// literals are strings one of which every match of a pattern holds;
// lowercase, and compared ignoring case, when fold. None means no such
// set is known.
type literals struct {
	s    []string
	fold bool
}

// Rule is one gitleaks rule.
type Rule struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// Regex finds the secret; Path, if set, limits the rule to files whose
	// path it matches.
	Regex string `json:"regex,omitempty"`
	Path  string `json:"path,omitempty"`
	// Entropy is the least Shannon entropy (bits per byte) the secret must
	// have; 0 means any.
	Entropy float64 `json:"entropy,omitempty"`
	// SecretGroup is the group of Regex that holds the secret; 0 means the
	// first non-empty group, or the whole match.
	SecretGroup int `json:"secretGroup,omitempty"`
	// Keywords are lowercase strings one of which a line must hold for the
	// rule to run.
	Keywords   []string    `json:"keywords,omitempty"`
	Allowlists []Allowlist `json:"allowlists,omitempty"`

	// heads are how every match of Regex starts, nil when that is not
	// known; pathLits are Path's literals. The generator derives both
	// (see Config.derived).
	heads    []head
	pathLits literals
}

// Allowlist says which matches of a rule are not secrets.
type Allowlist struct {
	// Condition is "OR" (the default: any criterion allows) or "AND" (all
	// that are set must).
	Condition string `json:"condition,omitempty"`
	// RegexTarget is what Regexes match: "secret" (the default), "match"
	// (the whole match) or "line".
	RegexTarget string   `json:"regexTarget,omitempty"`
	Regexes     []string `json:"regexes,omitempty"`
	Paths       []string `json:"paths,omitempty"`
	// Stopwords allow a secret that contains one of them, ignoring case.
	Stopwords []string `json:"stopwords,omitempty"`

	// pathLits are the literals of Paths, in order, when derived.
	pathLits []literals
}

// Skipped are the gitleaks rules a Set of [Default] leaves out, and why:
// package guardrail has rules of its own for them, with its own
// allowances, or they judge no content.
var Skipped = map[string]string{
	"generic-api-key":        "edit.secret.assignment judges credential names and values, with harnish's allowances for placeholders, references and environment lookups",
	"private-key":            "it needs the whole key across lines; edit.secret.private-key reads a line and the next",
	"jwt":                    "edit.secret.jwt also decodes the header",
	"pkcs12-file":            "a rule on file names, not content",
	"kubernetes-secret-yaml": "it spans lines (kind: Secret, then data:), and lines are scanned one by one",
}

// Default returns the Set of gitleaks' default rules less [Skipped]. The
// rules are Go data (rules_gen.go, generated from gitleaks.json), so a
// process that scans a few lines pays for no decoding and compiles only
// the patterns those lines need. It panics if the data does not load,
// which a test rules out.
var Default = sync.OnceValue(func() *Set {
	s, err := New(gitleaks, Skipped)
	if err != nil {
		panic(err)
	}
	return s
})

// Set is a compiled rule set. It is safe for concurrent use.
type Set struct {
	// files caches File by path, up to maxFiles paths: a loop's diffs
	// touch the same files again and again. A map under a lock rather
	// than a sync.Map, whose lookups chase pointers when it is full.
	filesMu sync.RWMutex
	files   map[string]*File
	cfg     *Config
	rules   []*rule
	kwOnce  sync.Once
	kw      *matcher // see keywords
	always  []int    // rules without keywords
	// pathed are the rules with a path pattern, the few a file's path
	// can turn off: newFile asks only them, not every rule.
	pathed []int
	global *allowlist
}

type rule struct {
	*Rule
	once  sync.Once
	re    *regexp.Regexp
	heads []head // what every match starts with; nil when unknown
	// derived says heads were known before the regexp was compiled.
	derived bool
	path    *pathRegexp
	allow   []*allowlist
}

// allowlist is an Allowlist whose regexps are compiled when a match is
// first judged: most rules never find one.
type allowlist struct {
	src       *Allowlist
	once      sync.Once
	and       bool
	target    string
	regexes   []*regexp.Regexp
	paths     []*pathRegexp
	stopwords []string
}

// pathRegexp is a path pattern with a literal every match holds, checked
// first: most paths lack it, and a substring test is much cheaper than the
// regexp, which is compiled when a path first has the literal.
type pathRegexp struct {
	expr string
	lits literals
	// litBytes are the bytes of each literal: a path lacking one of them
	// cannot hold it, which is cheaper to learn than by a search.
	litBytes []byteSet
	once     sync.Once
	re       *regexp.Regexp // nil until compiled, or when expr does not compile
}

// newPath returns the pattern expr with its literals lits, or, when lits
// is nil, the literals found by parsing expr.
func newPath(expr string, lits *literals) *pathRegexp {
	p := &pathRegexp{expr: expr}
	if lits != nil {
		p.lits = *lits
	} else {
		p.lits = literalsOf(expr)
	}
	p.litBytes = make([]byteSet, len(p.lits.s))
	for i, l := range p.lits.s {
		for j := 0; j < len(l); j++ {
			p.litBytes[i].add(l[j])
		}
	}
	return p
}

// pathBytes are the bytes of a path, as they are and in lower case.
type pathBytes struct {
	exact, lower byteSet
	// lowered is the path in lower case, made when a pattern that
	// ignores case first asks for it (lowerDone), once for all of them.
	lowered   string
	lowerDone bool
}

// lowerPath returns path in lower case, made once per pathBytes.
func (b *pathBytes) lowerPath(path string) string {
	if !b.lowerDone {
		b.lowered, b.lowerDone = strings.ToLower(path), true
	}
	return b.lowered
}

func pathBytesOf(path string) pathBytes {
	var b pathBytes
	ascii := true
	for i := 0; i < len(path); i++ {
		b.exact.add(path[i])
		b.lower.add(lowerASCII(path[i]))
		ascii = ascii && path[i] < utf8.RuneSelf
	}
	if !ascii {
		// The lower case of a rune beyond ASCII may be ASCII (that of K,
		// the Kelvin sign, is k): the bytes of what matchIn searches.
		b.lower = byteSet{}
		lower := strings.ToLower(path)
		for i := 0; i < len(lower); i++ {
			b.lower.add(lower[i])
		}
	}
	return b
}

// literalsOf returns the strings one of which every match of expr holds,
// none holding another (a path that holds "/vendor/x" holds "vendor/x").
func literalsOf(expr string) literals {
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return literals{}
	}
	l := required(tree.Simplify(), 0)
	var out literals
	for i, x := range l.s {
		if !slices.ContainsFunc(l.s, func(y string) bool { return y != x && strings.Contains(x, y) }) &&
			!slices.Contains(l.s[:i], x) {
			out.s = append(out.s, x)
		}
	}
	out.fold = l.fold
	return out
}

func (p *pathRegexp) regexp() *regexp.Regexp {
	p.once.Do(func() { p.re, _ = regexp.Compile(p.expr) }) // Check reports the error
	return p.re
}

func (p *pathRegexp) match(path string) bool {
	b := pathBytesOf(path)
	return p.matchIn(path, &b)
}

// matchIn is match of a path whose bytes are b.
func (p *pathRegexp) matchIn(path string, b *pathBytes) bool {
	if p.lits.s != nil {
		in, have := path, &b.exact
		if p.lits.fold {
			in, have = b.lowerPath(path), &b.lower
		}
		found := false
		for i, l := range p.lits.s {
			if p.litBytes[i].within(have) && strings.Contains(in, l) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	re := p.regexp()
	return re != nil && re.MatchString(path)
}

// maxLiterals bounds the strings of a literals.
const maxLiterals = 16

// required returns strings one of which every match of re holds, the
// shortest of them as long as can be found: a run of parts of a
// concatenation that match few strings and nothing else (".", then
// bmp|gif|jpe?g, is .bmp, .gif, .jpeg or .jpg), or the strings a part
// requires; for an alternation, what each branch requires.
func required(re *syntax.Regexp, depth int) literals {
	if depth > 8 {
		return literals{}
	}
	if l, ok := exact(re, depth); ok {
		if shortest(l) > 0 {
			return l
		}
		return literals{}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0], depth+1)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0], depth+1)
		}
	case syntax.OpAlternate:
		var out literals
		for _, sub := range re.Sub {
			l := required(sub, depth+1)
			if l.s == nil || len(out.s)+len(l.s) > maxLiterals {
				return literals{}
			}
			out = union(out, l)
		}
		return out
	case syntax.OpConcat:
		var best literals
		consider := func(l literals) {
			if n, m := shortest(l), shortest(best); n > m || n == m && n > 0 && len(l.s) < len(best.s) {
				best = l
			}
		}
		run := literals{s: []string{""}}
		for _, sub := range re.Sub {
			l, ok := exact(sub, depth+1)
			if !ok {
				run = literals{s: []string{""}}
				consider(required(sub, depth+1))
				continue
			}
			if p, ok := product(run, l); ok {
				run = p
			} else {
				run = l
			}
			consider(run)
		}
		return best
	}
	return literals{}
}

// exact returns the strings re matches when they are few, and false when
// it matches others; an assertion (^, $, \b) matches "".
func exact(re *syntax.Regexp, depth int) (literals, bool) {
	if depth > 8 {
		return literals{}, false
	}
	switch re.Op {
	case syntax.OpCapture:
		return exact(re.Sub[0], depth+1)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return literals{s: []string{""}}, true
	case syntax.OpLiteral:
		l := literals{s: []string{string(re.Rune)}, fold: re.Flags&syntax.FoldCase != 0}
		if l.fold {
			l.s[0] = strings.ToLower(l.s[0])
		}
		return l, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 4 {
					return literals{}, false
				}
				out = append(out, string(r))
			}
		}
		return literals{s: out}, len(out) > 0
	case syntax.OpQuest:
		l, ok := exact(re.Sub[0], depth+1)
		if !ok || len(l.s) >= maxLiterals {
			return literals{}, false
		}
		return union(l, literals{s: []string{""}}), true
	case syntax.OpAlternate:
		var out literals
		for _, sub := range re.Sub {
			l, ok := exact(sub, depth+1)
			if !ok || len(out.s)+len(l.s) > maxLiterals {
				return literals{}, false
			}
			out = union(out, l)
		}
		return out, true
	case syntax.OpConcat:
		out := literals{s: []string{""}}
		for _, sub := range re.Sub {
			l, ok := exact(sub, depth+1)
			if !ok {
				return literals{}, false
			}
			if out, ok = product(out, l); !ok {
				return literals{}, false
			}
		}
		return out, true
	}
	return literals{}, false
}

// folded returns l lowercase, compared ignoring case: a set that does so
// admits all the strings l did, and more.
func folded(l literals) literals {
	if l.fold {
		return l
	}
	out := literals{s: make([]string, len(l.s)), fold: true}
	for i, x := range l.s {
		out.s[i] = strings.ToLower(x)
	}
	return out
}

// union returns the strings of a and of b.
func union(a, b literals) literals {
	if a.s == nil {
		return b
	}
	if a.fold != b.fold {
		a, b = folded(a), folded(b)
	}
	out := literals{s: slices.Clone(a.s), fold: a.fold}
	for _, x := range b.s {
		if !slices.Contains(out.s, x) {
			out.s = append(out.s, x)
		}
	}
	return out
}

// product returns every string of a followed by one of b, or false when
// there would be more than maxLiterals.
func product(a, b literals) (literals, bool) {
	if len(a.s)*len(b.s) > maxLiterals {
		return literals{}, false
	}
	if a.fold != b.fold {
		a, b = folded(a), folded(b)
	}
	out := literals{fold: a.fold}
	for _, x := range a.s {
		for _, y := range b.s {
			if !slices.Contains(out.s, x+y) {
				out.s = append(out.s, x+y)
			}
		}
	}
	return out, true
}

// shortest returns the length of the shortest string of l, 0 when it has
// none.
func shortest(l literals) int {
	if len(l.s) == 0 {
		return 0
	}
	n := len(l.s[0])
	for _, x := range l.s[1:] {
		n = min(n, len(x))
	}
	return n
}

// New returns the set of cfg's rules but those in skip. Patterns are
// compiled when a line first needs them; a cfg that is not the generated
// data is checked at once, and an expression that does not compile is an
// error naming the rule.
func New(cfg *Config, skip map[string]string) (*Set, error) {
	s := &Set{cfg: cfg, global: newAllow(&cfg.Allowlist)}
	for i := range cfg.Rules {
		r := &cfg.Rules[i]
		if _, ok := skip[r.ID]; ok || r.Regex == "" {
			continue
		}
		cr := &rule{Rule: r, heads: r.heads, derived: cfg.derived}
		if r.Path != "" {
			var lits *literals
			if cfg.derived {
				lits = &r.pathLits
			}
			cr.path = newPath(r.Path, lits)
			s.pathed = append(s.pathed, len(s.rules))
		}
		for j := range r.Allowlists {
			cr.allow = append(cr.allow, newAllow(&r.Allowlists[j]))
		}
		if len(r.Keywords) == 0 {
			s.always = append(s.always, len(s.rules))
		}
		s.rules = append(s.rules, cr)
	}
	if !cfg.derived {
		if err := s.Check(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// keywords returns the matcher of the rules' keywords, built on first use:
// a caller that finds them with its own matcher ([File.ScanHits]) never
// pays for it, which matters in a process that lives for one call.
func (s *Set) keywords() *matcher {
	s.kwOnce.Do(func() {
		s.kw = newMatcher(s.Keywords())
	})
	return s.kw
}

// newAllow returns the allowlist a, its patterns not yet compiled.
func newAllow(a *Allowlist) *allowlist {
	out := &allowlist{src: a, and: strings.EqualFold(a.Condition, "AND"), target: a.RegexTarget}
	for i, x := range a.Paths {
		var lits *literals
		if i < len(a.pathLits) {
			lits = &a.pathLits[i]
		}
		out.paths = append(out.paths, newPath(x, lits))
	}
	for _, w := range a.Stopwords {
		out.stopwords = append(out.stopwords, strings.ToLower(w))
	}
	return out
}

// compile compiles the allowlist's regexps, once; one that does not
// compile allows nothing (Check reports it).
func (a *allowlist) compile() {
	a.once.Do(func() {
		for _, x := range a.src.Regexes {
			if re, err := regexp.Compile(x); err == nil {
				a.regexes = append(a.regexes, re)
			}
		}
	})
}

// check returns the first pattern of a that does not compile.
func (a *allowlist) check() error {
	for _, x := range a.src.Regexes {
		if _, err := regexp.Compile(x); err != nil {
			return err
		}
	}
	for _, p := range a.paths {
		if p.regexp() == nil {
			_, err := regexp.Compile(p.expr)
			return err
		}
	}
	return nil
}

// Len returns how many rules the set runs.
func (s *Set) Len() int { return len(s.rules) }

// Version returns the version of the rules' source.
func (s *Set) Version() string { return s.cfg.Version }

// Check compiles every pattern of the set, for tests and New: Default
// compiles each when a line first needs it.
func (s *Set) Check() error {
	if err := s.global.check(); err != nil {
		return fmt.Errorf("secretrules: global allowlist: %w", err)
	}
	for _, r := range s.rules {
		if r.regexp() == nil {
			_, err := regexp.Compile(r.Regex)
			return fmt.Errorf("secretrules: rule %s: %w", r.ID, err)
		}
		if r.path != nil && r.path.regexp() == nil {
			_, err := regexp.Compile(r.Path)
			return fmt.Errorf("secretrules: rule %s: path: %w", r.ID, err)
		}
		for _, a := range r.allow {
			if err := a.check(); err != nil {
				return fmt.Errorf("secretrules: rule %s: allowlist: %w", r.ID, err)
			}
		}
	}
	return nil
}

func (r *rule) regexp() *regexp.Regexp {
	r.once.Do(func() {
		r.re, _ = regexp.Compile(r.Regex) // Check reports the error
		if !r.derived {
			r.heads = headsOf(r.Regex)
		}
	})
	return r.re
}

// may reports whether line can hold a match of r: false only when the
// rule's regexp starts every match with a literal (after \b, perhaps)
// followed by at least n characters of a class, and line has no such
// place. It is far cheaper than the regexp, which keywords as short as
// "s." (Vault's service tokens) would run on most lines of code.
func (r *rule) may(line string) bool {
	if !r.derived {
		r.regexp() // derives the heads
	}
	if r.heads == nil {
		return true
	}
	for i := range r.heads {
		if r.heads[i].in(line) {
			return true
		}
	}
	return false
}

// head is how every match of one branch of a regexp starts: lit (ignoring
// ASCII case when fold), at the start of a word when word, then at least
// min bytes of class.
type head struct {
	lit   string
	fold  bool
	word  bool
	class byteSet
	min   int
}

// byteSet is a set of bytes, byte c being bit c%64 of word c/64.
type byteSet [4]uint64

func (b *byteSet) has(c byte) bool { return b[c/64]&(1<<(c%64)) != 0 }

func (b *byteSet) add(c byte) { b[c/64] |= 1 << (c % 64) }

// within reports whether every byte of b is in c.
func (b *byteSet) within(c *byteSet) bool {
	return b[0]&^c[0]|b[1]&^c[1]|b[2]&^c[2]|b[3]&^c[3] == 0
}

// in reports whether line has a place where h starts.
func (h *head) in(line string) bool {
	for from := 0; from+len(h.lit) <= len(line); {
		i := indexLit(line[from:], h.lit, h.fold)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if h.word && i > 0 && wordChar(line[i-1]) && wordChar(h.lit[0]) {
			continue
		}
		n, j := 0, i+len(h.lit)
		for n < h.min && j < len(line) && h.class.has(line[j]) {
			n++
			j++
		}
		if n >= h.min {
			return true
		}
	}
	return false
}

func indexLit(s, lit string, fold bool) int {
	if !fold {
		return strings.Index(s, lit)
	}
	if lit == "" {
		return 0
	}
	// A place EqualFold takes starts with lit's first byte in either
	// case, or with a rune beyond ASCII (K, the Kelvin sign, folds to k):
	// a cheap test before the call.
	c := lowerASCII(lit[0])
	for i := 0; i+len(lit) <= len(s); i++ {
		if b := s[i]; (lowerASCII(b) == c || b >= utf8.RuneSelf) && strings.EqualFold(s[i:i+len(lit)], lit) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func wordChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// headsOf returns how every match of expr starts, or nil when it cannot
// tell: a regexp (in capture groups, perhaps after \b) that is one literal,
// or an alternation whose every branch starts with one, each perhaps
// followed by a repetition of a class.
func headsOf(expr string) []head {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	return headsIn(re, false, 0)
}

func headsIn(re *syntax.Regexp, word bool, depth int) []head {
	if depth > 8 {
		return nil
	}
	switch re.Op {
	case syntax.OpCapture:
		return headsIn(re.Sub[0], word, depth+1)
	case syntax.OpAlternate:
		var out []head
		for _, sub := range re.Sub {
			hs := headsIn(sub, word, depth+1)
			if hs == nil {
				return nil
			}
			out = append(out, hs...)
		}
		return out
	case syntax.OpLiteral:
		return []head{literalHead(re, word, nil)}
	case syntax.OpConcat:
		subs := re.Sub
		if len(subs) > 0 && subs[0].Op == syntax.OpWordBoundary {
			word, subs = true, subs[1:]
		}
		if len(subs) == 0 {
			return nil
		}
		if subs[0].Op != syntax.OpLiteral {
			if len(subs) == 1 || subs[0].Op == syntax.OpCapture || subs[0].Op == syntax.OpAlternate {
				return headsIn(subs[0], word, depth+1)
			}
			return nil
		}
		var rest []*syntax.Regexp
		for _, sub := range subs[1:] {
			rest = atoms(rest, sub, 0)
		}
		return []head{literalHead(subs[0], word, rest)}
	}
	return nil
}

// atoms appends to out the parts re matches one after another: a
// concatenation's, through captures and nested concatenations (as
// Simplify writes x{24}), else re itself.
func atoms(out []*syntax.Regexp, re *syntax.Regexp, depth int) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat && depth < 4 {
		for _, sub := range re.Sub {
			out = atoms(out, sub, depth+1)
		}
		return out
	}
	return append(out, re)
}

// literalHead makes the head of the literal lit, followed by the atoms
// rest: its class and min are the longest run of one character class that
// rest starts with, counting the least of each repetition.
func literalHead(lit *syntax.Regexp, word bool, rest []*syntax.Regexp) head {
	h := head{lit: string(lit.Rune), fold: lit.Flags&syntax.FoldCase != 0, word: word}
	for _, r := range lit.Rune {
		if r >= 0x80 {
			return head{} // matches anywhere
		}
	}
	var class *syntax.Regexp
	for _, a := range rest {
		c, n, exact := a, 1, true
		switch a.Op {
		case syntax.OpCharClass:
		case syntax.OpRepeat, syntax.OpPlus:
			if a.Sub[0].Op != syntax.OpCharClass {
				c = nil
				break
			}
			c, n, exact = a.Sub[0], a.Min, a.Op == syntax.OpRepeat && a.Max == a.Min
			if a.Op == syntax.OpPlus {
				n = 1
			}
		default:
			c = nil
		}
		if c == nil || class != nil && !slices.Equal(class.Rune, c.Rune) {
			break
		}
		class = c
		h.min += n
		if !exact {
			break
		}
	}
	if class == nil {
		h.min = 0
		return h
	}
	for i := 0; i+1 < len(class.Rune); i += 2 {
		lo, hi := class.Rune[i], class.Rune[i+1]
		if hi >= 0x80 {
			// A rune beyond ASCII is bytes 0x80-0xff in the line, and
			// each counts towards min.
			lo, hi = min(lo, 0x80), 0xff
		}
		for c := lo; c <= hi && c < 256; c++ {
			h.class[c/64] |= 1 << (c % 64)
		}
	}
	return h
}

// PathAllowed reports whether the configuration's allowlist exempts the
// file at path (lock files, vendored trees, images, ...).
func (s *Set) PathAllowed(path string) bool {
	b := pathBytesOf(path)
	return s.pathAllowed(path, &b)
}

// pathAllowed is PathAllowed of a path whose bytes are b.
func (s *Set) pathAllowed(path string, b *pathBytes) bool {
	for _, re := range s.global.paths {
		if re.matchIn(path, b) {
			return true
		}
	}
	return false
}

// Match is one secret a rule found in a line.
type Match struct {
	Rule *Rule
	// Secret is the secret; Start and End its byte span in the line.
	Secret     string
	Start, End int
}

// Scan calls found for every secret in line, a line of the file at path,
// rule by rule.
func (s *Set) Scan(path, line string, found func(Match)) {
	s.File(path).Scan(line, "", found)
}

// File returns the scanner of the rules that apply to the file at path:
// none when the configuration's allowlist exempts it, and the rules
// limited to other paths left out.
func (s *Set) File(path string) *File {
	s.filesMu.RLock()
	f, ok := s.files[path]
	s.filesMu.RUnlock()
	if ok {
		return f
	}
	f = s.newFile(path)
	s.filesMu.Lock()
	if len(s.files) < maxFiles {
		if s.files == nil {
			s.files = make(map[string]*File)
		}
		s.files[path] = f
	}
	s.filesMu.Unlock()
	return f
}

// maxFiles bounds the paths a Set caches the File of.
const maxFiles = 1 << 14

func (s *Set) newFile(path string) *File {
	f := &File{set: s, path: path}
	b := pathBytesOf(path)
	if s.pathAllowed(path, &b) {
		f.none = true
		return f
	}
	for _, i := range s.pathed {
		if !s.rules[i].path.matchIn(path, &b) {
			if f.off == nil {
				f.off = make([]uint64, (len(s.rules)+63)/64)
			}
			f.off[i/64] |= 1 << (i % 64)
		}
	}
	return f
}

// File scans the lines of one file. It is safe for concurrent use.
type File struct {
	set  *Set
	path string
	none bool
	off  []uint64 // rules whose path does not match
}

// Keywords returns the keywords of the set's rules, rule by rule, in the
// order [File.ScanHits] numbers the rules.
func (s *Set) Keywords() [][]string {
	out := make([][]string, len(s.rules))
	for i, r := range s.rules {
		out[i] = r.Keywords
	}
	return out
}

// Scan calls found for every secret in line, rule by rule. blanks are
// bytes that also end a token: when line holds some, the rules its
// keywords pick run a second time on line with them read as blanks (a
// token in a URL ends at & or @, which gitleaks' rules do not expect),
// with the same offsets.
func (f *File) Scan(line, blanks string, found func(Match)) {
	if f.none {
		return
	}
	var small [4]uint64
	hits := small[:]
	if n := (len(f.set.rules) + 63) / 64; n > len(small) {
		hits = make([]uint64, n)
	}
	f.set.keywords().scan(line, func(rules []uint16, _ int) {
		for _, i := range rules {
			hits[i/64] |= 1 << (i % 64)
		}
	})
	f.ScanHits(line, blanks, hits, found)
}

// ScanHits is Scan with the rules whose keywords line holds given as a
// bitset (rule i is bit i%64 of hits[i/64], numbered as [Set.Keywords]
// returns them), by a caller that looked for them with other keywords of
// its own in one pass. It may change hits.
func (f *File) ScanHits(line, blanks string, hits []uint64, found func(Match)) {
	if f.none {
		return
	}
	s := f.set
	for _, i := range s.always {
		hits[i/64] |= 1 << (i % 64)
	}
	alt := ""
	for w := range hits {
		bits := hits[w]
		if f.off != nil && w < len(f.off) {
			bits &^= f.off[w]
		}
		for bits != 0 {
			b := trailingZeros(bits)
			bits &= bits - 1
			if w*64+b >= len(s.rules) {
				break
			}
			r := s.rules[w*64+b]
			if !r.may(line) { // blanking adds no literal and no class byte
				continue
			}
			s.scanRule(r, f.path, line, found)
			if blanks != "" && alt == "" && strings.ContainsAny(line, blanks) {
				alt = blankOut(line, blanks)
			}
			if alt != "" {
				s.scanRule(r, f.path, alt, found)
			}
		}
	}
}

// blankOut returns s with every byte of blanks replaced by a blank.
func blankOut(s, blanks string) string {
	b := []byte(s)
	for i, c := range b {
		if strings.IndexByte(blanks, c) >= 0 {
			b[i] = ' '
		}
	}
	return string(b)
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

func (s *Set) scanRule(r *rule, path, line string, found func(Match)) {
	re := r.regexp()
	if re == nil {
		return
	}
	for _, m := range re.FindAllStringSubmatchIndex(line, -1) {
		start, end := m[0], m[1]
		if n := r.SecretGroup; n > 0 && 2*n+1 < len(m) && m[2*n] >= 0 {
			start, end = m[2*n], m[2*n+1]
		} else if n == 0 {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					start, end = m[2*g], m[2*g+1]
					break
				}
			}
		}
		secret := line[start:end]
		if r.Entropy > 0 && entropy(secret) < r.Entropy {
			continue
		}
		if s.global.allows(secret, line[m[0]:m[1]], line, path) {
			continue
		}
		allowed := false
		for _, a := range r.allow {
			if a.allows(secret, line[m[0]:m[1]], line, path) {
				allowed = true
				break
			}
		}
		if !allowed {
			found(Match{Rule: r.Rule, Secret: secret, Start: start, End: end})
		}
	}
}

// allows reports whether the allowlist exempts a match.
func (a *allowlist) allows(secret, match, line, path string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	var results []bool
	if len(a.src.Regexes) > 0 {
		a.compile()
		ok := false
		for _, re := range a.regexes {
			if re.MatchString(target) {
				ok = true
				break
			}
		}
		results = append(results, ok)
	}
	if len(a.stopwords) > 0 {
		ok := false
		ls := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(ls, w) {
				ok = true
				break
			}
		}
		results = append(results, ok)
	}
	if len(a.paths) > 0 {
		ok := false
		for _, re := range a.paths {
			if re.match(path) {
				ok = true
				break
			}
		}
		results = append(results, ok)
	}
	if len(results) == 0 {
		return false
	}
	for _, ok := range results {
		if ok && !a.and {
			return true
		}
		if !ok && a.and {
			return false
		}
	}
	return a.and
}

// entropy returns the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	e := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			e -= p * math.Log2(p)
		}
	}
	return e
}
