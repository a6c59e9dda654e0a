package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/testkit"
)

func TestAssetsRecordQuery(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	for _, args := range [][]string{
		{"assets", "record", "--dir", dir, "--type", "guardrail", "--tags", "calc,api", "--title", "never edit generated files", "--body", "go generate writes them"},
		{"assets", "record", "--dir", dir, "--type", "decision", "--tags", "api", "--title", "errors are values"},
	} {
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	want := "recorded guardrail \"never edit generated files\"\nrecorded decision \"errors are values\"\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("record output (-want +got):\n%s", diff)
	}

	out.Reset()
	if code := run([]string{"assets", "query", "--dir", dir, "--tags", "calc,api", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("query: exit %d: %s", code, errb.String())
	}
	var got []struct {
		Type  string   `json:"type"`
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("query --json: %v\n%s", err, out.String())
	}
	wantJSON := []struct {
		Type  string   `json:"type"`
		Title string   `json:"title"`
		Tags  []string `json:"tags"`
	}{
		{"guardrail", "never edit generated files", []string{"calc", "api"}}, // two tags match
		{"decision", "errors are values", []string{"api"}},
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}

	errb.Reset()
	if code := run([]string{"assets", "record", "--dir", dir, "--type", "bogus", "--title", "x"}, &out, &errb); code != 1 ||
		errb.String() != "harnish assets record: asset: invalid: unknown type \"bogus\"\n" {
		t.Errorf("bad type: exit %d, %q", code, errb.String())
	}
}

func TestAssetsCompressStatsImport(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	for i := range 5 {
		args := []string{"assets", "record", "--dir", dir, "--type", "decision", "--tags", "db", "--title", "decision " + string(rune('a'+i))}
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("record: exit %d: %s", code, errb.String())
		}
	}
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"assets", "compress", "--dir", dir, "--dry-run"}, "dry run: 5 assets -> 1: 5 folded into 1 summaries\n"},
		{[]string{"assets", "compress", "--dir", dir}, "5 assets -> 1: 5 folded into 1 summaries\n"},
		{[]string{"assets", "compress", "--dir", dir}, "1 assets -> 1: 0 folded into 0 summaries\n"}, // never twice
		{[]string{"assets", "stats", "--dir", dir}, "1 assets (1 summaries, 5 records compressed away)\n  decision   1\n"},
	}
	for _, s := range steps {
		out.Reset()
		if code := run(s.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", s.args, code, errb.String())
		}
		if diff := cmp.Diff(s.want, out.String()); diff != "" {
			t.Errorf("%v (-want +got):\n%s", s.args, diff)
		}
	}

	engine := testkit.WriteTree(t, map[string]string{
		"good.jsonl": `{"type":"failure","slug":"flaky-net","title":"flaky network in CI","tags":["ci"],"date":"2026-01-02"}` + "\n",
		"bad.jsonl":  `{"type":"failure","slug":"a","title":"A","date":"2026-01-02"}` + "\n" + `{"type":"nope"}` + "\n",
	})
	out.Reset()
	if code := run([]string{"assets", "import", "--dir", dir, engine + "/good.jsonl"}, &out, &errb); code != 0 || out.String() != "imported 1 assets from "+engine+"/good.jsonl\n" {
		t.Errorf("import: exit %d, %q %q", code, out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"assets", "import", "--dir", dir, engine + "/bad.jsonl"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), engine+"/bad.jsonl:2:") {
		t.Errorf("bad import: exit %d, %q", code, errb.String())
	}
}

// TestAssetsShareEngineStore: harnish assets works on the engine's file in
// .harnish, and on harnish's older one when only that exists.
func TestAssetsShareEngineStore(t *testing.T) {
	engineLine := `{"type":"snippet","slug":"retry","title":"retry loop","tags":["net io"],"date":"2026-01-02","schema_version":"0.0.2","access_count":0,"stability":1}` + "\n"
	for _, tt := range []struct{ file, want string }{
		{"harnish-assets.jsonl", "snippet  retry  net io  retry loop\n"},
		{"assets.jsonl", "snippet  retry  net io  retry loop\n"},
	} {
		dir := testkit.WriteTree(t, map[string]string{".harnish/" + tt.file: engineLine})
		var out, errb bytes.Buffer
		if code := run([]string{"assets", "query", "--dir", dir, "--tags", "net io"}, &out, &errb); code != 0 || out.String() != tt.want {
			t.Errorf("%s: query: exit %d, %q %s", tt.file, code, out.String(), errb.String())
		}
		if code := run([]string{"assets", "record", "--dir", dir, "--type", "pattern", "--tags", "go", "--title", "table tests"}, &out, &errb); code != 0 {
			t.Fatalf("%s: record: exit %d: %s", tt.file, code, errb.String())
		}
		b, err := os.ReadFile(filepath.Join(dir, ".harnish", tt.file))
		if err != nil || !strings.HasPrefix(string(b), engineLine) || !strings.Contains(string(b), `"slug":"table-tests"`) {
			t.Errorf("%s after record: %q, %v", tt.file, b, err)
		}
	}
}
