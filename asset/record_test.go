package asset_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/asset"
)

func TestSlugify(t *testing.T) {
	tests := []struct {
		title, want string
	}{
		{"Port 8080 taken!", "port-8080-taken"},
		{"  --Already-slug--  ", "already-slug"},
		{"CamelCase_and.dots", "camelcase-and-dots"},
		{"한국어 제목 with ASCII", "with-ascii"},
		{"한국어 제목", md5prefix("한국어 제목")},
		{"!!!", md5prefix("!!!")},
		{strings.Repeat("ab ", 40), strings.Repeat("ab-", 20)},
	}
	for _, tt := range tests {
		t.Run(tt.title, func(t *testing.T) {
			if got := asset.Slugify(tt.title); got != tt.want {
				t.Errorf("Slugify(%q) = %q, want %q", tt.title, got, tt.want)
			}
		})
	}
}

// An engine record, as the harnish engine's record script writes it, with a
// field of a later engine version.
const engineLine = `{"type":"pattern","slug":"retry-flaky-io","title":"Retry flaky IO","tags":["io","tool:bash"],"date":"2026-01-02","scope":"generic","body":"b","context":"c","session":"s1","schema_version":"0.0.2","last_accessed_at":"2026-01-03T04:05:06Z","access_count":3,"stability":2,"compressed":true,"links":{"to":["a","b"]}}`

