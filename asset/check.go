package asset

import (
	"fmt"
	"strings"
	"time"
)

// Problem names what makes an asset weak.
type Problem string

// The problems [Check] reports.
const (
	// ProblemNoBody: the asset says nothing beyond its title.
	ProblemNoBody Problem = "no-body"
	// ProblemNoTags: no query by tags finds the asset, so the loop never
	// injects it.
	ProblemNoTags Problem = "no-tags"
	// ProblemDuplicateTitle: another asset has the same title.
	ProblemDuplicateTitle Problem = "duplicate-title"
	// ProblemStale: the asset was neither recorded nor injected for longer
	// than CheckRequest.StaleAfter.
	ProblemStale Problem = "stale"
)

// DefaultStaleAfter is how long an asset may go unrecorded and unused
// before [Check] calls it stale: 180 days.
const DefaultStaleAfter = 180 * 24 * time.Hour

// CheckRequest configures [Check].
type CheckRequest struct {
	// Now is the time staleness is judged at. Zero: time.Now().
	Now time.Time
	// StaleAfter is how long an asset may go unrecorded and unused (its
	// Date and LastAccessed) before it is stale. Zero: DefaultStaleAfter;
	// negative: nothing is stale.
	StaleAfter time.Duration
}

// Weakness is one problem of one asset.
type Weakness struct {
	Problem Problem `json:"problem"`
	Type    Type    `json:"type"`
	Slug    string  `json:"slug"`
	Title   string  `json:"title"`
	// Detail says more: the asset a title is shared with, or how old it is.
	Detail string `json:"detail,omitempty"`
}

// Check is the quality gate of an experience store, as the harnish engine
// has one: it reports the weak records among assets (say, every asset a
// query returns), in their order, each problem of an asset in the order
// no-body, no-tags, duplicate-title, stale. Titles compare without regard
// to case and spacing; the oldest asset with a title (the first of them,
// when their dates are equal) is the original, the others its duplicates.
// Check is linear in the number of assets.
func Check(assets []*Asset, req CheckRequest) []Weakness {
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	stale := req.StaleAfter
	if stale == 0 {
		stale = DefaultStaleAfter
	}
	titleKey := func(a *Asset) string { return strings.ToLower(strings.Join(strings.Fields(a.Title), " ")) }
	original := map[string]*Asset{} // by titleKey
	for _, a := range assets {
		k := titleKey(a)
		if o := original[k]; o == nil || a.Date.Before(o.Date) {
			original[k] = a
		}
	}
	var out []Weakness
	for _, a := range assets {
		add := func(p Problem, detail string) {
			out = append(out, Weakness{Problem: p, Type: a.Type, Slug: a.Slug, Title: a.Title, Detail: detail})
		}
		if strings.TrimSpace(a.Body) == "" {
			add(ProblemNoBody, "")
		}
		if len(a.Tags) == 0 {
			add(ProblemNoTags, "")
		}
		if o := original[titleKey(a)]; o != a {
			add(ProblemDuplicateTitle, "same title as "+o.Slug)
		}
		last := a.Date
		if a.LastAccessed.After(last) {
			last = a.LastAccessed
		}
		if stale > 0 && !last.IsZero() && now.Sub(last) > stale {
			add(ProblemStale, fmt.Sprintf("last recorded or used %s, %d days ago", last.UTC().Format(time.DateOnly), int(now.Sub(last).Hours()/24)))
		}
	}
	return out
}
