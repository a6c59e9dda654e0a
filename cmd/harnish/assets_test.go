package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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
