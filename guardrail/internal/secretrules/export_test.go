package secretrules

// KeywordRules returns the IDs of the rules whose keywords text holds, in
// rule order.
func KeywordRules(s *Set, text string) []string {
	seen := map[uint16]bool{}
	s.kw.scan(text, func(rs []uint16) {
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
