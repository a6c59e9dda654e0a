package asset_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

func TestQueryMatch(t *testing.T) {
	a := &asset.Asset{
		Type:    asset.TypeFailure,
		Slug:    "flaky-port",
		Title:   "Tests fail when port 8080 is taken",
		Tags:    []string{"Go", "network"},
		Body:    "Listen on 127.0.0.1:0 instead.",
		Context: "task T3, fingerprint test:ab12",
	}
	tests := []struct {
		name string
		q    asset.Query
		want bool
	}{
		{"zero query matches all", asset.Query{}, true},
		{"type", asset.Query{Type: asset.TypeFailure}, true},
		{"other type", asset.Query{Type: asset.TypePattern}, false},
		{"empty scope is project", asset.Query{Scope: asset.ScopeProject}, true},
		{"other scope", asset.Query{Scope: asset.ScopeGeneric}, false},
		{"any tag", asset.Query{Tags: []string{"calc", "network"}}, true},
		{"tag case", asset.Query{Tags: []string{"go"}}, true},
		{"no tag", asset.Query{Tags: []string{"calc"}}, false},
		{"all tags", asset.Query{Tags: []string{"go", "NETWORK"}, AllTags: true}, true},
		{"not all tags", asset.Query{Tags: []string{"go", "calc"}, AllTags: true}, false},
		{"AllTags without tags", asset.Query{AllTags: true}, true},
		{"text in title", asset.Query{Text: "PORT taken"}, true},
		{"text across fields", asset.Query{Text: "flaky 127.0.0.1 fingerprint network"}, true},
		{"text word missing", asset.Query{Text: "port udp"}, false},
		{"blank text", asset.Query{Text: " \t "}, true},
		{"all selectors", asset.Query{Type: asset.TypeFailure, Scope: asset.ScopeProject, Tags: []string{"go"}, Text: "8080", Limit: 1}, true},
		{"one selector fails", asset.Query{Type: asset.TypeFailure, Tags: []string{"go"}, Text: "8081"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.q.Match(a); got != tt.want {
				t.Errorf("Match = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	yes := true
	ok := asset.Asset{Type: asset.TypeFailure, Title: "t"}
	tests := []struct {
		name     string
		change   func(*asset.Asset)
		wantErr  string
		wantKind error
	}{
		{"minimal", func(*asset.Asset) {}, "", nil},
		{"complete", func(a *asset.Asset) {
			a.Slug, a.Tags, a.Scope, a.SchemaVersion, a.Resolved = "port-8080.v2", []string{"go", "net"}, asset.ScopeTeam, 1, &yes
		}, "", nil},
		{"each type with its extra", func(a *asset.Asset) { a.Type, a.Level = asset.TypeGuardrail, "soft" }, "", nil},
		{"unknown type", func(a *asset.Asset) { a.Type = "" }, `asset: invalid: unknown type ""`, asset.ErrInvalid},
		{"blank title", func(a *asset.Asset) { a.Title = "  " }, "asset: invalid: no title", asset.ErrInvalid},
		{"slug", func(a *asset.Asset) { a.Slug = "port\n8080" }, `asset: invalid: malformed slug "port\n8080"`, asset.ErrInvalid},
		{"blank slug", func(a *asset.Asset) { a.Slug = "  " }, `asset: invalid: malformed slug "  "`, asset.ErrInvalid},
		{"empty tag", func(a *asset.Asset) { a.Tags = []string{""} }, `asset: invalid: malformed tag ""`, asset.ErrInvalid},
		{"tag with a control character", func(a *asset.Asset) { a.Tags = []string{"a\tb"} }, `asset: invalid: malformed tag "a\tb"`, asset.ErrInvalid},
		{"the engine's tags and slugs", func(a *asset.Asset) { a.Tags, a.Slug = []string{"two words", "API"}, "compressed-API" }, "", nil},
		{"stability on a snippet", func(a *asset.Asset) { a.Type, a.Stability = asset.TypeSnippet, "1" }, "", nil},
		{"scope", func(a *asset.Asset) { a.Scope = "global" }, `asset: invalid: unknown scope "global"`, asset.ErrInvalid},
		{"extra on wrong type", func(a *asset.Asset) { a.Stability = "stable" }, "asset: invalid: stability is for pattern and snippet assets, not failure", asset.ErrInvalid},
		{"bad level", func(a *asset.Asset) { a.Type, a.Level = asset.TypeGuardrail, "block" }, `asset: invalid: level "block" is not soft or hard`, asset.ErrInvalid},
		{"negative counts", func(a *asset.Asset) { a.SchemaVersion, a.AccessCount = -1, -2 },
			"asset: invalid: negative schema version -1; negative access count -2", asset.ErrInvalid},
		{"newer schema", func(a *asset.Asset) { a.SchemaVersion = asset.SchemaVersion + 1; a.Title = "" },
			fmt.Sprintf("asset: unsupported schema version: version %d, newer than %d", asset.SchemaVersion+1, asset.SchemaVersion), asset.ErrSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ok
			tt.change(&a)
			err := a.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Validate = %v, want %q", err, tt.wantErr)
			}
			if !errors.Is(err, tt.wantKind) {
				t.Errorf("Validate = %v, does not wrap %v", err, tt.wantKind)
			}
		})
	}
}

func TestAssetJSON(t *testing.T) {
	no := false
	date := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		a    asset.Asset
		want string
	}{
		{"minimal", asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t"},
			`{"type":"snippet","slug":"s","title":"t","access_count":0}`},
		{"failure", asset.Asset{Type: asset.TypeFailure, Slug: "f", Title: "t", Tags: []string{"go"}, Date: date,
			Scope: asset.ScopeGeneric, SchemaVersion: 1, AccessCount: 2, LastAccessed: date, Resolved: &no},
			`{"type":"failure","slug":"f","title":"t","tags":["go"],"date":"2025-03-01","recorded_at":"2025-03-01T12:00:00Z","scope":"generic","schema_version":"0.0.2","last_accessed_at":"2025-03-01T12:00:00Z","access_count":2,"resolved":false}`},
		{"the engine's snippet", asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", Tags: []string{"two words"},
			Date: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), SchemaVersion: 1, Stability: "1"},
			`{"type":"snippet","slug":"s","title":"t","tags":["two words"],"date":"2025-03-01","schema_version":"0.0.2","access_count":0,"stability":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			var back asset.Asset
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.a, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPurgeRequestIsZero(t *testing.T) {
	tests := []struct {
		name string
		r    asset.PurgeRequest
		want bool
	}{
		{"zero", asset.PurgeRequest{}, true},
		{"type and scope alone", asset.PurgeRequest{Type: asset.TypeFailure, Scope: asset.ScopeTeam, DryRun: true}, true},
		{"negative max", asset.PurgeRequest{MaxAssets: -1}, true},
		{"slugs", asset.PurgeRequest{Slugs: []string{"a"}}, false},
		{"time", asset.PurgeRequest{NotAccessedSince: time.Unix(1, 0)}, false},
		{"max", asset.PurgeRequest{MaxAssets: 100}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.IsZero(); got != tt.want {
				t.Errorf("IsZero = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestCorruptError(t *testing.T) {
	tests := []struct {
		name string
		err  *asset.CorruptError
		want string
	}{
		{"line", &asset.CorruptError{Path: ".harnish/assets.jsonl", Line: 7, Err: io.ErrUnexpectedEOF},
			"asset: corrupt store: .harnish/assets.jsonl:7: unexpected EOF"},
		{"whole file", &asset.CorruptError{Path: "a.jsonl"}, "asset: corrupt store: a.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("query: %w", tt.err)
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error = %q, want %q", got, tt.want)
			}
			if !errors.Is(err, asset.ErrCorrupt) {
				t.Error("does not match ErrCorrupt")
			}
			if tt.err.Err != nil && !errors.Is(err, tt.err.Err) {
				t.Error("cause not reachable")
			}
			if _, ok := errors.AsType[*asset.CorruptError](err); !ok {
				t.Error("errors.As failed")
			}
		})
	}
}
