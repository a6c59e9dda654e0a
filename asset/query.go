package asset

import (
	"strings"
	"unicode"
)

// Query selects assets. Its fields combine with "and"; the zero Query matches
// every asset.
type Query struct {
	// Tags selects assets with any of these tags, or all of them with
	// AllTags. Empty means any tags. Tags compare without regard to case.
	Tags    []string
	AllTags bool
	// Type selects assets of this type. Empty means any.
	Type Type
	// Scope selects assets of this scope. Empty means any.
	Scope Scope
	// Text selects assets in which every word of Text appears, without regard
	// to case, in the slug, title, body, context or tags. Empty means any.
	Text string
	// Limit caps the number of assets returned. Zero or less means no cap.
	Limit int
	// MarkAccessed records the assets returned as accessed (LastAccessed,
	// AccessCount). The loop sets it when it injects assets into a prompt; a
	// listing leaves it unset, so looking does not keep an asset alive.
	MarkAccessed bool
}

// Match reports whether a satisfies q's selectors (Limit aside). Every [Store]
// selects with it, so stores agree on what a query means.
func (q Query) Match(a *Asset) bool {
	if q.Type != "" && a.Type != q.Type {
		return false
	}
	if q.Scope != "" && a.scope() != q.Scope {
		return false
	}
	if len(q.Tags) > 0 {
		matched := 0
		for _, t := range q.Tags {
			if a.hasTag(t) {
				matched++
			}
		}
		if matched == 0 || (q.AllTags && matched < len(q.Tags)) {
			return false
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(q.Text), isSpace) {
		if !a.mentions(w) {
			return false
		}
	}
	return true
}

func (a *Asset) scope() Scope {
	if a.Scope == "" {
		return ScopeProject
	}
	return a.Scope
}

func (a *Asset) hasTag(tag string) bool {
	for _, t := range a.Tags {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}

// mentions reports whether the lowercase word w appears in a's text.
func (a *Asset) mentions(w string) bool {
	for _, s := range []string{a.Slug, a.Title, a.Body, a.Context} {
		if strings.Contains(strings.ToLower(s), w) {
			return true
		}
	}
	for _, t := range a.Tags {
		if strings.Contains(strings.ToLower(t), w) {
			return true
		}
	}
	return false
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }
