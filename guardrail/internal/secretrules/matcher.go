package secretrules

import (
	"slices"
	"sync/atomic"
)

// Keywords finds which groups of keywords occur in a text, ignoring ASCII
// case, in one pass: an Aho-Corasick automaton run as a DFA over the
// classes of bytes keywords use (an upper-case letter is in its lower-case
// letter's class; every other byte is class 0). Only the trie and its
// failure links are built at first, in a few small arrays; each DFA
// transition is worked out when a text first takes it and kept, so a
// process that scans a few lines builds (and pages in) little. While the
// automaton is at most one byte deep, the scan skips ahead to where a
// keyword may start (see matcher.starts). It is safe for concurrent use.
type Keywords struct{ m *matcher }

// NewKeywords returns the matcher of groups[i], the lowercase keywords of
// group i; there may be at most 65,536 groups.
func NewKeywords(groups [][]string) *Keywords { return &Keywords{newMatcher(groups)} }

// Scan calls hit with the groups of every keyword that ends in text, and
// where it ends (the index after its last byte), as often as one ends
// (perhaps in several calls for one place), in the order of the places.
func (k *Keywords) Scan(text string, hit func(groups []uint16, end int)) { k.m.scan(text, hit) }

// Skips reports whether Scan skips from byte to byte to where a keyword
// may start, as it does unless a keyword is empty.
func (k *Keywords) Skips() bool { return k.m.starts != nil }

type matcher struct {
	class  [256]uint8
	nclass int32
	// next[s*nclass+c] is what state s goes to on class c: 0 until a text
	// first takes it, then the next state's row (its number times nclass)
	// plus 1, with outFlag set when a keyword ends there. A row rather
	// than a number spares scan a multiplication per byte.
	next []atomic.Int32
	// The trie: a state's children are child[s], sibling[child[s]], ...
	// (0 ends the list; the root is no one's child), each reached on
	// edge[t].
	child, sibling []int32
	edge           []uint8
	root           [256]int32 // the root's children by class, which most lookups ask
	fail           []int32    // per state, its failure link
	// The groups of the keywords that end just at state s are
	// outs[outAt[s]:outAt[s+1]].
	outAt []int32
	outs  []uint16
	// dict is, per state, the next state on its failure chain that ends a
	// keyword, or -1; flag says the state or its chain ends one.
	dict []int32
	flag []bool
	// shallow says a state is the root or a child of it: the automaton
	// then knows at most the last byte of the text.
	shallow []bool
	// starts says where a keyword may start: a keyword starts where the
	// filter classes (fclass) of three bytes are c0, c1, c2 (class 0 past
	// the text's end) only if bit c2 of starts[c0<<6|c1] is set. Scan
	// skips from byte to byte with it, several times cheaper than an
	// automaton step, while the automaton is shallow, and steps only from
	// where a keyword may start. Nil when a keyword is empty.
	starts *[1 << 12]uint64
	// fclass is class within the 64 classes starts has room for: the
	// classes from 63 on share 63. Sharing a class only makes starts say
	// more often that a keyword may start, never less, so a keyword set of
	// more bytes than that keeps its skipping scan.
	fclass [256]uint8
	// pairs says, by the bits of two bytes (the first in the low ones),
	// that a keyword may start with them, in any ASCII case: a cheaper
	// test than starts, made first. Set with starts.
	pairs *[1 << 10]uint64
}

const (
	outFlag = 1 << 30
	// shallowFlag marks a transition into a shallow state.
	shallowFlag = 1 << 29
	stateMask   = shallowFlag - 1
)

