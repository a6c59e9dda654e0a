package secretrules

// matcher finds every keyword in a lowercased line in one pass: an
// Aho-Corasick automaton made a DFA over the classes of bytes keywords
// use; every other byte leads back to the start.
type matcher struct {
	class  [256]uint8
	nclass int
	next   []int32    // state*nclass + class
	out    [][]uint16 // per state, the rules whose keyword ends there
}

// newMatcher builds the matcher of keywords[i], the keywords of rule i.
func newMatcher(keywords [][]string) *matcher {
	m := &matcher{nclass: 1}
	for _, ks := range keywords {
		for _, k := range ks {
			for i := 0; i < len(k); i++ {
				if m.class[k[i]] == 0 {
					m.class[k[i]] = uint8(m.nclass)
					m.nclass++
				}
			}
		}
	}
	// The trie, with -1 for a missing edge.
	trie := [][]int32{make([]int32, m.nclass)}
	m.out = [][]uint16{nil}
	for i := range trie[0] {
		trie[0][i] = -1
	}
	for r, ks := range keywords {
		for _, k := range ks {
			s := int32(0)
			for i := 0; i < len(k); i++ {
				c := m.class[k[i]]
				if trie[s][c] < 0 {
					row := make([]int32, m.nclass)
					for j := range row {
						row[j] = -1
					}
					trie = append(trie, row)
					m.out = append(m.out, nil)
					trie[s][c] = int32(len(trie) - 1)
				}
				s = trie[s][c]
			}
			m.out[s] = appendRule(m.out[s], uint16(r))
		}
	}
	// Breadth first: failure links, outputs merged along them, and the
	// missing edges filled from the failure state's.
	fail := make([]int32, len(trie))
	queue := []int32{}
	for c := 0; c < m.nclass; c++ {
		if t := trie[0][c]; t > 0 {
			queue = append(queue, t)
		} else {
			trie[0][c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, r := range m.out[fail[s]] {
			m.out[s] = appendRule(m.out[s], r)
		}
		for c := 0; c < m.nclass; c++ {
			if t := trie[s][c]; t >= 0 {
				fail[t] = trie[fail[s]][c]
				queue = append(queue, t)
			} else {
				trie[s][c] = trie[fail[s]][c]
			}
		}
	}
	m.next = make([]int32, len(trie)*m.nclass)
	for s, row := range trie {
		copy(m.next[s*m.nclass:], row)
	}
	return m
}

func appendRule(rs []uint16, r uint16) []uint16 {
	for _, x := range rs {
		if x == r {
			return rs
		}
	}
	return append(rs, r)
}

// scan calls hit with the rules of every keyword that ends in text.
func (m *matcher) scan(text string, hit func([]uint16)) {
	s := int32(0)
	n := int32(m.nclass)
	for i := 0; i < len(text); i++ {
		s = m.next[s*n+int32(m.class[text[i]])]
		if rs := m.out[s]; rs != nil {
			hit(rs)
		}
	}
}
