package secretrules

import (
	"encoding/json"
	"strings"
)

// KeywordRules returns the IDs of the rules whose keywords text holds, in
// rule order.
func KeywordRules(s *Set, text string) []string {
	seen := map[uint16]bool{}
	s.keywords().scan(text, func(rs []uint16, _ int) {
		for _, r := range rs {
			seen[r] = true
		}
	})
	var out []string
	for i, r := range s.rules {
		if seen[uint16(i)] {
			out = append(out, r.ID)
		}
	}
	return out
}

// PathMismatches returns the paths for which a path pattern of the
// configuration's allowlist or of a rule, with its literal filter,
// answers otherwise than its regexp alone.
func PathMismatches(s *Set, paths []string) []string {
	var all []*pathRegexp
	all = append(all, s.global.paths...)
	for _, r := range s.rules {
		if r.path != nil {
			all = append(all, r.path)
		}
	}
	var out []string
	for _, p := range paths {
		for _, re := range all {
			if re.match(p) != re.regexp().MatchString(p) {
				out = append(out, re.expr+" on "+p)
			}
		}
	}
	return out
}

// HeadMisses returns, for line, the rules whose regexp matches it although
// their head filter says it cannot: what the filter would lose.
func HeadMisses(s *Set, line string) []string {
	var out []string
	for _, r := range s.rules {
		if re := r.regexp(); re != nil && r.heads != nil && !r.may(line) && re.MatchString(line) {
			out = append(out, r.ID)
		}
	}
	return out
}

// Heads returns how many rules have a head filter.
func Heads(s *Set) int {
	n := 0
	for _, r := range s.rules {
		if r.regexp(); r.heads != nil {
			n++
		}
	}
	return n
}

// FromJSON returns the set of gitleaks.json less Skipped, decoded and
// checked at once, its heads and literals derived at run time: what
// Default was before its data was generated Go.
func FromJSON(data []byte) (*Set, error) {
	cfg, err := DecodeJSON(data)
	if err != nil {
		return nil, err
	}
	return New(cfg, Skipped)
}

// DecodeJSON decodes gitleaks.json.
func DecodeJSON(data []byte) (*Config, error) {
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// FullScan calls found for every secret in line, a line of the file at
// path, without any of the filters Scan uses to skip work: every rule
// whose keyword the line holds (by strings.Contains) runs its regexp, the
// path patterns run without their literals, and every allowlist is
// compiled.
func FullScan(s *Set, path, line string, found func(Match)) {
	for _, re := range s.global.paths {
		if re.regexp().MatchString(path) {
			return
		}
	}
	lower := strings.ToLower(line)
	for _, r := range s.rules {
		if r.path != nil && !r.path.regexp().MatchString(path) {
			continue
		}
		hit := len(r.Keywords) == 0
		for _, k := range r.Keywords {
			if strings.Contains(lower, k) {
				hit = true
				break
			}
		}
		if hit {
			s.scanRule(r, path, line, found)
		}
	}
}

// KeywordCounts returns, per group and place, how often Keywords.Scan
// reports a keyword of the group ending there in text (skip) and how often
// the automaton stepped over every byte does (every); and whether k skips
// at all. A key is the group<<32 | the end.
func KeywordCounts(k *Keywords, text string) (skip, every map[uint64]int, skips bool) {
	skip, every = map[uint64]int{}, map[uint64]int{}
	k.Scan(text, func(gs []uint16, end int) {
		for _, g := range gs {
			skip[uint64(g)<<32|uint64(end)]++
		}
	})
	k.m.scanFrom(text, 0, 0, func(gs []uint16, end int) {
		for _, g := range gs {
			every[uint64(g)<<32|uint64(end)]++
		}
	})
	return skip, every, k.m.starts != nil
}

// IndexLit exposes indexLit to the tests.
var IndexLit = indexLit
