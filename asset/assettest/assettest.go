package assettest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

// Run runs the conformance suite as subtests of t. newStore returns a new,
// empty store for each subtest; it registers any cleanup with t.
//
// The suite covers Record and Query: defaults filled in, slugs derived and
// kept unique, replacement by slug, selection by tags (any and all), type,
// scope and text, ranking, Limit, results owned by the caller, invalid assets
// refused with [asset.ErrInvalid], cancelled contexts, and Record from
// several goroutines at once; Compress (a tag of 5 records folded into one
// summary, dry run changing nothing, never compressing twice) and Purge (a
// zero request refused with [asset.ErrInvalid], dry run, by slug, by age
// with the default retention). A store whose Compress or Purge returns an
// error wrapping [asset.ErrUnsupported] skips those subtests.
func Run(t *testing.T, newStore func(t *testing.T) asset.Store) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, asset.Store)
	}{
		{"Defaults", testDefaults},
		{"Slugs", testSlugs},
		{"Replace", testReplace},
		{"Select", testSelect},
		{"Rank", testRank},
		{"Owned", testOwned},
		{"Invalid", testInvalid},
		{"Cancelled", testCancelled},
		{"Concurrent", testConcurrent},
		{"Compress", testCompress},
		{"CompressDryRun", testCompressDryRun},
		{"PurgeZero", testPurgeZero},
		{"Purge", testPurge},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

func record(t *testing.T, s asset.Store, as ...*asset.Asset) {
	t.Helper()
	for _, a := range as {
		if err := s.Record(t.Context(), a); err != nil {
			t.Fatalf("Record(%q): %v", a.Title, err)
		}
	}
}

func query(t *testing.T, s asset.Store, q asset.Query) []*asset.Asset {
	t.Helper()
	got, err := s.Query(t.Context(), q)
	if err != nil {
		t.Fatalf("Query(%+v): %v", q, err)
	}
	return got
}

func slugs(as []*asset.Asset) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.Slug)
	}
	return out
}

func testDefaults(t *testing.T, s asset.Store) {
	before := time.Now().Add(-time.Second)
	record(t, s, &asset.Asset{Type: asset.TypeFailure, Title: "Port 8080 taken!", Tags: []string{"net"}})
	got := query(t, s, asset.Query{})
	if len(got) != 1 {
		t.Fatalf("Query = %d assets, want 1", len(got))
	}
	a := got[0]
	if a.Date.Before(before) || a.Date.After(time.Now().Add(time.Second)) {
		t.Errorf("Date = %v, want about now", a.Date)
	}
	want := asset.Asset{Type: asset.TypeFailure, Slug: "port-8080-taken", Title: "Port 8080 taken!",
		Tags: []string{"net"}, Scope: asset.ScopeProject, SchemaVersion: asset.SchemaVersion, Date: a.Date}
	if diff := cmp.Diff(want, *a); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
}

func testSlugs(t *testing.T, s asset.Store) {
	for range 3 {
		record(t, s, &asset.Asset{Type: asset.TypePattern, Title: "Table tests"})
	}
	record(t, s, &asset.Asset{Type: asset.TypePattern, Slug: "own.slug", Title: "Own"})
	got := slugs(query(t, s, asset.Query{Text: "table"}))
	want := []string{"table-tests", "table-tests-2", "table-tests-3"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(got))); diff != "" {
		t.Errorf("derived slugs (-want +got):\n%s", diff)
	}
	if got := slugs(query(t, s, asset.Query{Text: "own"})); !cmp.Equal(got, []string{"own.slug"}) {
		t.Errorf("given slug = %v, want [own.slug]", got)
	}
}

