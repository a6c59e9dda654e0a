package asset_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

func recordN(t *testing.T, s asset.Store, tag string, n int) {
	t.Helper()
	for i := range n {
		if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeFailure, Title: fmt.Sprintf("%s %d", tag, i), Tags: []string{tag}}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCompressArchives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := openFile(t, path, &asset.FileOptions{Now: func() time.Time { return now }})
	recordN(t, s, "ci", 5)
	if _, err := s.Compress(t.Context(), asset.CompressRequest{}); err != nil {
		t.Fatal(err)
	}
	if got, want := s.ArchivePath(), filepath.Join(filepath.Dir(path), "assets.archive.jsonl"); got != want {
		t.Errorf("ArchivePath = %q, want %q", got, want)
	}
	arch, err := os.ReadFile(s.ArchivePath())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(arch), "\n"), "\n")
	const first = `{"type":"failure","slug":"ci-0","title":"ci 0","tags":["ci"],"date":"2026-03-01","scope":"project","schema_version":"0.0.2","access_count":0,"compressed":true,"compressed_into":"ci-5-records"}`
	if len(lines) != 5 || lines[0] != first {
		t.Errorf("archive has %d lines, the first %s; want 5, the first %s", len(lines), lines[0], first)
	}
	main, _ := os.ReadFile(path)
	const want = `{"type":"failure","slug":"ci-5-records","title":"ci: 5 records","tags":["ci"],"date":"2026-03-01","scope":"project","body":"- ci 0\n- ci 1\n- ci 2\n- ci 3\n- ci 4\n","schema_version":"0.0.2","access_count":0,"summary_of":["ci-0","ci-1","ci-2","ci-3","ci-4"]}` + "\n"
	if diff := cmp.Diff(want, string(main)); diff != "" {
		t.Errorf("main file (-want +got):\n%s", diff)
	}
	st, err := s.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	wantStats := asset.Stats{Total: 1, ByType: map[asset.Type]int{asset.TypeFailure: 1}, ByTag: map[string]int{"ci": 1}, Summaries: 1, Compressed: 5}
	if diff := cmp.Diff(wantStats, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestPurgeArchives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := openFile(t, path, &asset.FileOptions{Now: func() time.Time { return now }})
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "old", Date: now.AddDate(-1, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Purge(t.Context(), asset.PurgeRequest{ByAge: true}); err != nil {
		t.Fatal(err)
	}
	arch, _ := os.ReadFile(s.ArchivePath())
	const want = `{"type":"snippet","slug":"old","title":"old","date":"2025-03-01","scope":"project","schema_version":"0.0.2","access_count":0,"purged_at":"2026-03-01T00:00:00Z"}` + "\n"
	if diff := cmp.Diff(want, string(arch)); diff != "" {
		t.Errorf("archive (-want +got):\n%s", diff)
	}
	if main, _ := os.ReadFile(path); len(main) != 0 {
		t.Errorf("main file = %q, want empty", main)
	}
	_, err := s.Purge(t.Context(), asset.PurgeRequest{Retention: map[asset.Type]time.Duration{asset.TypeSnippet: time.Hour}})
	if want := "asset: invalid: purge: Retention without ByAge"; err == nil || err.Error() != want {
		t.Errorf("Purge(Retention alone) = %v, want %q", err, want)
	}
	_, err = s.Purge(t.Context(), asset.PurgeRequest{})
	if want := "asset: invalid: purge: the request selects nothing (set Slugs, NotAccessedSince, MaxAssets or ByAge)"; err == nil || err.Error() != want {
		t.Errorf("Purge(zero) = %v, want %q", err, want)
	}
}

// A store sees another's rewrite: it reopens the file and its appends land
// in the new file.
func TestFileStoreFollowsRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	a, b := openFile(t, path, nil), openFile(t, path, nil)
	recordN(t, a, "go", 5)
	if _, err := b.Compress(t.Context(), asset.CompressRequest{}); err != nil {
		t.Fatal(err)
	}
	recordN(t, a, "after", 1)
	for name, s := range map[string]*asset.FileStore{"a": a, "b": b, "reopened": openFile(t, path, nil)} {
		got, err := s.Query(t.Context(), asset.Query{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"after-0", "go-5-records"}, slices.Sorted(slices.Values(slugsOf(got)))); diff != "" {
			t.Errorf("store %s sees (-want +got):\n%s", name, diff)
		}
	}
}

