package asset

import (
	"slices"
	"strings"
	"time"
)

// index holds, for the latest record of each slug, where it sits in the
// file and what selecting and ranking read (slots), with exact postings: the
// slots of each tag (lower case) and of each type. The records' text is not
// kept: a query reads and decodes the records it returns, and no others.
type index struct {
	slugs []string
	tags  [][]string // each slot's tags, lower case, each once
	meta  []slotMeta
	// bySlug maps slugs to slots; nil until first needed (see slot), as a
	// query needs none.
	bySlug map[string]int
	byTag  map[string][]int
	byType map[Type][]int
	// acc holds the accesses kept beside the file (see accessLog), by slug.
	acc map[string]accessDelta
}

// slotMeta is what selecting and ranking by tag, type and scope reads.
type slotMeta struct {
	date   time.Time
	last   time.Time // LastAccessed as the file has it
	access int       // AccessCount as the file has it
	typ    Type
	scope  Scope
	recordMeta
	span
}

// accessDelta is what accesses kept beside the file add to a record's.
type accessDelta struct {
	n    int
	last time.Time
}

func (x *index) init() {
	*x = index{bySlug: map[string]int{}, byTag: map[string][]int{}, byType: map[Type][]int{}, acc: map[string]accessDelta{}}
}

// slot returns the slot of slug.
func (x *index) slot(slug string) (int, bool) {
	if x.bySlug == nil {
		x.bySlug = make(map[string]int, len(x.slugs))
		for i, s := range x.slugs {
			x.bySlug[s] = i
		}
	}
	i, ok := x.bySlug[slug]
	return i, ok
}

// access returns slot i's AccessCount and LastAccessed, with the accesses
// kept beside the file.
func (x *index) access(i int) (int, time.Time) {
	m := &x.meta[i]
	d, ok := x.acc[x.slugs[i]]
	if !ok {
		return m.access, m.last
	}
	last := m.last
	if d.last.After(last) {
		last = d.last
	}
	return m.access + d.n, last
}

// live returns the slots queries see, in slot order: not those marked
// compressed.
func (x *index) live() []int {
	out := make([]int, 0, len(x.meta))
	for i := range x.meta {
		if !x.meta[i].hidden {
			out = append(out, i)
		}
	}
	return out
}

// put adds the record of a (read without its text) at sp, replacing the
// record of its slug.
func (x *index) put(a *Asset, rm recordMeta, sp span) {
	m := slotMeta{date: a.Date, last: a.LastAccessed, access: a.AccessCount, typ: a.Type, scope: a.scope(), recordMeta: rm, span: sp}
	x.putSlot(a.Slug, lowerTags(a.Tags), m)
}

func (x *index) putSlot(slug string, tags []string, m slotMeta) {
	i, ok := x.slot(slug)
	if !ok {
		i = len(x.meta)
		x.slugs = append(x.slugs, slug)
		x.tags = append(x.tags, tags)
		x.meta = append(x.meta, m)
		x.bySlug[slug] = i
		x.byType[m.typ] = append(x.byType[m.typ], i)
		for _, t := range tags {
			x.byTag[t] = append(x.byTag[t], i)
		}
		return
	}
	old, oldTags := x.meta[i], x.tags[i]
	x.meta[i], x.tags[i] = m, tags
	if old.typ != m.typ {
		x.byType[old.typ] = remove(x.byType[old.typ], i)
		x.byType[m.typ] = append(x.byType[m.typ], i)
	}
	for _, t := range oldTags {
		if !slices.Contains(tags, t) {
			x.byTag[t] = remove(x.byTag[t], i)
		}
	}
	for _, t := range tags {
		if !slices.Contains(oldTags, t) {
			x.byTag[t] = append(x.byTag[t], i)
		}
	}
}

func remove(s []int, v int) []int {
	if k := slices.Index(s, v); k >= 0 {
		return slices.Delete(s, k, k+1)
	}
	return s
}

