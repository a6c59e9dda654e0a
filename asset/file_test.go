package asset_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/asset/assettest"
)

func openFile(t *testing.T, path string, opts *asset.FileOptions) *asset.FileStore {
	t.Helper()
	s, err := asset.OpenFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestFileStoreConformance(t *testing.T) {
	assettest.Run(t, func(t *testing.T) asset.Store {
		return openFile(t, filepath.Join(t.TempDir(), ".harnish", "assets.jsonl"), nil)
	})
}

func TestFileStorePersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	now := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	s := openFile(t, path, &asset.FileOptions{Now: func() time.Time { return now }})
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeGuardrail, Title: "Never push to main", Level: "hard"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"guardrail","slug":"never-push-to-main","title":"Never push to main","date":"2026-02-03","recorded_at":"2026-02-03T04:05:06Z","scope":"project","schema_version":"0.0.2","access_count":0,"level":"hard"}` + "\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	got, err := openFile(t, path, nil).Query(t.Context(), asset.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Slug != "never-push-to-main" {
		t.Errorf("after reopening, Query = %v", got)
	}
}

func TestOpenFileEngineHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "harnish-assets.jsonl")
	live := strings.Replace(engineLine, `"compressed":true,`, "", 1)
	hidden := strings.Replace(engineLine, `"slug":"retry-flaky-io"`, `"slug":"folded-by-the-engine"`, 1)
	if err := os.WriteFile(path, []byte(live+"\n"+hidden+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openFile(t, path, nil)
	got, err := s.Query(t.Context(), asset.Query{Tags: []string{"tool:bash"}})
	if err != nil || len(got) != 1 || got[0].Slug != "retry-flaky-io" {
		t.Fatalf("Query = %v, %v; want the engine's record, not the one it marked compressed", got, err)
	}
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypePattern, Title: "Retry flaky IO"}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Query(t.Context(), asset.Query{Text: "retry"})
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, a := range got {
		slugs = append(slugs, a.Slug)
	}
	if diff := cmp.Diff([]string{"retry-flaky-io-2", "retry-flaky-io"}, slugs); diff != "" {
		t.Errorf("slugs (-want +got):\n%s", diff)
	}
}

func TestOpenFileCorrupt(t *testing.T) {
	const ok = `{"type":"snippet","slug":"s","title":"t"}` + "\n"
	tests := []struct {
		name, content, wantErr string
	}{
		{"torn last line", ok + ok + `{"type":"sni`, "asset: corrupt store: PATH:3: torn last line (no trailing newline)"},
		{"bad line", ok + "{oops}\n" + ok, "asset: corrupt store: PATH:2: asset: invalid character 'o' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "assets.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := asset.OpenFile(path, nil)
			want := string(bytes.ReplaceAll([]byte(tt.wantErr), []byte("PATH"), []byte(path)))
			if err == nil || err.Error() != want {
				t.Fatalf("OpenFile = %v, want %q", err, want)
			}
			var ce *asset.CorruptError
			if !errors.As(err, &ce) || ce.Path != path {
				t.Errorf("OpenFile = %#v, want a *CorruptError naming the file", err)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.content {
				t.Errorf("OpenFile changed the file to %q", b)
			}
		})
	}
}

// A writer that died mid-line leaves a torn tail; the next append reports it
// rather than writing after it, and queries keep serving what is whole.
func TestRecordAfterTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	s := openFile(t, path, nil)
	if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "first"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"snippet","sl`)
	f.Close()
	got, err := s.Query(t.Context(), asset.Query{})
	if err != nil || len(got) != 1 {
		t.Errorf("Query = %d assets, %v; want the whole record", len(got), err)
	}
	err = s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "second"})
	want := "asset: corrupt store: " + path + ":2: torn last line (no trailing newline)"
	if err == nil || err.Error() != want {
		t.Fatalf("Record = %v, want %q", err, want)
	}
	b, _ := os.ReadFile(path)
	if bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("Record wrote after a torn line: %q", b)
	}
}

func TestFileStoresShareFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	a, b := openFile(t, path, nil), openFile(t, path, nil)
	for _, s := range []*asset.FileStore{a, b, a} {
		if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: "same"}); err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]*asset.FileStore{"a": a, "b": b} {
		got, err := s.Query(t.Context(), asset.Query{})
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, x := range got {
			slugs = append(slugs, x.Slug)
		}
		if diff := cmp.Diff([]string{"same", "same-2", "same-3"}, slices.Sorted(slices.Values(slugs))); diff != "" {
			t.Errorf("store %s sees (-want +got):\n%s", name, diff)
		}
	}
}

func TestQueryMarkAccessed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	s := openFile(t, path, &asset.FileOptions{Now: func() time.Time { return now }})
	for _, title := range []string{"used", "unused"} {
		if err := s.Record(t.Context(), &asset.Asset{Type: asset.TypeSnippet, Title: title, Tags: []string{title}}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		got, err := s.Query(t.Context(), asset.Query{Tags: []string{"used"}, MarkAccessed: true})
		if err != nil || len(got) != 1 {
			t.Fatalf("Query = %v, %v", got, err)
		}
	}
	if got, _ := s.Query(t.Context(), asset.Query{Tags: []string{"unused"}}); got[0].AccessCount != 0 {
		t.Errorf("a query without MarkAccessed counted an access")
	}
	reopened := openFile(t, path, nil)
	got, err := reopened.Query(t.Context(), asset.Query{Tags: []string{"used"}})
	if err != nil {
		t.Fatal(err)
	}
	type stats struct {
		Count int
		Last  time.Time
	}
	if diff := cmp.Diff(stats{2, now}, stats{got[0].AccessCount, got[0].LastAccessed}); diff != "" {
		t.Errorf("access stats after reopening (-want +got):\n%s", diff)
	}
}

func TestFileStoreClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	s := openFile(t, path, nil)
	s.Close()
	_, err := s.Query(t.Context(), asset.Query{})
	if want := "asset: " + path + " is closed"; err == nil || err.Error() != want {
		t.Errorf("Query after Close = %v, want %q", err, want)
	}
}

// The child half of TestMultiProcessRecord: it records ASSET_CHILD_N assets
// into ASSET_CHILD_PATH as fast as it can.
func TestMain(m *testing.M) {
	if path := os.Getenv("ASSET_CHILD_PATH"); path != "" {
		os.Exit(childRecord(path, os.Getenv("ASSET_CHILD_ID"), os.Getenv("ASSET_CHILD_N")))
	}
	os.Exit(m.Run())
}

func childRecord(path, id, count string) int {
	n, _ := strconv.Atoi(count)
	s, err := asset.OpenFile(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	for i := range n {
		a := &asset.Asset{Type: asset.TypeSnippet, Title: "shared title", Tags: []string{"child-" + id},
			Body: fmt.Sprintf("child %s record %d %s", id, i, bytes.Repeat([]byte("x"), 2000))}
		if err := s.Record(context.Background(), a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestMultiProcessRecord(t *testing.T) {
	const children, each = 4, 25
	path := filepath.Join(t.TempDir(), "assets.jsonl")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, children)
	outs := make([]*bytes.Buffer, children)
	for i := range cmds {
		cmds[i] = exec.CommandContext(t.Context(), exe, "-test.run=^$")
		cmds[i].Env = append(os.Environ(), "ASSET_CHILD_PATH="+path, "ASSET_CHILD_ID="+strconv.Itoa(i), "ASSET_CHILD_N="+strconv.Itoa(each))
		outs[i] = new(bytes.Buffer)
		cmds[i].Stderr = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("child %d: %v: %s", i, err, outs[i])
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(b, []byte("\n")); lines != children*each || b[len(b)-1] != '\n' {
		t.Errorf("file has %d lines, want %d, all ending in a newline", lines, children*each)
	}
	s := openFile(t, path, nil) // decodes every line strictly: none torn or interleaved
	all, err := s.Query(t.Context(), asset.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != children*each {
		t.Errorf("store holds %d assets, want %d, each under its own slug", len(all), children*each)
	}
	for i := range children {
		got, err := s.Query(t.Context(), asset.Query{Tags: []string{"child-" + strconv.Itoa(i)}})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, a := range got {
			seen[string(bytes.Fields([]byte(a.Body))[3])] = true
		}
		if len(seen) != each {
			t.Errorf("child %d: %d distinct records, want %d", i, len(seen), each)
		}
	}
}
