package asset

import (
	"context"
	"fmt"
	"time"
)

// Store holds assets. The design calls it the AssetStore; in Go it is
// asset.Store, because the package name already says "asset" and
// asset.AssetStore would stutter.
//
// A Store must be safe for concurrent use by multiple goroutines, and, for a
// store kept in files, by several processes sharing its files (a run and a
// person running harnish assets at the same time). Every method returns
// promptly once ctx is done, with an error that wraps [context.Cause].
//
// Errors are classified: [ErrInvalid] for a request or asset the store
// refuses, [ErrCorrupt] (as a [*CorruptError] naming the file) for stored data
// that does not decode, [ErrSchema] for data written by a newer schema. A
// store never overwrites or rebuilds data it cannot read.
type Store interface {
	Experience
	Maintainer
}

// Experience is what a run needs of a [Store]: record what it learned, and
// query what earlier runs did. The loop takes an Experience, so a host may
// hand it a read-mostly view of a store it maintains elsewhere.
type Experience interface {
	// Record stores a, replacing the asset of the same slug if there is one.
	// It fills in a zero Slug (from the title), Date (now) and SchemaVersion
	// ([SchemaVersion]) and an empty Scope ([ScopeProject]), then checks a with
	// [Asset.Validate]; an invalid asset is an error wrapping [ErrInvalid].
	// It does not retain a.
	Record(ctx context.Context, a *Asset) error
	// Query returns the assets that match q (see [Query.Match]), the best
	// first: most of q's tags matched, then newest Date, then highest
	// AccessCount (then by slug, so the order is total); at most q.Limit of
	// them when it is positive. No match is an empty result, not an error. The
	// assets returned are the caller's to keep and modify.
	Query(ctx context.Context, q Query) ([]*Asset, error)
}

// Maintainer is a [Store]'s upkeep, for people and schedules, not runs:
// fold old records into summaries and remove what is no longer wanted.
type Maintainer interface {
	// Compress folds the records of a tag into one summary record, when the
	// tag holds req's MinGroup or more records that are live (returned by
	// queries) and are not summaries themselves. Tags are taken in
	// lexicographic order (lower case), and a record is folded once, into the
	// first of its tags that qualifies. The summary has the type most of the
	// records have (ties go to the first of failure, pattern, guardrail,
	// decision, snippet), the title "TAG: N records", the tags [TAG], the
	// scope they share (else [ScopeProject]), a slug derived from its title
	// as Record derives one, the time as its Date, a body with a line
	// "- TITLE: FIRST LINE OF BODY" for each record, oldest first, and the
	// extra field "summary_of" listing their slugs (see [Asset.SummaryOf]).
	// The records folded leave the store (a FileStore archives them). A
	// summary is never folded again, so compressing twice in a row changes
	// nothing the second time.
	Compress(ctx context.Context, req CompressRequest) (*CompressResult, error)
	// Purge removes the assets req selects (see [PurgeRequest]) from the
	// store (a FileStore archives them). A request that selects nothing (see
	// [PurgeRequest.IsZero]) is an error wrapping [ErrInvalid], so a mistake
	// cannot empty the store.
	Purge(ctx context.Context, req PurgeRequest) (*PurgeResult, error)
}

// CompressRequest configures [Maintainer.Compress]. The zero value compresses
// every tag of [DefaultMinGroup] or more records.
type CompressRequest struct {
	// DryRun reports what would change without changing anything.
	DryRun bool
	// MinGroup is how many records a tag must hold to be folded; at least 2.
	// Zero means [DefaultMinGroup] (5).
	MinGroup int
}

func (r CompressRequest) minGroup() (int, error) {
	switch {
	case r.MinGroup == 0:
		return DefaultMinGroup, nil
	case r.MinGroup < 2:
		return 0, fmt.Errorf("%w: compress: MinGroup %d is below 2", ErrInvalid, r.MinGroup)
	}
	return r.MinGroup, nil
}

// CompressResult says what [Maintainer.Compress] did, or would do.
type CompressResult struct {
	// Before and After count the assets queries return, before and after.
	Before, After int
	// Folded lists the slugs of the records folded into summaries, sorted.
	Folded []string
	// Summaries lists the slugs of the summary records, in tag order.
	Summaries []string
}

// PurgeRequest selects assets to remove. Its selectors combine with "and";
// at least one of Slugs, NotAccessedSince, MaxAssets or ByAge must be set:
// Type and Scope alone select nothing.
//
// An asset's last use is the later of its Date and its LastAccessed: an
// asset a query injected recently is not old, however long ago it was
// recorded.
type PurgeRequest struct {
	// Slugs selects these assets by slug. Slugs the store does not hold are
	// ignored.
	Slugs []string
	// NotAccessedSince selects assets neither accessed nor recorded since this
	// time. The zero value does not select by time.
	NotAccessedSince time.Time
	// MaxAssets keeps at most this many of the assets of Type and Scope,
	// those last used most recently, and selects the rest. Zero does not
	// select by count.
	MaxAssets int
	// ByAge selects assets whose last use is longer ago than their type's
	// retention: [DefaultRetention] (decisions 365 days, failures 90,
	// snippets 180, patterns and guardrails never), with Retention's entries
	// in place of its.
	ByAge bool
	// Retention overrides [DefaultRetention] by type, for ByAge; a duration of
	// zero or less means never. Retention without ByAge is an error wrapping
	// [ErrInvalid].
	Retention map[Type]time.Duration
	// Type and Scope narrow the selection; empty means any.
	Type  Type
	Scope Scope
	// DryRun reports what would be removed without removing anything.
	DryRun bool
}

// DefaultRetention returns how long assets of each type are kept after
// their last use, by default: decisions 365 days, failures 90, snippets 180.
// Patterns and guardrails, absent, are kept for ever.
func DefaultRetention() map[Type]time.Duration {
	const day = 24 * time.Hour
	return map[Type]time.Duration{
		TypeDecision: 365 * day,
		TypeFailure:  90 * day,
		TypeSnippet:  180 * day,
	}
}

// IsZero reports whether r selects nothing, which [Maintainer.Purge] refuses.
func (r PurgeRequest) IsZero() bool {
	return len(r.Slugs) == 0 && r.NotAccessedSince.IsZero() && r.MaxAssets <= 0 && !r.ByAge
}

// PurgeResult says what [Maintainer.Purge] removed, or would remove.
type PurgeResult struct {
	// Purged lists the slugs removed, sorted.
	Purged []string
	// Remaining counts the assets left.
	Remaining int
}
