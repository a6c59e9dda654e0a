package asset

import (
	"slices"
	"strings"
	"time"
)

// index holds the latest asset of each slug in slots, with exact postings:
// the slots of each tag (lower case) and of each type. Ranking reads the
// slots' meta, kept in one array, so a query touches little memory besides
// its postings.
type index struct {
	assets []*Asset
	meta   []slotMeta
	bySlug map[string]int
	byTag  map[string][]int
	byType map[Type][]int
}

// slotMeta is what selecting and ranking by tag, type and scope reads.
type slotMeta struct {
	date   time.Time
	access int
	typ    Type
	scope  Scope
	// hidden marks a record the engine marked "compressed": true; queries
	// skip it.
	hidden bool
}

func (x *index) init() {
	*x = index{bySlug: map[string]int{}, byTag: map[string][]int{}, byType: map[Type][]int{}}
}

func (x *index) get(slug string) (*Asset, bool) {
	i, ok := x.bySlug[slug]
	if !ok {
		return nil, false
	}
	return x.assets[i], true
}

// live returns the assets queries see, in slot order: not those the engine
// marked compressed.
func (x *index) live() []*Asset {
	out := make([]*Asset, 0, len(x.assets))
	for i, a := range x.assets {
		if !x.meta[i].hidden {
			out = append(out, a)
		}
	}
	return out
}

// put adds a, replacing the asset of its slug.
func (x *index) put(a *Asset) {
	m := slotMeta{date: a.Date, access: a.AccessCount, typ: a.Type, scope: a.scope(), hidden: a.compressed()}
	tags := lowerTags(a.Tags)
	i, ok := x.bySlug[a.Slug]
	if !ok {
		i = len(x.assets)
		x.assets = append(x.assets, a)
		x.meta = append(x.meta, m)
		x.bySlug[a.Slug] = i
		x.byType[a.Type] = append(x.byType[a.Type], i)
		for _, t := range tags {
			x.byTag[t] = append(x.byTag[t], i)
		}
		return
	}
	old := x.assets[i]
	x.assets[i], x.meta[i] = a, m
	if old.Type != a.Type {
		x.byType[old.Type] = remove(x.byType[old.Type], i)
		x.byType[a.Type] = append(x.byType[a.Type], i)
	}
	oldTags := lowerTags(old.Tags)
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

// query selects and ranks as [Experience.Query] says, and returns copies.
func (x *index) query(q Query) []*Asset {
	var hits []hit
	consider := func(h hit) {
		m := &x.meta[h.slot]
		if m.hidden {
			return
		}
		if (q.Type != "" && m.typ != q.Type) || (q.Scope != "" && m.scope != q.Scope) {
			return
		}
		if q.Text != "" && !q.Match(x.assets[h.slot]) {
			return
		}
		if q.Limit <= 0 {
			hits = append(hits, h)
			return
		}
		// Keep only the best Limit, in order: a query usually asks for a
		// few of many.
		if len(hits) == q.Limit {
			if !x.before(h, hits[len(hits)-1]) {
				return
			}
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
		for i := range x.assets {
			consider(hit{slot: i})
		}
	}
	if q.Limit <= 0 {
		slices.SortFunc(hits, x.order)
	}
	out := make([]*Asset, len(hits))
	for i, h := range hits {
		out[i] = clone(x.assets[h.slot])
	}
	return out
}

// before reports whether h ranks before o: more of the query's tags, then
// newer, then accessed more often, then by slug, so the order is total.
func (x *index) before(h, o hit) bool {
	if h.overlap != o.overlap {
		return h.overlap > o.overlap
	}
	hm, om := &x.meta[h.slot], &x.meta[o.slot]
	if c := hm.date.Compare(om.date); c != 0 {
		return c > 0
	}
	if hm.access != om.access {
		return hm.access > om.access
	}
	return x.assets[h.slot].Slug < x.assets[o.slot].Slug
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

// grow makes room for n more assets.
func (x *index) grow(n int) {
	x.assets = slices.Grow(x.assets, n)
	x.meta = slices.Grow(x.meta, n)
	if len(x.bySlug) == 0 {
		x.bySlug = make(map[string]int, n)
	}
}
