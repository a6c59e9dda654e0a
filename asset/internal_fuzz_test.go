package asset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The seeds the internal fuzzers share: records as harnish and the engine
// write them, and the odd ones.
var recordSeeds = []string{
	`{"type":"pattern","slug":"retry-flaky-io","title":"Retry flaky IO","tags":["io","tool:bash"],"date":"2026-01-02","scope":"generic","body":"b","context":"c","session":"s1","schema_version":"0.0.2","last_accessed_at":"2026-01-03T04:05:06Z","access_count":3,"stability":2,"compressed":true,"links":{"to":["a","b"]}}`,
	`{"type":"snippet","slug":"s","title":"t","date":"2026-02-03","recorded_at":"2026-02-03T04:05:06.5Z","access_count":0,"summary_of":["a","b"]}`,
	`{"TYPE":"failure","ſlug":"a","\u0074itle":"t\u00e9","resolved":null,"tags":["x",null],"tags":[],"date":"2025-01-01T00:00:00+02:00","date":null}`,
	`{"type":"decision","slug":"d","title":"t","access_count":1.5}`,
	`{"type":"guardrail","slug":"g","title":"t","tags":"x","resolved":"yes","compressed_summary":true}`,
	" {\t\"type\" : \"snippet\" ,\n \"slug\":\"s\",\"title\":\"\xff\" , \"n\" : 1.5e3 } ",
	`{}`,
}

// FuzzDecodeMeta holds decodeMeta, the indexing fast path, to what
// json.Unmarshal into wireMeta reads.
func FuzzDecodeMeta(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		got, gotMeta, err := decodeMeta(rec)
		var w wireMeta
		wantErr := error(nil)
		if !isObject(rec) {
			wantErr = errNotObject
		} else {
			wantErr = json.Unmarshal(rec, &w)
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("decodeMeta(%q) error = %v, json.Unmarshal's = %v", rec, err, wantErr)
		}
		if err != nil {
			return
		}
		want, wantMeta := w.asset()
		if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) })); diff != "" {
			t.Fatalf("decodeMeta(%q) (-json +fast):\n%s", rec, diff)
		}
		if gotMeta != wantMeta {
			t.Fatalf("decodeMeta(%q) meta %+v, json's %+v", rec, gotMeta, wantMeta)
		}
	})
}

// FuzzDecodeRecordFast holds decodeRecord to json.Unmarshal: into
// wireRecord for the fields, into a map for Extra (every key no field of
// Asset has, the last of a repeated key).
func FuzzDecodeRecordFast(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, rec []byte) {
		got, err := decodeRecord(rec)
		var w wireRecord
		var all map[string]json.RawMessage
		wantErr := errNotObject
		if isObject(rec) {
			wantErr = json.Unmarshal(rec, &w)
			if wantErr == nil {
				wantErr = json.Unmarshal(rec, &all)
			}
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("decodeRecord(%q) error = %v, json.Unmarshal's = %v", rec, err, wantErr)
		}
		if err != nil {
			return
		}
		want, _ := w.asset()
		want.Body, want.Context, want.Session = w.Body, w.Context, w.Session
		for k, v := range all {
			if !isKnownKey(k) {
				if want.Extra == nil {
					want.Extra = map[string]json.RawMessage{}
				}
				want.Extra[k] = v
			}
		}
		if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y time.Time) bool { return x.Equal(y) })); diff != "" {
			t.Fatalf("decodeRecord(%q) (-json +fast):\n%s", rec, diff)
		}
	})
}

// FuzzIndexFile: an index file of any content loads or is refused, within
// the memory its size justifies, and what loads writes back the same.
func FuzzIndexFile(f *testing.F) {
	var x index
	x.init()
	for i, s := range recordSeeds[:2] {
		a, m, err := decodeMeta([]byte(s))
		if err != nil {
			f.Fatal(err)
		}
		x.put(a, m, span{off: int64(i * 10), n: 5, line: i + 1})
	}
	good := encodeIndex(&x, indexHeader{size: 100, lines: 3, crc: 7, mtime: 1, saved: 2})
	f.Add(good[:len(good)-4]) // the fuzzer gets the body; the checksum is added
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, castagnoli()))
		h, x, err := decodeIndex(b)
		if err != nil {
			return
		}
		again := encodeIndex(x, h)
		h2, x2, err := decodeIndex(again)
		if err != nil {
			t.Fatalf("re-reading what was read: %v", err)
		}
		if h != h2 || !cmp.Equal(x.slugs, x2.slugs) || !cmp.Equal(x.tags, x2.tags) || len(x.meta) != len(x2.meta) {
			t.Fatalf("index file changed on a round trip")
		}
	})
}

// FuzzPatchFields: patching a record's access fields keeps every other
// member and gives the new values.
func FuzzPatchFields(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"access_count":1,"access_count":2}`))
	f.Fuzz(func(t *testing.T, rec []byte) {
		var before map[string]json.RawMessage
		if json.Unmarshal(rec, &before) != nil || before == nil {
			return
		}
		out, err := patchFields(rec, [][2][]byte{{[]byte(`"access_count"`), []byte("42")}, {[]byte(`"last_accessed_at"`), []byte(`"2026-01-01T00:00:00Z"`)}})
		if err != nil {
			t.Fatalf("patchFields(%q): %v", rec, err)
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("patchFields(%q) = %q, not JSON: %v", rec, out, err)
		}
		for k, v := range before {
			if k == "access_count" || k == "last_accessed_at" {
				continue
			}
			if !bytes.Equal(after[k], v) {
				t.Fatalf("patchFields(%q) changed %q: %s -> %s", rec, k, v, after[k])
			}
		}
		if string(after["access_count"]) != "42" || string(after["last_accessed_at"]) != `"2026-01-01T00:00:00Z"` {
			t.Fatalf("patchFields(%q) = %q", rec, out)
		}
	})
}

// FuzzRecords: the streaming Decoder and the store's indexing read a file
// alike (records spread over lines included): the same slugs, or both an
// error at the same line.
func FuzzRecords(f *testing.F) {
	f.Add([]byte(recordSeeds[1] + "\n" + "{\"type\":\"snippet\",\n\"slug\":\"two\",\"title\":\"t\"}\n"))
	f.Add([]byte(`{"type":"snippet","slug":"x","title":"t","l":{"a":1}` + "\n}\n\n"))
	f.Add([]byte("{\"type\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var stream []string
		d := NewDecoder(bytes.NewReader(data), "f")
		var serr error
		for {
			a, err := d.Decode()
			if err != nil {
				if err != io.EOF {
					serr = err
				}
				break
			}
			stream = append(stream, a.Slug)
		}
		var indexed []string
		_, _, ierr := decodeSpans(data, 0, "f", 1, true, func(a *Asset, _ recordMeta, sp span) {
			indexed = append(indexed, a.Slug)
			if rec := data[sp.off : sp.off+int64(sp.n)]; !bytes.Contains(rec, []byte("{")) {
				t.Fatalf("span %+v of %q holds no record", sp, data)
			}
		})
		var sce, ice *CorruptError
		if (serr == nil) != (ierr == nil) || (serr != nil && (!errors.As(serr, &sce) || !errors.As(ierr, &ice) || sce.Line != ice.Line)) {
			t.Fatalf("%q: Decoder %v, indexing %v", data, serr, ierr)
		}
		if serr == nil && !cmp.Equal(stream, indexed) {
			t.Fatalf("%q: Decoder %v, indexing %v", data, stream, indexed)
		}
	})
}
