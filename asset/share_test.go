package asset_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

// TestReadsDoNotGrowTheFile: queries that mark access add no records; the
// access log beside the file is folded into it, so the store stays the size
// of its records however often it is read, each record once in the file.
func TestReadsDoNotGrowTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, asset.EngineFile)
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	s := openFile(t, path, &asset.FileOptions{Now: func() time.Time { return now }})
	for _, title := range []string{"one", "two", "three"} {
		if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypePattern, Title: title, Tags: []string{"x"}}); err != nil {
			t.Fatal(err)
		}
	}
	fresh, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const reads = 600
	logPath := filepath.Join(dir, "harnish-assets.access.jsonl")
	var maxLog int64
	for range reads {
		if _, err := s.Query(t.Context(), asset.Query{Tags: []string{"x"}, MarkAccessed: true}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(logPath); err == nil {
			maxLog = max(maxLog, fi.Size())
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(data, []byte("\n")); lines != 3 {
		t.Errorf("after %d reads the file has %d lines, want 3 records", reads, lines)
	}
	// The counts grew by three digits each and a last_accessed_at.
	if len(data) > len(fresh)+3*(len(`,"last_accessed_at":"2026-05-01T00:00:00Z"`)+3) {
		t.Errorf("after %d reads the file grew from %d to %d bytes", reads, len(fresh), len(data))
	}
	if maxLog > 16<<10+200 {
		t.Errorf("the access log grew to %d bytes", maxLog)
	}
	if !bytes.Contains(data, []byte(`"access_count":`)) || bytes.Contains(data, []byte(`"access_count":0`)) {
		t.Errorf("the file's counts were never brought up to date:\n%s", data)
	}
	for _, st := range []*asset.FileStore{s, openFile(t, path, nil)} {
		got, err := st.Query(t.Context(), asset.Query{Tags: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range got {
			if a.AccessCount != reads || !a.LastAccessed.Equal(now) {
				t.Errorf("%s: %d accesses, last %v; want %d, %v", a.Slug, a.AccessCount, a.LastAccessed, reads, now)
			}
		}
	}
}

// TestRecordKeepsAccessCount: recording an asset a query returned replaces
// its record in place and keeps its count, the access log's accesses
// included, rather than adding them twice.
func TestRecordKeepsAccessCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), asset.EngineFile)
	s := openFile(t, path, nil)
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeDecision, Title: "d", Tags: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Query(t.Context(), asset.Query{Tags: []string{"x"}, MarkAccessed: true}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Query(t.Context(), asset.Query{Tags: []string{"x"}})
	if err != nil || len(got) != 1 || got[0].AccessCount != 3 {
		t.Fatalf("Query = %+v, %v; want 3 accesses", got, err)
	}
	got[0].Body = "revised"
	if err := s.Record(t.Context(), got[0]); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); bytes.Count(data, []byte("\n")) != 1 || !bytes.Contains(data, []byte(`"access_count":3`)) {
		t.Errorf("the file after recording the slug again, in place:\n%s", data)
	}
	for _, st := range []*asset.FileStore{s, openFile(t, path, nil)} {
		again, err := st.Query(t.Context(), asset.Query{Tags: []string{"x"}})
		if err != nil || len(again) != 1 || again[0].AccessCount != 3 || again[0].Body != "revised" {
			t.Errorf("after recording it again: %+v, %v; want the revision with 3 accesses", again, err)
		}
	}
}

// writeRecords writes n records of about 450 bytes to path: over the size
// at which a store writes its index file.
func writeRecords(t *testing.T, path string, n int) {
	t.Helper()
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"type":"snippet","slug":"s%d","title":"record %d","tags":["t%d","all"],"date":"2026-01-%02d","access_count":%d,"body":"%s"}`+"\n",
			i, i, i%50, 1+i%28, i%7, strings.Repeat("x", 350))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIndexFile: a store opened with the index file another made answers as
// one that read every record, and notices appends, rewrites and damage.
func TestIndexFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, asset.EngineFile)
	indexPath := filepath.Join(dir, "harnish-assets.index")
	writeRecords(t, path, 3000)
	queries := []asset.Query{{Tags: []string{"t7"}}, {Tags: []string{"all"}, Limit: 5}, {Type: asset.TypeSnippet, Limit: 3}, {Text: "record 2999"}}
	answers := func(s *asset.FileStore) []string {
		var out []string
		for _, q := range queries {
			got, err := s.Query(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(slugsOf(got)))
		}
		st, err := s.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return append(out, fmt.Sprint(st.Total, st.ByTag["all"]))
	}
	first := openFile(t, path, nil)
	want := answers(first)
	if _, err := os.Stat(indexPath); err != nil {
		t.Fatalf("no index file after indexing 1.3 MB: %v", err)
	}
	// Old enough that size and time alone are trusted.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, answers(openFile(t, path, nil))); diff != "" {
		t.Errorf("with the index file (-without +with):\n%s", diff)
	}

	// Another store appends: the index file covers the start.
	if err := first.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Slug: "s1", Title: "moved", Tags: []string{"t7", "new"}}); err != nil {
		t.Fatal(err)
	}
	got, err := openFile(t, path, nil).Query(t.Context(), asset.Query{Tags: []string{"new"}})
	if err != nil || len(got) != 1 || got[0].Title != "moved" {
		t.Errorf("after an append: %v, %v", got, err)
	}

	// The engine rewrites the file to the same size, a count changed, and
	// the clock set back: the CRC tells.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte(`"slug":"s5","title":"record 5"`), []byte(`"slug":"s5","title":"RECORD 5"`), 1)
	if err := os.WriteFile(path+".tmp", changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	got, err = openFile(t, path, nil).Query(t.Context(), asset.Query{Tags: []string{"t5"}})
	if err != nil || !slices.ContainsFunc(got, func(a *asset.Asset) bool { return a.Title == "RECORD 5" }) {
		t.Errorf("after a rewrite of the same size, s5 is not as rewritten: %v", err)
	}

	// A damaged index file is rebuilt, never an error.
	b, err := os.ReadFile(indexPath)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(indexPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := answers(openFile(t, path, nil))
	if err := os.Remove(indexPath); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(answers(openFile(t, path, nil)), damaged); diff != "" {
		t.Errorf("with a damaged index file (-without +with):\n%s", diff)
	}
}

// TestRecordsOverLines: records spread over lines, as the engine's reader
// accepts them, open; one whose object never closes is an error naming
// its first line.
func TestRecordsOverLines(t *testing.T) {
	const (
		one  = `{"type":"snippet","slug":"one","title":"t"}` + "\n"
		two  = "{\"type\":\"snippet\",\n  \"slug\":\"two\",\n\n  \"title\":\"t\"}\n"
		tail = `{"type":"snippet","slug":"three","title":"t","links":{"a":1}` + "\n}\n" // its first line ends in '}'
	)
	dir := t.TempDir()
	path := filepath.Join(dir, asset.EngineFile)
	if err := os.WriteFile(path, []byte(one+two+tail+one), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, path, nil)
	got, err := s.Query(t.Context(), asset.Query{})
	if diff := cmp.Diff([]string{"one", "three", "two"}, slugsOf(got)); diff != "" || err != nil {
		t.Errorf("Query = %v (-want +got):\n%s", err, diff)
	}
	n, err := asset.Import(t.Context(), openFile(t, filepath.Join(dir, "other.jsonl"), nil), path)
	if err != nil || n != 4 {
		t.Errorf("Import = %d, %v; want 4 records", n, err)
	}
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Slug: "two", Title: "again"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(t.Context(), asset.PurgeRequest{Slugs: []string{"one"}}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), tail) {
		t.Errorf("a rewrite changed the record kept:\n%s", data)
	}

	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(one+"{\"type\":\"snippet\",\n\"slug\":\"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = asset.OpenFile(bad, nil)
	var ce *asset.CorruptError
	if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), "does not close") {
		t.Errorf("OpenFile(unclosed) = %v, want an error at line 2", err)
	}
}

func TestStorePath(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		{"new", nil, asset.EngineFile},
		{"the engine's", []string{asset.EngineFile}, asset.EngineFile},
		{"harnish's before", []string{"assets.jsonl"}, "assets.jsonl"},
		{"both", []string{"assets.jsonl", asset.EngineFile}, asset.EngineFile},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := asset.StorePath(dir); got != filepath.Join(dir, tt.want) {
				t.Errorf("StorePath = %s, want %s", got, tt.want)
			}
		})
	}
}