func TestRecordEngineFormat(t *testing.T) {
	var a asset.Asset
	if err := json.Unmarshal([]byte(engineLine), &a); err != nil {
		t.Fatal(err)
	}
	want := asset.Asset{
		Type: asset.TypePattern, Slug: "retry-flaky-io", Title: "Retry flaky IO", Tags: []string{"io", "tool:bash"},
		Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Scope: asset.ScopeGeneric, Body: "b", Context: "c", Session: "s1",
		SchemaVersion: 1, LastAccessed: time.Date(2026, 1, 3, 4, 5, 6, 0, time.UTC), AccessCount: 3, Stability: "2",
		Extra: map[string]json.RawMessage{"compressed": json.RawMessage(`true`), "links": json.RawMessage(`{"to":["a","b"]}`)},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Fatalf("decoded (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	const wantOut = `{"type":"pattern","slug":"retry-flaky-io","title":"Retry flaky IO","tags":["io","tool:bash"],"date":"2026-01-02","scope":"generic","body":"b","context":"c","session":"s1","schema_version":"0.0.2","last_accessed_at":"2026-01-03T04:05:06Z","access_count":3,"stability":2,"compressed":true,"links":{"to":["a","b"]}}`
	if diff := cmp.Diff(wantOut, string(b)); diff != "" {
		t.Errorf("encoded (-want +got):\n%s", diff)
	}
	var back asset.Asset
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestRecordJSONEdges(t *testing.T) {
	tests := []struct {
		name, in string
		want     asset.Asset
	}{
		{"old last_accessed", `{"type":"snippet","slug":"s","title":"t","last_accessed":"2025-01-01T00:00:00Z"}`,
			asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", LastAccessed: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"nulls", `{"type":"snippet","slug":"s","title":"t","tags":null,"date":null,"schema_version":null,"stability":null}`,
			asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t"}},
		{"key case and escapes", `{"TYPE":"snippet","slug":"s","\u0074itle":"t","x\"y":[1, {"}":"]"}]}`,
			asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", Extra: map[string]json.RawMessage{`x"y`: json.RawMessage(`[1, {"}":"]"}]`)}}},
		{"whitespace", " {\t\"type\" : \"snippet\" , \"slug\":\"s\",\"title\":\"t\" , \"n\" : 1.5e3 } ",
			asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", Extra: map[string]json.RawMessage{"n": json.RawMessage(`1.5e3`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got asset.Asset
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarshalExtra(t *testing.T) {
	tests := []struct {
		name    string
		extra   map[string]json.RawMessage
		want    string
		wantErr string
	}{
		{"known key is not repeated", map[string]json.RawMessage{"Title": json.RawMessage(`"x"`), "z": json.RawMessage(` 1 `)},
			`{"type":"snippet","slug":"s","title":"t","access_count":0,"z":1}`, ""},
		{"invalid value", map[string]json.RawMessage{"z": json.RawMessage(`{`)}, "",
			`json: error calling MarshalJSON for type asset.Asset: asset: extra field "z" is not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(asset.Asset{Type: asset.TypeSnippet, Slug: "s", Title: "t", Extra: tt.extra})
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Marshal error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecoder(t *testing.T) {
	const ok = `{"type":"snippet","slug":"s","title":"t"}`
	tests := []struct {
		name      string
		in        string
		wantSlugs []string
		wantErr   string
		wantKind  error
	}{
		{"empty", "", nil, "", nil},
		{"records and blank lines", ok + "\n\n  \n" + strings.Replace(ok, `"s"`, `"u"`, 1) + "\n", []string{"s", "u"}, "", nil},
		{"trailing blank without newline", ok + "\n  ", []string{"s"}, "", nil},
		{"torn last line", ok + "\n" + `{"type":"snip`, []string{"s"},
			"asset: corrupt store: a.jsonl:2: torn last line (no trailing newline)", asset.ErrCorrupt},
		{"complete record without newline", ok, nil,
			"asset: corrupt store: a.jsonl:1: torn last line (no trailing newline)", asset.ErrCorrupt},
		{"bad JSON", "\n" + `{"type":}` + "\n", nil,
			"asset: corrupt store: a.jsonl:2: asset: invalid character '}' looking for beginning of value", asset.ErrCorrupt},
		{"not an object", "[1]\n", nil, "asset: corrupt store: a.jsonl:1: asset: record is not a JSON object", asset.ErrCorrupt},
		{"null", "null\n", nil, "asset: corrupt store: a.jsonl:1: asset: record is not a JSON object", asset.ErrCorrupt},
		{"wrong field type", `{"type":"snippet","slug":"s","title":"t","tags":"x"}` + "\n", nil,
			`asset: corrupt store: a.jsonl:1: asset: field "tags": a JSON string where an array of strings is wanted`, asset.ErrCorrupt},
		{"bad date", `{"type":"snippet","slug":"s","title":"t","date":"yesterday"}` + "\n", nil,
			`asset: corrupt store: a.jsonl:1: asset: field "date": time "yesterday" is neither RFC 3339 nor a date`, asset.ErrCorrupt},
		{"no slug", `{"type":"snippet","title":"t"}` + "\n", nil,
			"asset: corrupt store: a.jsonl:1: asset: invalid: no slug", asset.ErrInvalid},
		{"invalid asset", `{"type":"lesson","slug":"s","title":"t"}` + "\n", nil,
			`asset: corrupt store: a.jsonl:1: asset: invalid: unknown type "lesson"`, asset.ErrInvalid},
		{"newer schema", `{"type":"snippet","slug":"s","title":"t","schema_version":2}` + "\n", nil,
			"asset: corrupt store: a.jsonl:1: asset: unsupported schema version: version 2, newer than 1", asset.ErrSchema},
		{"unknown schema string", `{"type":"snippet","slug":"s","title":"t","schema_version":"v9"}` + "\n", nil,
			`asset: corrupt store: a.jsonl:1: asset: field "schema_version": schema version "v9" is not understood`, asset.ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := asset.NewDecoder(strings.NewReader(tt.in), "a.jsonl")
			var got []string
			var err error
			for {
				var a *asset.Asset
				a, err = d.Decode()
				if err != nil {
					break
				}
				got = append(got, a.Slug)
			}
			if diff := cmp.Diff(tt.wantSlugs, got); diff != "" {
				t.Errorf("slugs (-want +got):\n%s", diff)
			}
			if tt.wantErr == "" {
				if err != io.EOF {
					t.Errorf("Decode = %v, want io.EOF", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("Decode = %v, want %q", err, tt.wantErr)
			}
			if !errors.Is(err, tt.wantKind) || !errors.Is(err, asset.ErrCorrupt) {
				t.Errorf("Decode = %v, does not wrap %v and ErrCorrupt", err, tt.wantKind)
			}
			if _, again := d.Decode(); again != err {
				t.Errorf("Decode after an error = %v, want the same error", again)
			}
		})
	}
}

func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(engineLine))
	f.Add([]byte(`{"type":"snippet","slug":"s","title":"t","x\"y":[1,{"}":"]"}],"n":-1.5e3,"e":{}}`))
	f.Add([]byte(`{"TYPE":"failure","slug":"a","title":"t","resolved":true,"date":"2025-01-01T00:00:00+02:00"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var a asset.Asset
		if err := json.Unmarshal(line, &a); err != nil {
			return
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("Marshal of a decoded record: %v", err)
		}
		var back asset.Asset
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		// Times compare by instant: a zone offset is not kept across the trip.
		if diff := cmp.Diff(a, back, cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) }),
			cmp.Comparer(func(x, y json.RawMessage) bool { return compact(x) == compact(y) })); diff != "" {
			t.Fatalf("round trip of %s (-first +second):\n%s", line, diff)
		}
		// The strict decoder agrees with Unmarshal on what decodes.
		d := asset.NewDecoder(strings.NewReader(string(b)+"\n"), "f")
		if _, err := d.Decode(); err != nil && a.Slug != "" && a.Validate() == nil {
			t.Fatalf("Decoder refused a valid record %s: %v", b, err)
		}
	})
}

func compact(b []byte) string {
	var buf strings.Builder
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	buf.Write(out)
	return buf.String()
}

func md5prefix(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}