// newMatcher builds the matcher of keywords[i], the keywords of rule i.
func newMatcher(keywords [][]string) *matcher {
	m := &matcher{nclass: 1}
	states := 1
	// ASCII bytes take the first classes, so that the filter's 64
	// (fclass) tell apart the bytes code is written in, and the bytes of
	// keywords in other scripts share its last.
	for _, ascii := range []bool{true, false} {
		for _, ks := range keywords {
			for _, k := range ks {
				if ascii {
					states += len(k)
				}
				for i := 0; i < len(k); i++ {
					if m.class[k[i]] == 0 && (k[i] < 0x80) == ascii {
						m.class[k[i]] = uint8(m.nclass)
						m.nclass++
					}
				}
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		if m.class[c] == 0 {
			m.class[c] = m.class[c+'a'-'A'] // case folds; keywords are lowercase
		}
	}
	m.child = make([]int32, 1, states)
	m.sibling = make([]int32, 1, states)
	m.edge = make([]uint8, 1, states)
	ends := make([]uint64, 0, states) // state<<16 | group, for every keyword
	for r, ks := range keywords {
		for _, k := range ks {
			s := int32(0)
			for i := 0; i < len(k); i++ {
				c := m.class[k[i]]
				t := m.goTo(s, c)
				if t == 0 {
					t = int32(len(m.child))
					m.child = append(m.child, 0)
					m.sibling = append(m.sibling, m.child[s])
					m.edge = append(m.edge, c)
					m.child[s] = t
					if s == 0 {
						m.root[c] = t
					}
				}
				s = t
			}
			ends = append(ends, uint64(s)<<16|uint64(r))
		}
	}
	n := len(m.child)
	slices.Sort(ends)
	ends = slices.Compact(ends)
	m.outAt = make([]int32, n+1)
	m.outs = make([]uint16, len(ends))
	for i, e := range ends {
		m.outs[i] = uint16(e)
		m.outAt[e>>16+1]++
	}
	for s := range n {
		m.outAt[s+1] += m.outAt[s]
	}
	// Breadth first, so a state's failure link is done before its
	// children's.
	m.fail = make([]int32, n)
	m.dict = make([]int32, n)
	m.flag = make([]bool, n)
	m.dict[0] = -1
	m.shallow = make([]bool, n)
	m.shallow[0] = true
	for t := m.child[0]; t != 0; t = m.sibling[t] {
		m.shallow[t] = true
	}
	queue := make([]int32, 1, n)
	for q := 0; q < len(queue); q++ {
		s := queue[q]
		for t := m.child[s]; t != 0; t = m.sibling[t] {
			f := int32(0)
			if s != 0 {
				for f = m.fail[s]; ; f = m.fail[f] {
					if x := m.goTo(f, m.edge[t]); x != 0 {
						f = x
						break
					}
					if f == 0 {
						break
					}
				}
			}
			m.fail[t] = f
			if m.ends(f) {
				m.dict[t] = f
			} else {
				m.dict[t] = m.dict[f]
			}
			m.flag[t] = m.ends(t) || m.dict[t] >= 0
			queue = append(queue, t)
		}
	}
	m.next = make([]atomic.Int32, n*int(m.nclass))
	for b, c := range m.class {
		m.fclass[b] = min(c, 63)
	}
	m.starts = startsOf(keywords, &m.fclass)
	if m.starts != nil {
		m.pairs = pairsOf(keywords)
	}
	return m
}

// pairsOf returns the matcher's pairs table (see matcher.pairs) for
// keywords, none empty.
func pairsOf(keywords [][]string) *[1 << 10]uint64 {
	p := new([1 << 10]uint64)
	set := func(b0, b1 byte) {
		for _, x := range [2]byte{b0, upper(b0)} {
			for _, y := range [2]byte{b1, upper(b1)} {
				i := uint(x) | uint(y)<<8
				p[i>>6] |= 1 << (i & 63)
			}
		}
	}
	for _, ks := range keywords {
		for _, k := range ks {
			if len(k) == 1 {
				for b1 := range 256 {
					set(k[0], byte(b1))
				}
				continue
			}
			set(k[0], k[1])
		}
	}
	return p
}

// upper returns c in upper case when it is an ASCII lower-case letter.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// startsOf returns the matcher's starts table (see matcher.starts) for
// keywords with the byte classes class (each below 64), or nil.
func startsOf(keywords [][]string, class *[256]uint8) *[1 << 12]uint64 {
	st := new([1 << 12]uint64)
	for _, ks := range keywords {
		for _, k := range ks {
			switch len(k) {
			case 0:
				return nil
			case 1: // any two classes may follow
				c0 := int(class[k[0]])
				for c1 := range 64 {
					st[c0<<6|c1] = ^uint64(0)
				}
			case 2:
				st[int(class[k[0]])<<6|int(class[k[1]])] = ^uint64(0)
			default:
				st[int(class[k[0]])<<6|int(class[k[1]])] |= 1 << class[k[2]]
			}
		}
	}
	return st
}

// goTo returns the child of s on class c, or 0.
func (m *matcher) goTo(s int32, c uint8) int32 {
	if s == 0 {
		return m.root[c]
	}
	for t := m.child[s]; t != 0; t = m.sibling[t] {
		if m.edge[t] == c {
			return t
		}
	}
	return 0
}

// ends reports whether a keyword ends just at state s.
func (m *matcher) ends(s int32) bool { return m.outAt[s+1] > m.outAt[s] }

// step works out and keeps next[s*nclass+c]: the trie's edge, else where
// the failure link goes; the root stays put.
func (m *matcher) step(s, c int32) int32 {
	e := &m.next[s*m.nclass+c]
	if v := e.Load(); v != 0 {
		return v
	}
	var v int32
	if t := m.goTo(s, uint8(c)); t != 0 {
		v = t*m.nclass + 1
		if m.flag[t] {
			v |= outFlag
		}
		if m.shallow[t] {
			v |= shallowFlag
		}
	} else if s != 0 {
		v = m.step(m.fail[s], c)
	} else {
		v = 1 | shallowFlag // the root, which ends no keyword
	}
	e.Store(v)
	return v
}

// scan calls hit with the rules of every keyword that ends in text.
func (m *matcher) scan(text string, hit func([]uint16, int)) {
	if m.starts == nil {
		m.scanFrom(text, 0, 0, hit)
		return
	}
	n := m.nclass
	next, class := m.next, &m.class
	// While the automaton is shallow, no keyword has begun before the
	// last byte it read: it goes on from the next place one may start,
	// from the root (or where it is, when that place is the last byte).
	row, i := int32(0), 0
	for i < len(text) {
		j := i
		if row != 0 {
			j = i - 1
		}
		j = m.skip(text, j)
		if j+2 >= len(text) {
			j = m.startNearEnd(text, j)
			if j < 0 {
				return
			}
		}
		if j >= i {
			row, i = 0, j
		}
		// The automaton from there, until it is shallow again past it.
		for start := j; i < len(text); {
			c := int32(class[text[i]])
			v := next[row+c].Load()
			if v == 0 {
				v = m.step(row/n, c)
			}
			row = v&stateMask - 1
			i++
			if v&outFlag != 0 {
				m.report(row, i, hit)
			}
			if v&shallowFlag != 0 && i-1 > start {
				break
			}
		}
	}
}

// skip returns the first place at or after j, and before the last two
// bytes of text, where a keyword may start: two bytes against pairs, then
// three classes against starts; else the first place not before them.
func (m *matcher) skip(text string, j int) int {
	if j >= len(text) {
		return j
	}
	pairs, starts, class := m.pairs, m.starts, &m.fclass
	for t := text[j:]; len(t) >= 3; t = t[1:] {
		if x := uint(t[0]) | uint(t[1])<<8; pairs[x>>6&(1<<10-1)]&(1<<(x&63)) != 0 &&
			starts[(uint(class[t[0]])<<6|uint(class[t[1]]))&(1<<12-1)]>>(class[t[2]]&63)&1 != 0 {
			return len(text) - len(t)
		}
	}
	return max(j, len(text)-2)
}

// startNearEnd returns the first place at or after j, one of the last two
// bytes of text, where a keyword may start, or -1.
func (m *matcher) startNearEnd(text string, j int) int {
	for ; j < len(text); j++ {
		c0, c1 := uint(m.fclass[text[j]]), uint(0)
		if j+1 < len(text) {
			c1 = uint(m.fclass[text[j+1]])
		}
		if m.starts[(c0<<6|c1)&(1<<12-1)]&1 != 0 {
			return j
		}
	}
	return -1
}

// scanFrom runs the automaton from the state at row over all of text.
func (m *matcher) scanFrom(text string, row int32, i int, hit func([]uint16, int)) {
	n := m.nclass
	next, class := m.next, &m.class
	for ; i < len(text); i++ {
		c := int32(class[text[i]])
		v := next[row+c].Load()
		if v == 0 {
			v = m.step(row/n, c)
		}
		row = v&stateMask - 1
		if v&outFlag != 0 {
			m.report(row, i+1, hit)
		}
	}
}

// report calls hit with the groups of the keywords that end at the state
// at row, at end in the text.
func (m *matcher) report(row int32, end int, hit func([]uint16, int)) {
	for t := row / m.nclass; t >= 0; t = m.dict[t] {
		if m.ends(t) {
			hit(m.outs[m.outAt[t]:m.outAt[t+1]], end)
		}
	}
}