func testReplace(t *testing.T, s asset.Store) {
	record(t, s,
		&asset.Asset{Type: asset.TypeDecision, Slug: "d", Title: "first", Tags: []string{"a"}},
		&asset.Asset{Type: asset.TypeSnippet, Slug: "d", Title: "second", Tags: []string{"b"}},
	)
	got := query(t, s, asset.Query{})
	if len(got) != 1 || got[0].Title != "second" {
		t.Fatalf("after replacing, Query = %v, want the second asset alone", titles(got))
	}
	for _, q := range []asset.Query{{Tags: []string{"a"}}, {Type: asset.TypeDecision}} {
		if got := query(t, s, q); len(got) != 0 {
			t.Errorf("Query(%+v) = %v, want none: the replaced asset", q, titles(got))
		}
	}
	if got := query(t, s, asset.Query{Tags: []string{"b"}, Type: asset.TypeSnippet}); len(got) != 1 {
		t.Errorf("Query for the replacement = %v, want it", titles(got))
	}
	record(t, s, &asset.Asset{Type: asset.TypeDecision, Slug: "d", Title: "third", Tags: []string{"A", "b"}})
	for _, q := range []asset.Query{{Tags: []string{"a", "b"}}, {Tags: []string{"a", "B"}, AllTags: true}, {Type: asset.TypeDecision}, {}} {
		if got := query(t, s, q); len(got) != 1 || got[0].Title != "third" {
			t.Errorf("after replacing back, Query(%+v) = %v, want the third asset once", q, titles(got))
		}
	}
}

func titles(as []*asset.Asset) []string {
	out := []string{}
	for _, a := range as {
		out = append(out, a.Title)
	}
	return out
}

func testSelect(t *testing.T, s asset.Store) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	record(t, s,
		&asset.Asset{Type: asset.TypeFailure, Slug: "f1", Title: "nil map write", Tags: []string{"go", "cache"}, Date: base},
		&asset.Asset{Type: asset.TypePattern, Slug: "p1", Title: "table tests", Tags: []string{"Go", "testing"}, Date: base.Add(time.Hour), Scope: asset.ScopeGeneric},
		&asset.Asset{Type: asset.TypeDecision, Slug: "d1", Title: "one JSONL file", Tags: []string{"storage"}, Date: base.Add(2 * time.Hour), Scope: asset.ScopeTeam, Body: "append only"},
		&asset.Asset{Type: asset.TypeSnippet, Slug: "s1", Title: "flock", Tags: []string{"storage", "go"}, Date: base.Add(3 * time.Hour)},
	)
	tests := []struct {
		name string
		q    asset.Query
		want []string
	}{
		{"all, newest first", asset.Query{}, []string{"s1", "d1", "p1", "f1"}},
		{"any tag", asset.Query{Tags: []string{"cache", "testing"}}, []string{"p1", "f1"}},
		{"tag case", asset.Query{Tags: []string{"GO"}}, []string{"s1", "p1", "f1"}},
		{"all tags", asset.Query{Tags: []string{"go", "storage"}, AllTags: true}, []string{"s1"}},
		{"unknown tag", asset.Query{Tags: []string{"rust"}}, []string{}},
		{"type", asset.Query{Type: asset.TypePattern}, []string{"p1"}},
		{"scope default", asset.Query{Scope: asset.ScopeProject}, []string{"s1", "f1"}},
		{"scope", asset.Query{Scope: asset.ScopeTeam}, []string{"d1"}},
		{"text in body", asset.Query{Text: "APPEND"}, []string{"d1"}},
		{"text words", asset.Query{Text: "nil write"}, []string{"f1"}},
		{"text and tag", asset.Query{Text: "flock", Tags: []string{"storage"}}, []string{"s1"}},
		{"type and tag", asset.Query{Type: asset.TypeFailure, Tags: []string{"storage"}}, []string{}},
		{"limit", asset.Query{Limit: 2}, []string{"s1", "d1"}},
		{"limit above count", asset.Query{Tags: []string{"cache"}, Limit: 5}, []string{"f1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, slugs(query(t, s, tt.q))); diff != "" {
				t.Errorf("Query(%+v) (-want +got):\n%s", tt.q, diff)
			}
		})
	}
}

func testRank(t *testing.T, s asset.Store) {
	old := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	recent := old.AddDate(1, 0, 0)
	record(t, s,
		&asset.Asset{Type: asset.TypePattern, Slug: "one-tag-recent", Title: "t", Tags: []string{"a"}, Date: recent},
		&asset.Asset{Type: asset.TypePattern, Slug: "two-tags-old", Title: "t", Tags: []string{"a", "b"}, Date: old},
		&asset.Asset{Type: asset.TypePattern, Slug: "one-tag-old-used", Title: "t", Tags: []string{"b"}, Date: old, AccessCount: 7},
		&asset.Asset{Type: asset.TypePattern, Slug: "one-tag-old", Title: "t", Tags: []string{"a"}, Date: old},
	)
	want := []string{"two-tags-old", "one-tag-recent", "one-tag-old-used", "one-tag-old"}
	if diff := cmp.Diff(want, slugs(query(t, s, asset.Query{Tags: []string{"a", "b"}}))); diff != "" {
		t.Errorf("ranking: tag overlap, then recency, then access count (-want +got):\n%s", diff)
	}
}