// lowerTags returns tags in lower case, each once: tags itself when they
// already are, as they usually are.
func lowerTags(tags []string) []string {
	if isLowerSet(tags) {
		return tags
	}
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if t := strings.ToLower(t); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// hit is a selected slot with the number of the query's tags it has.
type hit struct {
	slot, overlap int
}

// query selects and ranks as [Experience.Query] says, and returns the
// slots. match, when q has Text, reads a slot's record and tells whether q
// matches it; its error ends the query.
func (x *index) query(q Query, match func(slot int) (bool, error)) ([]int, error) {
	var hits []hit
	var err error
	consider := func(h hit) {
		m := &x.meta[h.slot]
		if m.hidden || err != nil {
			return
		}
		if (q.Type != "" && m.typ != q.Type) || (q.Scope != "" && m.scope != q.Scope) {
			return
		}
		if q.Limit > 0 && len(hits) == q.Limit && !x.before(h, hits[len(hits)-1]) {
			return // would not make the cut: no need to read it
		}
		if q.Text != "" {
			var ok bool
			if ok, err = match(h.slot); !ok || err != nil {
				return
			}
		}
		if q.Limit <= 0 {
			hits = append(hits, h)
			return
		}
		// Keep only the best Limit, in order: a query usually asks for a
		// few of many.
		if len(hits) == q.Limit {
			hits = hits[:len(hits)-1]
		}
		at, _ := slices.BinarySearchFunc(hits, h, x.order)
		hits = slices.Insert(hits, at, h)
	}
	switch tags := lowerTags(q.Tags); {
	case len(tags) == 1:
		for _, i := range x.byTag[tags[0]] {
			consider(hit{i, 1})
		}
	case len(tags) > 1:
		var all []int
		for _, t := range tags {
			all = append(all, x.byTag[t]...)
		}
		slices.Sort(all)
		for k := 0; k < len(all); {
			n := 1
			for k+n < len(all) && all[k+n] == all[k] {
				n++
			}
			if !q.AllTags || n == len(tags) {
				consider(hit{all[k], n})
			}
			k += n
		}
	case q.Type != "":
		for _, i := range x.byType[q.Type] {
			consider(hit{slot: i})
		}
	default:
		for i := range x.meta {
			consider(hit{slot: i})
		}
	}
	if err != nil {
		return nil, err
	}
	if q.Limit <= 0 {
		slices.SortFunc(hits, x.order)
	}
	out := make([]int, len(hits))
	for i, h := range hits {
		out[i] = h.slot
	}
	return out, nil
}

// before reports whether h ranks before o: more of the query's tags, then
// newer, then accessed more often, then by slug, so the order is total.
func (x *index) before(h, o hit) bool {
	if h.overlap != o.overlap {
		return h.overlap > o.overlap
	}
	if c := x.meta[h.slot].date.Compare(x.meta[o.slot].date); c != 0 {
		return c > 0
	}
	if ha, oa := x.accessCount(h.slot), x.accessCount(o.slot); ha != oa {
		return ha > oa
	}
	return x.slugs[h.slot] < x.slugs[o.slot]
}

func (x *index) accessCount(i int) int {
	n, _ := x.access(i)
	return n
}

func (x *index) order(h, o hit) int {
	switch {
	case h.slot == o.slot:
		return 0
	case x.before(h, o):
		return -1
	}
	return 1
}

func isLowerSet(tags []string) bool {
	for i, t := range tags {
		for k := 0; k < len(t); k++ {
			if c := t[k]; c >= 0x80 || ('A' <= c && c <= 'Z') {
				return false
			}
		}
		if slices.Contains(tags[:i], t) {
			return false
		}
	}
	return true
}

// grow makes room for n more slots.
func (x *index) grow(n int) {
	x.slugs = slices.Grow(x.slugs, n)
	x.tags = slices.Grow(x.tags, n)
	x.meta = slices.Grow(x.meta, n)
	if len(x.bySlug) == 0 && x.bySlug != nil {
		x.bySlug = make(map[string]int, n)
	}
}
