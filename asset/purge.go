package asset

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// lastUse is the later of a's Date and LastAccessed.
func (a *Asset) lastUse() time.Time {
	if a.LastAccessed.After(a.Date) {
		return a.LastAccessed
	}
	return a.Date
}

// check refuses a request that selects nothing or makes no sense.
func (r PurgeRequest) check() error {
	switch {
	case len(r.Retention) > 0 && !r.ByAge:
		return fmt.Errorf("%w: purge: Retention without ByAge", ErrInvalid)
	case r.IsZero():
		return fmt.Errorf("%w: purge: the request selects nothing (set Slugs, NotAccessedSince, MaxAssets or ByAge)", ErrInvalid)
	}
	return nil
}

// selectPurge returns the assets of live that r selects, as [PurgeRequest]
// says, at time now.
func selectPurge(live []*Asset, r PurgeRequest, now time.Time) []*Asset {
	retention := DefaultRetention()
	for t, d := range r.Retention {
		retention[t] = d
	}
	var narrow []*Asset
	for _, a := range live {
		if (r.Type == "" || a.Type == r.Type) && (r.Scope == "" || a.scope() == r.Scope) {
			narrow = append(narrow, a)
		}
	}
	var overCount map[*Asset]bool
	if r.MaxAssets > 0 && len(narrow) > r.MaxAssets {
		byUse := slices.Clone(narrow)
		slices.SortFunc(byUse, func(a, b *Asset) int {
			if c := b.lastUse().Compare(a.lastUse()); c != 0 {
				return c
			}
			return strings.Compare(a.Slug, b.Slug)
		})
		overCount = map[*Asset]bool{}
		for _, a := range byUse[r.MaxAssets:] {
			overCount[a] = true
		}
	}
	var out []*Asset
	for _, a := range narrow {
		switch {
		case len(r.Slugs) > 0 && !slices.Contains(r.Slugs, a.Slug):
		case !r.NotAccessedSince.IsZero() && !a.lastUse().Before(r.NotAccessedSince):
		case r.ByAge && (retention[a.Type] <= 0 || now.Sub(a.lastUse()) <= retention[a.Type]):
		case r.MaxAssets > 0 && !overCount[a]:
		default:
			out = append(out, a)
		}
	}
	return out
}

// Purge implements [Maintainer.Purge]. The assets it removes are appended to the
// archive file ([FileStore.ArchivePath]) first, marked "purged_at" the
// time, and then the store's file is rewritten without them (keeping only
// the latest record of each slug, and writing the access log's counts
// into the records). Ages are measured from the store's
// clock ([FileOptions.Now]).
func (s *FileStore) Purge(ctx context.Context, req PurgeRequest) (*PurgeResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("asset: purge: %w", context.Cause(ctx))
	}
	if err := req.check(); err != nil {
		return nil, err
	}
	var res *PurgeResult
	err := s.locked(ctx, func() error {
		now := s.now().UTC()
		slots := s.idx.live()
		live := make([]*Asset, len(slots))
		for k, i := range slots {
			live[k] = s.idx.metaAsset(i)
		}
		sel := selectPurge(live, req, now)
		res = &PurgeResult{Purged: []string{}, Remaining: len(live) - len(sel)}
		gone := map[string]bool{}
		selSlots := make([]int, len(sel))
		for k, a := range sel {
			res.Purged = append(res.Purged, a.Slug)
			gone[a.Slug] = true
			selSlots[k], _ = s.idx.slot(a.Slug)
		}
		slices.Sort(res.Purged)
		if req.DryRun || len(sel) == 0 {
			return nil
		}
		stamp, _ := json.Marshal(now.Format(time.RFC3339))
		if err := s.archiveRecords(selSlots, func(a *Asset) { a.Extra["purged_at"] = stamp }); err != nil {
			return err
		}
		return s.rewrite(func(i int) bool { return !gone[s.idx.slugs[i]] }, nil, nil)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// metaAsset returns what the index knows of slot i's asset, without reading
// its record: type, slug, tags, scope, date and accesses.
func (x *index) metaAsset(i int) *Asset {
	m := &x.meta[i]
	a := &Asset{Type: m.typ, Slug: x.slugs[i], Tags: x.tags[i], Scope: m.scope, Date: m.date}
	a.AccessCount, a.LastAccessed = x.access(i)
	return a
}
