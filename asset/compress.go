package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultMinGroup is how many live records a tag must hold for
// [Maintainer.Compress] to fold them.
const DefaultMinGroup = 5

// The Extra fields compression writes.
const (
	// extraSummaryOf, on a summary record: the slugs it folds, a JSON array.
	extraSummaryOf = "summary_of"
	// extraCompressed, on a folded record: true. The engine writes it too.
	extraCompressed = "compressed"
	// extraCompressedInto, on a folded record in the archive: the summary's
	// slug.
	extraCompressedInto = "compressed_into"
	// extraEngineSummary, on a summary the engine wrote: true.
	extraEngineSummary = "compressed_summary"
)

// compressed reports whether a is marked "compressed": true, as the engine
// marks a record it folded (and harnish, in its archive); queries do not
// return it.
func (a *Asset) compressed() bool {
	v, ok := a.Extra[extraCompressed]
	return ok && string(bytes.TrimSpace(v)) == "true"
}

// SummaryOf returns the slugs of the records a summary folds (its
// "summary_of" field), or nil if a is not a summary. A summary is never
// folded again.
func (a *Asset) SummaryOf() []string {
	v, ok := a.Extra[extraSummaryOf]
	if !ok {
		return nil
	}
	var slugs []string
	if json.Unmarshal(v, &slugs) != nil || slugs == nil {
		return []string{}
	}
	return slugs
}

// isSummary reports whether a is a summary: harnish's (with "summary_of")
// or the engine's ("compressed_summary": true).
func (a *Asset) isSummary() bool {
	_, ok := a.Extra[extraSummaryOf]
	v := a.Extra[extraEngineSummary]
	return ok || string(bytes.TrimSpace(v)) == "true"
}

// compressPlan is what a compression folds into what.
type compressPlan struct {
	summaries []*Asset
	folded    [][]*Asset // folded[i] are the originals of summaries[i]
}

// planCompress groups live by tag, as [Maintainer.Compress] says. taken reports
// slugs already in use; now dates the summaries.
func planCompress(live []*Asset, minGroup int, now time.Time, taken func(string) bool) compressPlan {
	byTag := map[string][]*Asset{}
	for _, a := range live {
		if a.isSummary() {
			continue
		}
		for _, t := range lowerTags(a.Tags) {
			byTag[t] = append(byTag[t], a)
		}
	}
	var plan compressPlan
	done := map[*Asset]bool{}
	fresh := map[string]bool{}
	for _, tag := range slices.Sorted(mapKeys(byTag)) {
		var group []*Asset
		for _, a := range byTag[tag] {
			if !done[a] {
				group = append(group, a)
			}
		}
		if len(group) < minGroup {
			continue
		}
		for _, a := range group {
			done[a] = true
		}
		slices.SortFunc(group, func(a, b *Asset) int {
			if c := a.Date.Compare(b.Date); c != 0 {
				return c
			}
			return strings.Compare(a.Slug, b.Slug)
		})
		sum := summarize(tag, group, now)
		sum.Slug = uniqueSlug(Slugify(sum.Title), func(s string) bool { return taken(s) || fresh[s] })
		fresh[sum.Slug] = true
		plan.summaries = append(plan.summaries, sum)
		plan.folded = append(plan.folded, group)
	}
	return plan
}

func mapKeys[M ~map[K]V, K comparable, V any](m M) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// typeOrder breaks ties in a summary's majority type.
var typeOrder = []Type{TypeFailure, TypePattern, TypeGuardrail, TypeDecision, TypeSnippet}

// summarize returns the summary record of group, the records of tag, oldest
// first; its slug is left to the caller.
func summarize(tag string, group []*Asset, now time.Time) *Asset {
	count := map[Type]int{}
	scope := group[0].scope()
	slugs := make([]string, len(group))
	var body strings.Builder
	for i, a := range group {
		count[a.Type]++
		if a.scope() != scope {
			scope = ScopeProject
		}
		slugs[i] = a.Slug
		fmt.Fprintf(&body, "- %s", a.Title)
		if line := firstLine(a.Body); line != "" {
			fmt.Fprintf(&body, ": %s", line)
		}
		body.WriteByte('\n')
	}
	typ := typeOrder[0]
	for _, t := range typeOrder {
		if count[t] > count[typ] {
			typ = t
		}
	}
	of, _ := json.Marshal(slugs)
	return &Asset{
		Type:          typ,
		Title:         fmt.Sprintf("%s: %d records", tag, len(group)),
		Tags:          []string{tag},
		Date:          now,
		Scope:         scope,
		Body:          body.String(),
		SchemaVersion: SchemaVersion,
		Extra:         map[string]json.RawMessage{extraSummaryOf: of},
	}
}

// maxSummaryLine caps the bytes of a body's line a summary quotes.
const maxSummaryLine = 200

// firstLine returns the first non-blank line of s, trimmed, cut to
// maxSummaryLine bytes with "…".
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > maxSummaryLine {
			return clip(line, maxSummaryLine+len("…"))
		}
		return line
	}
	return ""
}

// Compress implements [Maintainer.Compress]. The records it folds are appended to
// the archive file ([FileStore.ArchivePath]) first, marked "compressed":
// true, and then the store's file is rewritten without them, with the
// summaries at its end. The rewrite keeps only the latest record of each
// slug, so it also drops superseded records, and writes the access log's
// counts into the records.
// A crash between the two steps leaves the folded records in both files;
// compressing again folds them again and archives them a second time.
func (s *FileStore) Compress(ctx context.Context, req CompressRequest) (*CompressResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("asset: compress: %w", context.Cause(ctx))
	}
	minGroup, err := req.minGroup()
	if err != nil {
		return nil, err
	}
	var res *CompressResult
	err = s.locked(ctx, func() error {
		live, err := s.loadAll(s.idx.live())
		if err != nil {
			return err
		}
		plan := planCompress(live, minGroup, s.now().UTC(), func(slug string) bool {
			_, ok := s.idx.slot(slug)
			return ok
		})
		res = &CompressResult{Before: len(live), After: len(live), Folded: []string{}, Summaries: []string{}}
		gone := map[string]bool{}
		var archived []int
		into := map[string]string{}
		for i, sum := range plan.summaries {
			res.Summaries = append(res.Summaries, sum.Slug)
			for _, a := range plan.folded[i] {
				res.Folded = append(res.Folded, a.Slug)
				gone[a.Slug] = true
				into[a.Slug] = sum.Slug
				i, _ := s.idx.slot(a.Slug)
				archived = append(archived, i)
			}
			res.After += 1 - len(plan.folded[i])
		}
		slices.Sort(res.Folded)
		if req.DryRun || len(plan.summaries) == 0 {
			return nil
		}
		if err := s.archiveRecords(archived, func(a *Asset) {
			a.Extra[extraCompressed] = json.RawMessage("true")
			q, _ := json.Marshal(into[a.Slug])
			a.Extra[extraCompressedInto] = q
		}); err != nil {
			return err
		}
		return s.rewrite(func(i int) bool { return !gone[s.idx.slugs[i]] }, nil, plan.summaries)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
