package asset_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/harnish/harnish/asset"
)

// The bars of issue 7, at 100,000 records:
//
//	go test ./asset -run '^$' -bench 'Bar' -benchtime 5x
//
// BenchmarkBarOpen reports open/floor, where the floor reads the same file
// and json-decodes every line into a plain struct (target ≤ 1.5).
// BenchmarkBarTagQuery reports the median latency of a tag query (target
// under 100µs) beside a linear scan of the file for the same tag.

const (
	benchRecords = 100_000
	benchTags    = 1000
)

func benchTag(i int) string { return fmt.Sprintf("tag%d", i) }

// writeBenchFile writes n records: 1 to 4 tags from benchTags, all types,
// bodies of about 200 bytes.
func writeBenchFile(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "assets.jsonl")
	r := rand.New(rand.NewPCG(1, 2))
	types := []asset.Type{asset.TypeFailure, asset.TypePattern, asset.TypeGuardrail, asset.TypeDecision, asset.TypeSnippet}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for i := range n {
		var tags []string
		for range 1 + r.IntN(4) {
			tags = append(tags, benchTag(r.IntN(benchTags)))
		}
		a := asset.Asset{
			Type: types[i%len(types)], Slug: fmt.Sprintf("asset-%d", i), Title: fmt.Sprintf("Asset number %d", i),
			Tags: tags, Date: base.Add(time.Duration(i) * time.Minute), Scope: asset.ScopeProject,
			Body:    fmt.Sprintf("What happened in case %d and what to do about it. %s", i, bytes.Repeat([]byte("lorem ipsum "), 12)),
			Context: "plan P1, task T3, attempt 2", Session: "s-1234", SchemaVersion: 1, AccessCount: r.IntN(10),
		}
		line, err := json.Marshal(a)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// floorRecord is the plain shape the floor decodes into.
type floorRecord struct {
	Type          string    `json:"type"`
	Slug          string    `json:"slug"`
	Title         string    `json:"title"`
	Tags          []string  `json:"tags"`
	Date          time.Time `json:"date"`
	Scope         string    `json:"scope"`
	Body          string    `json:"body"`
	Context       string    `json:"context"`
	Session       string    `json:"session"`
	SchemaVersion int       `json:"schema_version"`
	LastAccessed  time.Time `json:"last_accessed_at"`
	AccessCount   int       `json:"access_count"`
	Resolved      *bool     `json:"resolved"`
	Stability     string    `json:"stability"`
	Level         string    `json:"level"`
	Confidence    string    `json:"confidence"`
}

// floor reads path and decodes every line: the least any store must do.
func floor(b *testing.B, path string) []*floorRecord {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var out []*floorRecord
	for line := range bytes.Lines(data) {
		r := new(floorRecord)
		if err := json.Unmarshal(line, r); err != nil {
			b.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func BenchmarkBarOpen(b *testing.B) {
	path := writeBenchFile(b, benchRecords)
	var floorTime, openTime time.Duration
	for b.Loop() {
		start := time.Now()
		if n := len(floor(b, path)); n != benchRecords {
			b.Fatalf("floor decoded %d records", n)
		}
		floorTime += time.Since(start)

		start = time.Now()
		s, err := asset.OpenFile(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		openTime += time.Since(start)
		s.Close()
	}
	b.ReportMetric(float64(floorTime.Milliseconds())/float64(b.N), "floor-ms")
	b.ReportMetric(float64(openTime.Milliseconds())/float64(b.N), "open-ms")
	b.ReportMetric(float64(openTime)/float64(floorTime), "open/floor")
}

// queriesPerScan is how many indexed queries each linear scan is set beside:
// a scan takes about a thousand times longer.
const queriesPerScan = 200

func BenchmarkBarTagQuery(b *testing.B) {
	path := writeBenchFile(b, benchRecords)
	s, err := asset.OpenFile(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(3, 4))
	var queryTimes, scanTimes []time.Duration
	for b.Loop() {
		tag := benchTag(r.IntN(benchTags))
		q := asset.Query{Tags: []string{tag}, Limit: 5}
		var got []*asset.Asset
		for i := range queriesPerScan {
			q := asset.Query{Tags: []string{benchTag(r.IntN(benchTags))}, Limit: 5}
			if i == 0 {
				q.Tags[0] = tag
			}
			start := time.Now()
			res, err := s.Query(b.Context(), q)
			queryTimes = append(queryTimes, time.Since(start))
			if err != nil || len(res) == 0 {
				b.Fatalf("Query(%s) = %d assets, %v", q.Tags[0], len(res), err)
			}
			if i == 0 {
				got = res
			}
		}

		start := time.Now()
		scanned := linearScan(b, path, q)
		scanTimes = append(scanTimes, time.Since(start))
		if scanned[0].Slug != got[0].Slug {
			b.Fatalf("Query(%s) best = %s, scan best = %s", tag, got[0].Slug, scanned[0].Slug)
		}
	}
	qm, sm := median(queryTimes), median(scanTimes)
	b.ReportMetric(float64(qm.Microseconds()), "query-median-µs")
	b.ReportMetric(float64(sm.Microseconds()), "scan-median-µs")
	b.ReportMetric(float64(sm)/float64(qm), "scan/query")
}

// linearScan answers q from the file without an index: read it, decode the
// lines that mention a tag, keep those that match, rank them.
func linearScan(b *testing.B, path string, q asset.Query) []*asset.Asset {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var hits []*asset.Asset
	for line := range bytes.Lines(data) {
		if !bytes.Contains(line, []byte(`"`+q.Tags[0]+`"`)) {
			continue
		}
		a := new(asset.Asset)
		if err := json.Unmarshal(line, a); err != nil {
			b.Fatal(err)
		}
		if q.Match(a) {
			hits = append(hits, a)
		}
	}
	slices.SortFunc(hits, func(x, y *asset.Asset) int { return y.Date.Compare(x.Date) })
	return hits[:min(len(hits), q.Limit)]
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