func slugsOf(as []*asset.Asset) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Slug)
	}
	return out
}

// One store compresses again and again while another, on the same file as
// another process would be, keeps recording: every record ends up either
// live or folded into a live summary and archived.
func TestCompressWhileAnotherAppends(t *testing.T) {
	const n = 200
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	writer, compressor := openFile(t, path, nil), openFile(t, path, nil)
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		for i := range n {
			a := &asset.Asset{Type: asset.TypeSnippet, Slug: fmt.Sprintf("r%03d", i), Title: "t", Tags: []string{fmt.Sprintf("t%d", i%3)}}
			if err := writer.Record(t.Context(), a); err != nil {
				t.Error(err)
				return
			}
		}
	})
	compressions := 0
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			res, err := compressor.Compress(t.Context(), asset.CompressRequest{})
			if err != nil {
				t.Error(err)
				return
			}
			compressions += len(res.Summaries)
		}
	})
	wg.Wait()
	final := openFile(t, path, nil)
	live, err := final.Query(t.Context(), asset.Query{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, a := range live {
		if of := a.SummaryOf(); of != nil {
			for _, s := range of {
				seen[s]++
			}
			continue
		}
		seen[a.Slug]++
	}
	arch, _ := os.ReadFile(compressor.ArchivePath())
	for i := range n {
		slug := fmt.Sprintf("r%03d", i)
		if seen[slug] != 1 {
			t.Errorf("%s is live or summarized %d times, want once", slug, seen[slug])
		}
	}
	if got := bytes.Count(arch, []byte("\n")); got != n-countPlain(live) {
		t.Errorf("archive holds %d records, want %d: those summarized", got, n-countPlain(live))
	}
	t.Logf("%d summaries made while %d records were appended", compressions, n)
}

func countPlain(as []*asset.Asset) int {
	n := 0
	for _, a := range as {
		if a.SummaryOf() == nil {
			n++
		}
	}
	return n
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "harnish-assets.jsonl")
	line := strings.Replace(engineLine, `"compressed":true,`, "", 1)
	other := `{"type":"failure","slug":"f","title":"F","date":"2026-01-01"}`
	if err := os.WriteFile(src, []byte(line+"\n"+other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := openFile(t, filepath.Join(dir, ".harnish", "assets.jsonl"), nil)
	for range 2 {
		n, err := asset.Import(t.Context(), dst, src)
		if err != nil || n != 2 {
			t.Fatalf("Import = %d, %v; want 2", n, err)
		}
	}
	got, err := dst.Query(t.Context(), asset.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"retry-flaky-io", "f"}, slugsOf(got)); diff != "" {
		t.Errorf("imported (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(src, []byte(other+"\n{\"type\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := asset.Import(t.Context(), dst, src)
	if want := "asset: corrupt store: " + src + ":2: the record's object does not close before the end of the file"; err == nil || err.Error() != want || n != 0 {
		t.Errorf("Import(corrupt) = %d, %v; want 0, %q", n, err, want)
	}
}

func TestRender(t *testing.T) {
	as := []*asset.Asset{
		{Type: asset.TypeFailure, Title: "A", Tags: []string{"x", "y"}, Body: "line one\nline two\n"},
		{Type: asset.TypePattern, Title: "B", Body: strings.Repeat("é", 20)},
		{Type: asset.TypeSnippet, Title: "C"},
	}
	a := "### A\ntype: failure; tags: x, y\nline one\nline two"
	tests := []struct {
		name string
		max  int
		want []string
	}{
		{"no limit", 0, []string{a, "### B\ntype: pattern\n" + strings.Repeat("é", 20), "### C\ntype: snippet"}},
		{"exact", len(a), []string{a}},
		{"cut at a rune", len(a) + len("### B\ntype: pattern\néé") + len(asset.TruncatedMarker) + 1,
			[]string{a, "### B\ntype: pattern\néé" + asset.TruncatedMarker}},
		{"head does not fit", len(a) + 5, []string{a}},
		{"nothing fits", 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := asset.Render(as, tt.max)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render(%d) (-want +got):\n%s", tt.max, diff)
			}
			total := 0
			for _, s := range got {
				total += len(s)
			}
			if tt.max > 0 && total > tt.max {
				t.Errorf("Render(%d) totals %d bytes", tt.max, total)
			}
		})
	}
}