func testOwned(t *testing.T, s asset.Store) {
	in := &asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", Tags: []string{"x"}}
	record(t, s, in)
	in.Tags[0], in.Title = "changed", "changed"
	got := query(t, s, asset.Query{})
	got[0].Tags[0], got[0].Title = "mutated", "mutated"
	again := query(t, s, asset.Query{})
	if diff := cmp.Diff([]string{"x"}, again[0].Tags); diff != "" || again[0].Title != "t" {
		t.Errorf("store kept a caller's asset: tags (-want +got):\n%s title %q", diff, again[0].Title)
	}
}

func testInvalid(t *testing.T, s asset.Store) {
	tests := []struct {
		name string
		a    *asset.Asset
	}{
		{"no type", &asset.Asset{Title: "t"}},
		{"no title", &asset.Asset{Type: asset.TypeFailure}},
		{"bad slug", &asset.Asset{Type: asset.TypeFailure, Title: "t", Slug: "two\nlines"}},
		{"bad tag", &asset.Asset{Type: asset.TypeFailure, Title: "t", Tags: []string{" "}}},
		{"bad scope", &asset.Asset{Type: asset.TypeFailure, Title: "t", Scope: "world"}},
		{"extra on wrong type", &asset.Asset{Type: asset.TypeFailure, Title: "t", Level: "hard"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Record(t.Context(), tt.a)
			if !errors.Is(err, asset.ErrInvalid) {
				t.Errorf("Record = %v, want an error wrapping asset.ErrInvalid", err)
			}
		})
	}
	newer := &asset.Asset{Type: asset.TypeFailure, Title: "t", SchemaVersion: asset.SchemaVersion + 1}
	if err := s.Record(t.Context(), newer); !errors.Is(err, asset.ErrSchema) {
		t.Errorf("Record(newer schema) = %v, want an error wrapping asset.ErrSchema", err)
	}
	if got := query(t, s, asset.Query{}); len(got) != 0 {
		t.Errorf("after refused records, Query = %v, want none", slugs(got))
	}
}

func testCancelled(t *testing.T, s asset.Store) {
	cause := errors.New("budget spent")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(cause)
	if err := s.Record(ctx, &asset.Asset{Type: asset.TypeFailure, Title: "t"}); !errors.Is(err, cause) {
		t.Errorf("Record(cancelled) = %v, want an error wrapping the cause", err)
	}
	if _, err := s.Query(ctx, asset.Query{}); !errors.Is(err, cause) {
		t.Errorf("Query(cancelled) = %v, want an error wrapping the cause", err)
	}
}

func testConcurrent(t *testing.T, s asset.Store) {
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				a := &asset.Asset{Type: asset.TypeSnippet, Title: "same title", Tags: []string{fmt.Sprintf("w%d", w)}, Body: fmt.Sprint(i)}
				if err := s.Record(t.Context(), a); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Record: %v", err)
	}
	got := query(t, s, asset.Query{})
	seen := map[string]bool{}
	for _, a := range got {
		if seen[a.Slug] {
			t.Errorf("slug %q given twice", a.Slug)
		}
		seen[a.Slug] = true
	}
	if len(got) != writers*each {
		t.Errorf("Query = %d assets, want %d: every concurrent record kept, each under its own slug", len(got), writers*each)
	}
	for w := range writers {
		if got := query(t, s, asset.Query{Tags: []string{fmt.Sprintf("w%d", w)}}); len(got) != each {
			t.Errorf("writer %d: %d assets, want %d", w, len(got), each)
		}
	}
}

func compress(t *testing.T, s asset.Store, req asset.CompressRequest) *asset.CompressResult {
	t.Helper()
	res, err := s.Compress(t.Context(), req)
	if errors.Is(err, asset.ErrUnsupported) {
		t.Skipf("Compress: %v", err)
	}
	if err != nil {
		t.Fatalf("Compress(%+v): %v", req, err)
	}
	return res
}

