package asset_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

// The round trip with the harnish engine (github.com/jazz1x/harnish): a
// store harnish writes survives the engine's purge and its threshold counts,
// and a store the engine writes survives harnish's, each tool seeing every
// record once.
//
// The engine is in no package registry, so CI has no checkout of it and
// runs the round trip against oracleEngine, a re-implementation of its
// rules. With HARNISH_ENGINE_DIR naming a checkout (commit 559e70e, or a
// later one where python3 is 3.14 or newer), the round trip also runs
// against its own scripts, and TestEngineOracle holds the oracle to them:
//
//	git -C harnish-engine checkout 559e70e
//	HARNISH_ENGINE_DIR=$PWD/harnish-engine go test ./asset -run Engine
//
// HARNISH_REQUIRE_ENGINE=1 makes a missing checkout a failure.

// engine is what the round trip does with the engine, in base (its
// .harnish directory).
type engine interface {
	record(base, typ, title, tags string) error
	query(base, tags string) ([]string, error)
	purge(base string) ([]string, error)
	thresholds(base string) (map[string]int, error)
	compress(base, tag string) error
}

// scriptEngine runs the engine's own scripts from a checkout.
type scriptEngine struct{ dir string }

func (e scriptEngine) run(script string, args ...string) ([]byte, error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(e.dir, "scripts", script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %v: %v\n%s%s", script, args, err, out, stderr.Bytes())
	}
	return out, nil
}

func (e scriptEngine) record(base, typ, title, tags string) error {
	_, err := e.run("record-asset.sh", "--type", typ, "--title", title, "--tags", tags, "--base-dir", base)
	return err
}

func (e scriptEngine) query(base, tags string) ([]string, error) {
	out, err := e.run("query-assets.sh", "--tags", tags, "--format", "json", "--base-dir", base)
	if err != nil {
		return nil, err
	}
	var res struct {
		Results []struct {
			Slug string `json:"slug"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("query-assets.sh printed %s: %v", out, err)
	}
	var slugs []string
	for _, r := range res.Results {
		slugs = append(slugs, r.Slug)
	}
	return slugs, nil
}

func (e scriptEngine) purge(base string) ([]string, error) {
	dry, err := e.run("purge-assets.sh", "--base-dir", base)
	if err != nil {
		return nil, err
	}
	var res struct {
		Candidates []struct {
			Slug string `json:"slug"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(dry, &res); err != nil {
		return nil, fmt.Errorf("purge-assets.sh printed %s: %v", dry, err)
	}
	var slugs []string
	for _, c := range res.Candidates {
		slugs = append(slugs, c.Slug)
	}
	if _, err := e.run("purge-assets.sh", "--execute", "--base-dir", base); err != nil {
		return nil, err
	}
	return slugs, nil
}

var thresholdLine = regexp.MustCompile(`^(".*")\((\d+)건\)`)

func (e scriptEngine) thresholds(base string) (map[string]int, error) {
	out, err := e.run("check-thresholds.sh", "--base-dir", base)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for line := range strings.Lines(string(out)) {
		m := thresholdLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var tag string
		if err := json.Unmarshal([]byte(m[1]), &tag); err != nil {
			return nil, fmt.Errorf("check-thresholds.sh line %q: %v", line, err)
		}
		counts[tag], _ = strconv.Atoi(m[2])
	}
	return counts, nil
}

func (e scriptEngine) compress(base, tag string) error {
	_, err := e.run("compress-assets.sh", "--tag", tag, "--base-dir", base)
	return err
}

// engines returns the oracle, and the engine's scripts when
// HARNISH_ENGINE_DIR names a checkout.
func engines(t *testing.T) map[string]engine {
	es := map[string]engine{"oracle": oracleEngine{}}
	if dir := os.Getenv("HARNISH_ENGINE_DIR"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "scripts", "query-assets.sh")); err != nil {
			t.Fatalf("HARNISH_ENGINE_DIR=%s is no checkout of the engine: %v", dir, err)
		}
		es["scripts"] = scriptEngine{dir}
	} else if os.Getenv("HARNISH_REQUIRE_ENGINE") != "" {
		t.Fatal("HARNISH_REQUIRE_ENGINE is set but HARNISH_ENGINE_DIR names no checkout of the engine")
	}
	return es
}

// fatal returns what the engine or store answers, ending the test on an
// error.
type fatal struct{ t *testing.T }

