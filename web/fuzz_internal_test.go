package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// FuzzFollowJournal: whatever a journal holds, and however its growth is
// cut between two polls, the follower reads it to an error or to the state
// loop itself reads from the same directory; never a panic or an endless
// loop.
func FuzzFollowJournal(f *testing.F) {
	const l1 = `{"seq":1,"crc32c":1715211905,"t":{"kind":"run.started","time":"2026-12-03T09:00:00Z","run":"r","plan":"p"}}` + "\n"
	const l2 = `{"seq":2,"crc32c":2138326027,"t":{"kind":"task.started","time":"2026-12-03T09:00:01Z","phase":"p1","task":"T1"}}` + "\n"
	f.Add([]byte(l1), []byte(nil))
	f.Add([]byte(l1), []byte(l2))
	f.Add([]byte(l1+l2[:40]), []byte(l2[40:]+`{"seq":3,`))
	f.Add([]byte(""), []byte(l1+l2))
	f.Add([]byte("{\"seq\":1}\n{\"seq\":3}\npartial"), []byte("\n"))
	f.Fuzz(func(t *testing.T, first, then []byte) {
		dir := t.TempDir()
		name := filepath.Join(dir, loop.JournalFile)
		if err := os.WriteFile(name, first, 0o644); err != nil {
			t.Fatal(err)
		}
		j := &journal{dir: dir}
		defer j.close()
		var st *policy.RunState
		follow := func() bool {
			c, err := j.poll()
			if err != nil {
				return false
			}
			if c.State != nil {
				st = c.State
			}
			for _, tr := range c.Transitions {
				if st == nil {
					t.Fatalf("transition %s handed on before any state", tr.Kind)
				}
				if err := st.Apply(tr); err != nil {
					return false // loop's reader refuses it too (checked below)
				}
			}
			return true
		}
		if !follow() {
			return
		}
		fh, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(then)
		fh.Close()
		if !follow() {
			return
		}
		want, err := loop.ReadState(dir)
		if err != nil {
			return // the follower is lenient where loop is strict
		}
		got, _ := json.Marshal(st)
		wantJSON, _ := json.Marshal(want)
		if string(got) != string(wantJSON) {
			t.Fatalf("followed state differs from loop's reading:\nfollowed %s\nloop     %s", got, wantJSON)
		}
	})
}
