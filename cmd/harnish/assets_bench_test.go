package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkBarProcessQuery is issue 21's bar for a query as the engine's
// workflow makes it, from a shell, as a new process, at 100,000 records:
// harnish assets query --tags X --limit 5, against a floor that is a plain
// Python loop decoding every line and testing the tag. Each iteration runs
// both, the order alternating; the benchmark reports the median of the
// per-iteration ratios (target ≤ 0.25). The store's index file is made by a
// first query before the loop, as the first query after a write makes it
// (that cold open is BenchmarkBarColdOpen in asset).
//
//	go test ./cmd/harnish -run '^$' -bench BarProcessQuery -benchtime 10x
func BenchmarkBarProcessQuery(b *testing.B) {
	python, err := exec.LookPath("python3")
	if err != nil {
		b.Skip("python3 is not on PATH; the floor is a Python scan")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "harnish")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	tree := filepath.Join(dir, "tree")
	path := filepath.Join(tree, ".harnish", "harnish-assets.jsonl")
	writeEngineStore(b, path, 100_000)
	// The store was not written in the last seconds, as a store queried
	// between runs is not.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		b.Fatal(err)
	}
	scan := filepath.Join(dir, "scan.py")
	if err := os.WriteFile(scan, []byte(pythonScan), 0o644); err != nil {
		b.Fatal(err)
	}
	query := func(tag string) func() []string {
		return func() []string {
			out, err := exec.Command(bin, "assets", "query", "--dir", tree, "--tags", tag, "--limit", "5").Output()
			if err != nil {
				b.Fatalf("harnish assets query: %v", err)
			}
			return strings.Fields(string(out))
		}
	}
	floor := func(tag string) func() []string {
		return func() []string {
			out, err := exec.Command(python, scan, path, tag).Output()
			if err != nil {
				b.Fatalf("python3 scan: %v", err)
			}
			return strings.Fields(string(out))
		}
	}
	query("tag1")() // writes the index file
	if _, err := os.Stat(filepath.Join(tree, ".harnish", "harnish-assets.index")); err != nil {
		b.Fatalf("no index file after a query: %v", err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var qs, fs []time.Duration
	var ratios []float64
	i := 0
	for b.Loop() {
		tag := fmt.Sprintf("tag%d", r.IntN(1000))
		var got, want []string
		timed := func(fn func() []string, out *[]string) time.Duration {
			start := time.Now()
			*out = fn()
			return time.Since(start)
		}
		var q, f time.Duration
		if i%2 == 0 {
			q, f = timed(query(tag), &got), timed(floor(tag), &want)
		} else {
			f, q = timed(floor(tag), &want), timed(query(tag), &got)
		}
		// harnish prints "TYPE SLUG TAGS TITLE..." a line; the scan
		// prints how many records carry the tag.
		if len(want) != 1 || (want[0] != "0") != (len(got) > 0) || !strings.Contains(strings.Join(got, " "), tag) && len(got) > 0 {
			b.Fatalf("tag %s: harnish printed %q, the scan %q", tag, got, want)
		}
		qs, fs = append(qs, q), append(fs, f)
		ratios = append(ratios, float64(q)/float64(f))
		i++
	}
	med := func(d []time.Duration) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return d[len(d)/2]
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(med(qs).Microseconds())/1000, "harnish-ms")
	b.ReportMetric(float64(med(fs).Microseconds())/1000, "python-ms")
	b.ReportMetric(ratios[len(ratios)/2], "harnish/python")
}

// pythonScan is the floor: decode every line, test the tag.
const pythonScan = `import json, sys
tag = sys.argv[2]
hits = []
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        if tag in r.get("tags", []):
            hits.append(r)
print(len(hits))
`

// writeEngineStore writes n records as the engine writes them: 1 to 4 of
// 1000 tags, every type, bodies of about 200 bytes.
func writeEngineStore(b *testing.B, path string, n int) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(1, 2))
	types := []string{"failure", "pattern", "guardrail", "decision", "snippet"}
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		var tags []string
		for range 1 + r.IntN(4) {
			tags = append(tags, fmt.Sprintf("tag%d", r.IntN(1000)))
		}
		rec := map[string]any{
			"type": types[i%len(types)], "slug": fmt.Sprintf("asset-%d", i), "title": fmt.Sprintf("Asset number %d", i),
			"tags": tags, "date": day.AddDate(0, 0, i/300).Format(time.DateOnly), "scope": "generic",
			"body":    fmt.Sprintf("What happened in case %d and what to do about it. %s", i, bytes.Repeat([]byte("lorem ipsum "), 12)),
			"context": "plan P1, task T3, attempt 2", "session": "s-1234", "schema_version": "0.0.2",
			"last_accessed_at": day.Format(time.RFC3339), "access_count": r.IntN(10),
		}
		line, err := json.Marshal(rec)
		if err != nil {
			b.Fatal(err)
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
