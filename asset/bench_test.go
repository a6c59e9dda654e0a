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

// The bars of issues 7 and 21, at 100,000 records:
//
//	go test ./asset -run '^$' -bench 'Bar' -benchtime 10x
//
// Each measures its floor in the same loop, interleaved, the order
// alternating, and reports the median of the per-iteration ratios.
//
// BenchmarkBarColdOpen: the first query after another process rewrote the
// file (as the engine does at every query), against a floor that reads the
// file and json-decodes every line into a plain struct; target ≤ 1.5.
// BenchmarkBarOpenAfterAppend: the first query after another process
// appended a record, which reads the index file and decodes the new record,
// against the same floor. BenchmarkBarTagQuery: a tag query on an open
// store (target under 100µs) beside a linear scan of the file for the
// same tag. The whole-process bar (harnish assets query against a Python
// scan) is BenchmarkBarProcessQuery in cmd/harnish.

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
	Type          string          `json:"type"`
	Slug          string          `json:"slug"`
	Title         string          `json:"title"`
	Tags          []string        `json:"tags"`
	Date          string          `json:"date"`
	RecordedAt    time.Time       `json:"recorded_at"`
	Scope         string          `json:"scope"`
	Body          string          `json:"body"`
	Context       string          `json:"context"`
	Session       string          `json:"session"`
	SchemaVersion string          `json:"schema_version"`
	LastAccessed  time.Time       `json:"last_accessed_at"`
	AccessCount   int             `json:"access_count"`
	Resolved      *bool           `json:"resolved"`
	Stability     json.RawMessage `json:"stability"`
	Level         string          `json:"level"`
	Confidence    string          `json:"confidence"`
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

// rewriteAsEngine replaces path as the engine's query does: every record,
// one access count changed, written to a temporary file renamed over it.
func rewriteAsEngine(b *testing.B, path string, n int) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"slug":"asset-0",`), []byte(fmt.Sprintf(`"slug":"asset-0","n":%d,`, n)), 1)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
}

// alternate runs floor and measured in turn, the order alternating with i,
// and returns their times.
func alternate(b *testing.B, i int, floor, measured func()) (f, m time.Duration) {
	timed := func(fn func()) time.Duration {
		start := time.Now()
		fn()
		return time.Since(start)
	}
	if i%2 == 0 {
		f = timed(floor)
		m = timed(measured)
	} else {
		m = timed(measured)
		f = timed(floor)
	}
	return f, m
}

// report reports the medians of the floor's and the measured times and of
// their per-iteration ratios.
func report(b *testing.B, name string, floors, measured []time.Duration) {
	ratios := make([]float64, len(floors))
	for i := range floors {
		ratios[i] = float64(measured[i]) / float64(floors[i])
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(median(floors).Microseconds())/1000, "floor-ms")
	b.ReportMetric(float64(median(measured).Microseconds())/1000, name+"-ms")
	b.ReportMetric(ratios[len(ratios)/2], name+"/floor")
}

func queryOnce(b *testing.B, path string) {
	s, err := asset.OpenFile(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Query(b.Context(), asset.Query{Tags: []string{benchTag(7)}, Limit: 5}); err != nil || len(got) == 0 {
		b.Fatalf("Query = %d assets, %v", len(got), err)
	}
}

func BenchmarkBarColdOpen(b *testing.B) {
	path := writeBenchFile(b, benchRecords)
	queryOnce(b, path) // an index file, made stale by each rewrite
	var floors, opens []time.Duration
	i := 0
	for b.Loop() {
		rewriteAsEngine(b, path, i)
		f, m := alternate(b, i, func() {
			if n := len(floor(b, path)); n != benchRecords {
				b.Fatalf("floor decoded %d records", n)
			}
		}, func() { queryOnce(b, path) })
		floors, opens = append(floors, f), append(opens, m)
		i++
	}
	report(b, "cold", floors, opens)
}

func BenchmarkBarOpenAfterAppend(b *testing.B) {
	path := writeBenchFile(b, benchRecords)
	queryOnce(b, path)
	var floors, opens []time.Duration
	i := 0
	for b.Loop() {
		other, err := asset.OpenFile(path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := other.Record(b.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "appended", Tags: []string{benchTag(7)}}); err != nil {
			b.Fatal(err)
		}
		other.Close()
		f, m := alternate(b, i, func() {
			if n := len(floor(b, path)); n < benchRecords {
				b.Fatalf("floor decoded %d records", n)
			}
		}, func() { queryOnce(b, path) })
		floors, opens = append(floors, f), append(opens, m)
		i++
	}
	report(b, "open", floors, opens)
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
	i := 0
	for b.Loop() {
		tag := benchTag(r.IntN(benchTags))
		q := asset.Query{Tags: []string{tag}, Limit: 5}
		var got, scanned []*asset.Asset
		var times []time.Duration
		scan, _ := alternate(b, i, func() { scanned = linearScan(b, path, q) }, func() {
			for k := range queriesPerScan {
				q := asset.Query{Tags: []string{benchTag(r.IntN(benchTags))}, Limit: 5}
				if k == 0 {
					q.Tags[0] = tag
				}
				start := time.Now()
				res, err := s.Query(b.Context(), q)
				times = append(times, time.Since(start))
				if err != nil || len(res) == 0 {
					b.Fatalf("Query(%s) = %d assets, %v", q.Tags[0], len(res), err)
				}
				if k == 0 {
					got = res
				}
			}
		})
		if scanned[0].Slug != got[0].Slug {
			b.Fatalf("Query(%s) best = %s, scan best = %s", tag, got[0].Slug, scanned[0].Slug)
		}
		queryTimes = append(queryTimes, median(times))
		scanTimes = append(scanTimes, scan)
		i++
	}
	b.ReportMetric(float64(median(queryTimes).Nanoseconds())/1000, "query-median-µs")
	b.ReportMetric(float64(median(scanTimes).Microseconds())/1000, "scan-median-ms")
	ratios := make([]float64, len(scanTimes))
	for i := range scanTimes {
		ratios[i] = float64(scanTimes[i]) / float64(queryTimes[i])
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "scan/query")
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
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}
