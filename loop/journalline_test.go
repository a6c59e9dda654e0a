package loop_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/harnish/harnish/loop"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func TestDecodeJournalLine(t *testing.T) {
	body := []byte(`{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p","from_a_newer_harnish":1}`)
	line := fmt.Appendf(nil, `{"seq":1,"crc32c":%d,"t":%s}`, crc32.Checksum(body, castagnoli), body)
	seq, tr, err := loop.DecodeJournalLine(line)
	if err != nil || seq != 1 || tr.Run != "r" {
		t.Fatalf("DecodeJournalLine = %d, %+v, %v; want 1, run r, a field it does not know ignored", seq, tr, err)
	}
	for _, bad := range []string{
		`{"seq":1,"crc32c":1,"t":{"kind":"run.started"}}`, // wrong checksum
		`{"seq":0,"crc32c":1,"t":{}}`,
		`{"seq":1,"t":{}}`,
		`{"seq":1,"crc32c":1`,
	} {
		if _, _, err := loop.DecodeJournalLine([]byte(bad)); err == nil {
			t.Errorf("DecodeJournalLine(%s) = nil error", bad)
		}
	}
}

// FuzzDecodeJournalLine: any line decodes to a transition or to an error,
// never a panic; a transition that decodes, written again as the store
// writes it, decodes to the same transition.
func FuzzDecodeJournalLine(f *testing.F) {
	f.Add([]byte(`{"seq":1,"crc32c":1715211905,"t":{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p"}}`))
	f.Add([]byte(`{"seq":2,"crc32c":0,"t":{}}`))
	f.Add([]byte(`{"seq":0}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		seq, tr, err := loop.DecodeJournalLine(line)
		if err != nil {
			return
		}
		if seq == 0 {
			t.Fatalf("line %q decoded with sequence 0", line)
		}
		body, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		again := fmt.Appendf(nil, `{"seq":%d,"crc32c":%d,"t":%s}`, seq, crc32.Checksum(body, castagnoli), body)
		seq2, tr2, err := loop.DecodeJournalLine(again)
		if err != nil || seq2 != seq {
			t.Fatalf("re-encoded line %s: %v", again, err)
		}
		if body2, _ := json.Marshal(tr2); !bytes.Equal(body, body2) {
			t.Fatalf("round trip changed the transition:\n%s\n%s", body, body2)
		}
	})
}
