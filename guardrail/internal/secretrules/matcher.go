package secretrules

// Keywords finds which groups of keywords occur in a text, ignoring ASCII
// case, in one pass: an Aho-Corasick automaton made a DFA over the classes
// of bytes keywords use (an upper-case letter is in its lower-case
// letter's class); every other byte leads back to the start. It is safe
// for concurrent use.
type Keywords struct{ m *matcher }

// NewKeywords returns the matcher of groups[i], the lowercase keywords of
// group i; there may be at most 65,536 groups.
func NewKeywords(groups [][]string) *Keywords { return &Keywords{newMatcher(groups)} }

// Scan calls hit with the groups of every keyword that ends in text, as
// often as one ends.
func (k *Keywords) Scan(text string, hit func(groups []uint16)) { k.m.scan(text, hit) }

type matcher struct {
	class  [256]uint8
	nclass int
	// next is state*nclass + class to the next state, with outFlag set
	// when a keyword ends there.
	next []int32
	out  [][]uint16 // per state, the groups whose keyword ends there
}

const outFlag = -1 << 31

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
	for c := 'A'; c <= 'Z'; c++ {
		if m.class[c] == 0 {
			m.class[c] = m.class[c+'a'-'A'] // case folds; keywords are lowercase
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
		for c, t := range row {
			if len(m.out[t]) > 0 {
				t |= outFlag
			}
			m.next[s*m.nclass+c] = t
		}
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
	next, class := m.next, &m.class
	for i := 0; i < len(text); i++ {
		s = next[s*n+int32(class[text[i]])]
		if s < 0 {
			s &^= outFlag
			hit(m.out[s])
		}
	}
}