func purge(t *testing.T, s asset.Store, req asset.PurgeRequest) *asset.PurgeResult {
	t.Helper()
	res, err := s.Purge(t.Context(), req)
	if errors.Is(err, asset.ErrUnsupported) {
		t.Skipf("Purge: %v", err)
	}
	if err != nil {
		t.Fatalf("Purge(%+v): %v", req, err)
	}
	return res
}

// recordGroup records n assets tagged tag, the first failures, the rest
// patterns, oldest first, and one asset tagged other.
func recordGroup(t *testing.T, s asset.Store, tag string, n int) {
	t.Helper()
	base := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	for i := range n {
		typ := asset.TypePattern
		if i < n/2 {
			typ = asset.TypeFailure
		}
		record(t, s, &asset.Asset{Type: typ, Slug: fmt.Sprintf("%s-%d", tag, i), Title: fmt.Sprintf("Lesson %d", i),
			Tags: []string{tag, fmt.Sprintf("only-%d", i)}, Body: fmt.Sprintf("first line %d\nsecond line", i), Date: base.Add(time.Duration(i) * time.Minute)})
	}
	record(t, s, &asset.Asset{Type: asset.TypeDecision, Slug: "other", Title: "Other", Tags: []string{"other"}, Date: base})
}

func testCompress(t *testing.T, s asset.Store) {
	recordGroup(t, s, "go", 5)
	res := compress(t, s, asset.CompressRequest{})
	want := &asset.CompressResult{Before: 6, After: 2, Folded: []string{"go-0", "go-1", "go-2", "go-3", "go-4"}, Summaries: []string{"go-5-records"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Compress (-want +got):\n%s", diff)
	}
	got := query(t, s, asset.Query{Tags: []string{"go"}})
	if len(got) != 1 {
		t.Fatalf("after Compress, Query(go) = %v, want the summary alone", slugs(got))
	}
	sum := got[0]
	type summary struct {
		Type      asset.Type
		Slug      string
		Title     string
		Tags      []string
		Body      string
		SummaryOf []string
	}
	wantSum := summary{asset.TypePattern, "go-5-records", "go: 5 records", []string{"go"},
		"- Lesson 0: first line 0\n- Lesson 1: first line 1\n- Lesson 2: first line 2\n- Lesson 3: first line 3\n- Lesson 4: first line 4\n",
		[]string{"go-0", "go-1", "go-2", "go-3", "go-4"}}
	if diff := cmp.Diff(wantSum, summary{sum.Type, sum.Slug, sum.Title, sum.Tags, sum.Body, sum.SummaryOf()}); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if got := query(t, s, asset.Query{Tags: []string{"only-0"}}); len(got) != 0 {
		t.Errorf("a folded record is still returned: %v", slugs(got))
	}
	recordGroup(t, s, "go", 0)
	again := compress(t, s, asset.CompressRequest{MinGroup: 2})
	if diff := cmp.Diff(&asset.CompressResult{Before: 2, After: 2, Folded: []string{}, Summaries: []string{}}, again); diff != "" {
		t.Errorf("second Compress, MinGroup 2 (-want +got): a summary was folded again\n%s", diff)
	}
	if _, err := s.Compress(t.Context(), asset.CompressRequest{MinGroup: 1}); !errors.Is(err, asset.ErrInvalid) {
		t.Errorf("Compress(MinGroup 1) = %v, want an error wrapping asset.ErrInvalid", err)
	}
}

func testCompressDryRun(t *testing.T, s asset.Store) {
	recordGroup(t, s, "go", 6)
	before := query(t, s, asset.Query{})
	res := compress(t, s, asset.CompressRequest{DryRun: true})
	if res.Before != 7 || res.After != 2 || len(res.Folded) != 6 || len(res.Summaries) != 1 {
		t.Errorf("Compress(dry run) = %+v, want 7 before, 2 after, 6 folded, 1 summary", res)
	}
	if diff := cmp.Diff(before, query(t, s, asset.Query{})); diff != "" {
		t.Errorf("Compress(dry run) changed the store (-before +after):\n%s", diff)
	}
	small := compress(t, s, asset.CompressRequest{MinGroup: 7, DryRun: true})
	if len(small.Folded) != 0 {
		t.Errorf("Compress(MinGroup 7) folds %v, want none: no tag holds 7", small.Folded)
	}
}

func testPurgeZero(t *testing.T, s asset.Store) {
	record(t, s, &asset.Asset{Type: asset.TypeFailure, Title: "keep"})
	for _, req := range []asset.PurgeRequest{{}, {Type: asset.TypeFailure, Scope: asset.ScopeProject}} {
		if _, err := s.Purge(t.Context(), req); !errors.Is(err, asset.ErrInvalid) {
			t.Errorf("Purge(%+v) = %v, want an error wrapping asset.ErrInvalid", req, err)
		}
	}
	if got := query(t, s, asset.Query{}); len(got) != 1 {
		t.Errorf("after refused purges, Query = %v, want the asset kept", slugs(got))
	}
}

func testPurge(t *testing.T, s asset.Store) {
	const day = 24 * time.Hour
	now := time.Now().UTC()
	record(t, s,
		&asset.Asset{Type: asset.TypeFailure, Slug: "failure-old", Title: "t", Date: now.Add(-100 * day)},
		&asset.Asset{Type: asset.TypeFailure, Slug: "failure-old-used", Title: "t", Date: now.Add(-100 * day), LastAccessed: now.Add(-10 * day)},
		&asset.Asset{Type: asset.TypeFailure, Slug: "failure-new", Title: "t", Date: now.Add(-80 * day)},
		&asset.Asset{Type: asset.TypeSnippet, Slug: "snippet-old", Title: "t", Date: now.Add(-200 * day)},
		&asset.Asset{Type: asset.TypeDecision, Slug: "decision-new", Title: "t", Date: now.Add(-200 * day)},
		&asset.Asset{Type: asset.TypePattern, Slug: "pattern-ancient", Title: "t", Date: now.Add(-5000 * day)},
		&asset.Asset{Type: asset.TypeGuardrail, Slug: "guardrail-ancient", Title: "t", Date: now.Add(-5000 * day)},
	)
	all := query(t, s, asset.Query{})
	dry := purge(t, s, asset.PurgeRequest{ByAge: true, DryRun: true})
	if diff := cmp.Diff(&asset.PurgeResult{Purged: []string{"failure-old", "snippet-old"}, Remaining: 5}, dry); diff != "" {
		t.Errorf("Purge(by age, dry run) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(all, query(t, s, asset.Query{})); diff != "" {
		t.Errorf("Purge(dry run) changed the store (-before +after):\n%s", diff)
	}
	override := purge(t, s, asset.PurgeRequest{ByAge: true, DryRun: true, Type: asset.TypePattern,
		Retention: map[asset.Type]time.Duration{asset.TypePattern: 365 * day}})
	if diff := cmp.Diff([]string{"pattern-ancient"}, override.Purged); diff != "" {
		t.Errorf("Purge(by age, patterns 365 days) (-want +got):\n%s", diff)
	}
	res := purge(t, s, asset.PurgeRequest{ByAge: true})
	if diff := cmp.Diff(dry, res); diff != "" {
		t.Errorf("Purge(by age) differs from its dry run (-dry +real):\n%s", diff)
	}
	want := []string{"decision-new", "failure-new", "failure-old-used", "guardrail-ancient", "pattern-ancient"}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(slugs(query(t, s, asset.Query{}))))); diff != "" {
		t.Errorf("after Purge(by age) (-want +got):\n%s", diff)
	}
	bySlug := purge(t, s, asset.PurgeRequest{Slugs: []string{"failure-new", "no-such"}})
	if diff := cmp.Diff(&asset.PurgeResult{Purged: []string{"failure-new"}, Remaining: 4}, bySlug); diff != "" {
		t.Errorf("Purge(slugs) (-want +got):\n%s", diff)
	}
	byCount := purge(t, s, asset.PurgeRequest{MaxAssets: 1, Type: asset.TypeFailure, DryRun: true})
	if diff := cmp.Diff([]string{}, byCount.Purged); diff != "" {
		t.Errorf("Purge(max 1 failure) (-want +got):\n%s", diff)
	}
	byCount = purge(t, s, asset.PurgeRequest{MaxAssets: 2, DryRun: true})
	if diff := cmp.Diff([]string{"guardrail-ancient", "pattern-ancient"}, byCount.Purged); diff != "" {
		t.Errorf("Purge(max 2) (-want +got): the least recently used beyond 2\n%s", diff)
	}
}
