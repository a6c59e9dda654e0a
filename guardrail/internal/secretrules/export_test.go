package secretrules

// KeywordRules returns the IDs of the rules whose keywords text holds, in
// rule order.
func KeywordRules(s *Set, text string) []string {
	seen := map[uint16]bool{}
	s.keywords().scan(text, func(rs []uint16) {
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
			if re.match(p) != re.re.MatchString(p) {
				out = append(out, re.re.String()+" on "+p)
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
