package asset

import (
	"context"
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
	// Compress rewrites the store compactly: it drops records superseded by a
	// later one of the same slug and merges duplicates (same type, title and
	// tags) into the newest, which keeps the sum of their access counts.
	Compress(ctx context.Context, req CompressRequest) (*CompressResult, error)
	// Purge removes assets by the retention rules of req. A request that
	// selects nothing (the zero PurgeRequest) is an error wrapping
	// [ErrInvalid], so a mistake cannot empty the store.
	Purge(ctx context.Context, req PurgeRequest) (*PurgeResult, error)
}

// CompressRequest configures [Store.Compress]. The zero value compresses the
// whole store.
type CompressRequest struct {
	// DryRun reports what would change without changing anything.
	DryRun bool
}

// CompressResult says what [Store.Compress] did, or would do.
type CompressResult struct {
	// Before and After count the assets before and after.
	Before, After int
	// Merged lists the slugs of the assets folded into others.
	Merged []string
}

// PurgeRequest selects assets to remove. Its selectors combine with "and";
// at least one of Slugs, NotAccessedSince or MaxAssets must be set: Type and
// Scope alone select nothing.
type PurgeRequest struct {
	// Slugs selects these assets by slug.
	Slugs []string
	// NotAccessedSince selects assets neither accessed nor recorded since this
	// time. The zero value does not select by time.
	NotAccessedSince time.Time
	// MaxAssets keeps at most this many assets, selecting the least recently
	// accessed beyond it. Zero does not select by count.
	MaxAssets int
	// Type and Scope narrow the selection; empty means any.
	Type  Type
	Scope Scope
	// DryRun reports what would be removed without removing anything.
	DryRun bool
}

// IsZero reports whether r selects nothing, which [Store.Purge] refuses.
func (r PurgeRequest) IsZero() bool {
	return len(r.Slugs) == 0 && r.NotAccessedSince.IsZero() && r.MaxAssets <= 0
}

// PurgeResult says what [Store.Purge] removed, or would remove.
type PurgeResult struct {
	// Purged lists the slugs removed.
	Purged []string
	// Remaining counts the assets left.
	Remaining int
}