func (f fatal) thresholds(e engine, base string) map[string]int {
	f.t.Helper()
	v, err := e.thresholds(base)
	f.check(err)
	return v
}

func (f fatal) purge(e engine, base string) []string {
	f.t.Helper()
	v, err := e.purge(base)
	f.check(err)
	return v
}

func (f fatal) query(e engine, base, tags string) []string {
	f.t.Helper()
	v, err := e.query(base, tags)
	f.check(err)
	return v
}

func (f fatal) find(s *asset.FileStore, q asset.Query) []*asset.Asset {
	f.t.Helper()
	v, err := s.Query(f.t.Context(), q)
	f.check(err)
	return v
}

func (f fatal) stats(s *asset.FileStore) asset.Stats {
	f.t.Helper()
	v, err := s.Stats(f.t.Context())
	f.check(err)
	return v
}

func (f fatal) read(path string) []byte {
	f.t.Helper()
	v, err := os.ReadFile(path)
	f.check(err)
	return v
}

func (f fatal) check(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// TestEngineReadsHarnishStore: what harnish records, marks and compresses,
// the engine's purge keeps and its threshold counts count once each.
func TestEngineReadsHarnishStore(t *testing.T) {
	for name, eng := range engines(t) {
		t.Run(name, func(t *testing.T) {
			must := fatal{t}
			base := filepath.Join(t.TempDir(), ".harnish")
			path := asset.StorePath(base)
			if filepath.Base(path) != asset.EngineFile {
				t.Fatalf("StorePath = %s, want the engine's file", path)
			}
			s := openFile(t, path, nil)
			yes := true
			for _, a := range []*asset.Asset{
				{Type: asset.TypeFailure, Title: "flaky port", Tags: []string{"net", "ci"}, Resolved: &yes},
				{Type: asset.TypeSnippet, Title: "retry loop", Tags: []string{"net"}, Stability: "1"},
				{Type: asset.TypePattern, Title: "table tests", Tags: []string{"go"}},
				{Type: asset.TypeDecision, Title: "errors are values", Tags: []string{"go"}, Confidence: "high"},
				{Type: asset.TypeGuardrail, Title: "never force-push", Tags: []string{"git"}, Level: "hard"},
				{Type: asset.TypeFailure, Title: "disk full", Tags: []string{"ci", "two words"}},
			} {
				if err := s.Record(t.Context(), a); err != nil {
					t.Fatal(err)
				}
			}
			for range 3 { // the loop marks what it injects
				if got := must.find(s, asset.Query{Tags: []string{"net", "go", "git", "ci"}, MarkAccessed: true}); len(got) != 6 {
					t.Fatalf("Query = %d assets, want 6", len(got))
				}
			}
			want := map[string]int{"net": 2, "ci": 2, "go": 2, "git": 1, "two words": 1}
			if diff := cmp.Diff(want, must.thresholds(eng, base)); diff != "" {
				t.Errorf("the engine's threshold counts (-want +got):\n%s", diff)
			}
			if purged := must.purge(eng, base); len(purged) != 0 {
				t.Errorf("the engine's purge removed %v, recorded seconds before", purged)
			}
			// The engine marks access its way (a rewrite); harnish keeps
			// counting on top.
			if got := must.query(eng, base, "git"); !slices.Equal(got, []string{"never-force-push"}) {
				t.Errorf("the engine's query = %v", got)
			}
			got := must.find(s, asset.Query{Tags: []string{"git"}})
			if len(got) != 1 || got[0].AccessCount != 4 || got[0].Level != "hard" {
				t.Errorf("after the engine's query, harnish sees %+v; want 4 accesses (3 harnish, 1 engine)", got)
			}
			// Compress and purge keep what the engine wrote into the file.
			if _, err := s.Compress(t.Context(), asset.CompressRequest{MinGroup: 2}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Purge(t.Context(), asset.PurgeRequest{ByAge: true}); err != nil {
				t.Fatal(err)
			}
			st := must.stats(s)
			if diff := cmp.Diff(st.ByTag, must.thresholds(eng, base)); diff != "" {
				t.Errorf("after compressing, harnish's counts and the engine's differ (-harnish +engine):\n%s", diff)
			}
			if purged := must.purge(eng, base); len(purged) != 0 {
				t.Errorf("the engine's purge removed %v after harnish compressed", purged)
			}
		})
	}
}

// TestHarnishReadsEngineStore: a store the engine wrote (every type, its
// snippet's stability 1, a tag with spaces, a summary slug keeping its
// tag's case, a record spread over two lines) opens, and what harnish
// marks, purges and writes back leaves the engine every record once, its
// fields as it wrote them.
func TestHarnishReadsEngineStore(t *testing.T) {
	for name, eng := range engines(t) {
		t.Run(name, func(t *testing.T) {
			must := fatal{t}
			base := filepath.Join(t.TempDir(), ".harnish")
			for _, r := range [][3]string{
				{"failure", "flaky port", "net,ci"},
				{"snippet", "retry loop", "net"},
				{"pattern", "table tests", "go,API"},
				{"decision", "errors are values", "go"},
				{"guardrail", "never force-push", "git"},
				{"failure", "disk full", "ci,two words"},
				{"pattern", "versioned routes", "API"},
			} {
				if err := eng.record(base, r[0], r[1], r[2]); err != nil {
					t.Fatal(err)
				}
			}
			if err := eng.compress(base, "API"); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(base, asset.EngineFile)
			data := must.read(path)
			// jq without -c writes a record over several lines; the
			// engine's reader takes it. Spread the last but one so.
			lines := strings.SplitAfter(string(data), "\n")
			k := len(lines) - 3
			lines[k] = strings.Replace(lines[k], `,"title":`, ",\n  \"title\":", 1)
			if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			engineCounts := must.thresholds(eng, base)

			if got := asset.StorePath(base); got != path {
				t.Fatalf("StorePath = %s, want %s", got, path)
			}
			s := openFile(t, path, nil)
			st := must.stats(s)
			if diff := cmp.Diff(map[string]int{"net": 2, "ci": 2, "go": 1, "git": 1, "two words": 1, "api": 1}, st.ByTag); diff != "" {
				t.Errorf("harnish's counts (-want +got):\n%s", diff)
			}
			lower := map[string]int{}
			for tag, n := range engineCounts {
				lower[strings.ToLower(tag)] += n
			}
			if diff := cmp.Diff(lower, st.ByTag); diff != "" {
				t.Errorf("harnish's counts and the engine's differ (-engine +harnish):\n%s", diff)
			}
			if sum := must.find(s, asset.Query{Tags: []string{"API"}}); len(sum) != 1 || sum[0].Slug != "compressed-API" {
				t.Errorf("Query(API) = %v, want the engine's summary alone", sum)
			}
			if snip := must.find(s, asset.Query{Type: asset.TypeSnippet}); len(snip) != 1 || snip[0].Stability != "1" {
				t.Errorf("Query(snippet) = %+v, want the engine's snippet with stability 1", snip)
			}
			for range 60 { // enough to fold the access log into the file
				if _, err := s.Query(t.Context(), asset.Query{Tags: []string{"net", "go", "git", "ci"}, MarkAccessed: true}); err != nil {
					t.Fatal(err)
				}
			}
			// The access log was folded into the records: the engine sees
			// harnish's counts (but for the marks made since).
			for _, r := range (oracleEngine{}).read(path) {
				var n int
				v, _ := r.get("access_count")
				json.Unmarshal(v, &n)
				if r.str("slug") == "never-force-push" && n < 30 {
					t.Errorf("the file counts %d accesses of never-force-push: the access log was not folded into it", n)
				}
			}
			if _, err := s.Purge(t.Context(), asset.PurgeRequest{ByAge: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Compress(t.Context(), asset.CompressRequest{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "harnish's own", Tags: []string{"go"}}); err != nil {
				t.Fatal(err)
			}

			engineCounts["go"]++
			if diff := cmp.Diff(engineCounts, must.thresholds(eng, base)); diff != "" {
				t.Errorf("the engine's counts after harnish (-want +got):\n%s", diff)
			}
			if purged := must.purge(eng, base); len(purged) != 0 {
				t.Errorf("the engine's purge removed %v", purged)
			}
			// Each record once, as the engine wrote it but for the
			// accesses harnish counted (the engine's summary has neither
			// schema_version nor access_count).
			recs := oracleEngine{}.read(path)
			seen := map[string]int{}
			for _, r := range recs {
				seen[r.str("slug")]++
				if v, _ := r.get("schema_version"); string(v) != `"0.0.2"` && r.str("slug") != "compressed-API" {
					t.Errorf("%s: schema_version %s, want \"0.0.2\"", r.str("slug"), v)
				}
				if _, ok := r.get("access_count"); !ok && r.str("slug") != "compressed-API" {
					t.Errorf("%s: no access_count", r.str("slug"))
				}
				if r.str("type") == "snippet" && r.str("slug") == "retry-loop" {
					if v, _ := r.get("stability"); string(v) != "1" {
						t.Errorf("retry-loop: stability %s, want 1", v)
					}
				}
				if d := r.str("date"); len(d) != len(time.DateOnly) {
					t.Errorf("%s: date %q is not a day", r.str("slug"), d)
				}
			}
			for slug, n := range seen {
				if n != 1 {
					t.Errorf("%s is in the file %d times", slug, n)
				}
			}
			if len(seen) != 9 {
				t.Errorf("the file holds %d records, want 9: %v", len(seen), seen)
			}
			got := must.find(s, asset.Query{Tags: []string{"git"}})
			if len(got) != 1 || got[0].AccessCount != 60 {
				t.Errorf("never-force-push after 60 marking queries: %+v", got)
			}
		})
	}
}

// TestEngineOracle holds the oracle to the engine's scripts: the same
// steps on two copies of a store give the same answers and files.
func TestEngineOracle(t *testing.T) {
	es := engines(t)
	script, ok := es["scripts"]
	if !ok {
		t.Skip("HARNISH_ENGINE_DIR names no checkout of the engine; the oracle stands in for it")
	}
	oracle := es["oracle"]
	must := fatal{t}
	dir := t.TempDir()
	bases := map[string]string{"scripts": filepath.Join(dir, "s"), "oracle": filepath.Join(dir, "o")}
	old := time.Now().AddDate(0, 0, -400).Format(time.DateOnly)
	for _, b := range bases {
		if err := os.MkdirAll(b, 0o755); err != nil {
			t.Fatal(err)
		}
		content := `{"type":"decision","slug":"old-unused","title":"t","tags":["x"],"date":"` + old + `","access_count":0}` + "\n" +
			`{"type":"decision","slug":"old-used","title":"t","tags":["x"],"date":"` + old + `","access_count":1}` + "\n" +
			`{"type":"failure","slug":"timestamped",` + "\n" + `"title":"t","tags":["x","Y z"],"date":"2026-01-02T10:00:00Z"}` + "\n" +
			`{"type":"snippet","slug":"kept","title":"t","tags":["y"],"date":"` + time.Now().Format(time.DateOnly) + `","compressed":true}` + "\n"
		if err := os.WriteFile(assetsFile(b), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	steps := []func(e engine, base string) (any, error){
		func(e engine, base string) (any, error) { return e.thresholds(base) },
		func(e engine, base string) (any, error) {
			return nil, e.record(base, "snippet", "Ünïcode only ✓", "x, y ,")
		},
		func(e engine, base string) (any, error) {
			return nil, e.record(base, "snippet", "Ünïcode only ✓", "x")
		},
		func(e engine, base string) (any, error) { return e.query(base, "y,x") },
		func(e engine, base string) (any, error) { return e.thresholds(base) },
		func(e engine, base string) (any, error) { return nil, e.compress(base, "x") },
		func(e engine, base string) (any, error) { return e.thresholds(base) },
		func(e engine, base string) (any, error) { return e.purge(base) },
	}
	for i, step := range steps {
		got := map[string]any{}
		for name, e := range map[string]engine{"scripts": script, "oracle": oracle} {
			v, err := step(e, bases[name])
			if err != nil {
				t.Fatalf("step %d, %s: %v", i, name, err)
			}
			got[name] = v
		}
		if diff := cmp.Diff(got["scripts"], got["oracle"]); diff != "" {
			t.Errorf("step %d (-scripts +oracle):\n%s", i, diff)
		}
		// The files agree too, but for the times the tools stamped.
		stamp := regexp.MustCompile(`"(last_accessed_at|date)":"[^"]*"`)
		s := stamp.ReplaceAll(must.read(assetsFile(bases["scripts"])), nil)
		o := stamp.ReplaceAll(must.read(assetsFile(bases["oracle"])), nil)
		if diff := cmp.Diff(string(s), string(o)); diff != "" {
			t.Errorf("step %d: files (-scripts +oracle):\n%s", i, diff)
		}
	}
}
