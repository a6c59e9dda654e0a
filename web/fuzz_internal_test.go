package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// FuzzJournalLine: any line decodes to a transition or to an error, never
// a panic; a transition that decodes, written again as the store writes
// it, decodes to the same transition.
func FuzzJournalLine(f *testing.F) {
	f.Add([]byte(`{"seq":1,"crc32c":1715211905,"t":{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p"}}`))
	f.Add([]byte(`{"seq":2,"crc32c":0,"t":{}}`))
	f.Add([]byte(`{"seq":0}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		seq, tr, err := decodeJournalLine(line)
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
		seq2, tr2, err := decodeJournalLine(again)
		if err != nil || seq2 != seq {
			t.Fatalf("re-encoded line %s: %v", again, err)
		}
		if body2, _ := json.Marshal(tr2); !bytes.Equal(body, body2) {
			t.Fatalf("round trip changed the transition:\n%s\n%s", body, body2)
		}
	})
}

// FuzzFollowJournal: whatever a journal file holds, the follower reads it to
// a state and transitions that apply, or to an error; never a panic or an
// endless loop.
func FuzzFollowJournal(f *testing.F) {
	f.Add([]byte(`{"seq":1,"crc32c":1715211905,"t":{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p"}}` + "\n"))
	f.Add([]byte(`{"seq":1,"crc32c":1715211905,"t":{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p"}}` + "\n" +
		`{"seq":2,"crc32c":2138326027,"t":{"kind":"task.started","time":"2026-12-03T09:00:01Z","phase":"p1","task":"T1"}}` + "\n" + `{"seq":3,`))
	f.Add([]byte("{\"seq\":1}\n{\"seq\":3}\npartial"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		j := &journal{dir: dir}
		defer j.close()
		for range 3 {
			if _, err := j.poll(); err != nil {
				return
			}
		}
	})
}
