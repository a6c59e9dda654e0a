package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// fuzzSeeds returns a real snapshot and a real journal.
func fuzzSeeds(f *testing.F) (snapshot, journal []byte) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	ts := []policy.Transition{
		{Kind: policy.TransRunStarted, Time: at, Run: "r1", Plan: "demo"},
		{Kind: policy.TransTaskStarted, Time: at, Phase: "p1", Task: "T1"},
		{Kind: policy.TransAttemptStarted, Time: at, Task: "T1", Attempt: 1},
		{Kind: policy.TransAttemptFinished, Time: at, Task: "T1", Attempt: 1, Elapsed: time.Second, Tokens: 10,
			Failure: &policy.Failure{Attempt: 1, Fingerprint: "abc", Class: "test"}},
		{Kind: policy.TransDebuggerFinished, Time: at, Task: "T1", Found: true},
		{Kind: policy.TransTaskFinished, Time: at, Task: "T1", Status: policy.StatusDone},
		{Kind: policy.TransGateReached, Time: at, Phase: "p1"},
		{Kind: policy.TransGateApproved, Time: at, Phase: "p1"},
		{Kind: policy.TransRunFinished, Time: at, Outcome: policy.Completed},
	}
	st := &policy.RunState{}
	for _, t := range ts {
		body, err := json.Marshal(t)
		if err != nil {
			f.Fatal(err)
		}
		if err := st.Apply(t); err != nil {
			f.Fatal(err)
		}
		journal = appendLine(journal, st.Seq, body)
	}
	body, err := json.Marshal(st)
	if err != nil {
		f.Fatal(err)
	}
	return encodeSnapshot(3, st.Seq, body), journal
}

// FuzzDecodeSnapshot feeds arbitrary bytes to the snapshot decoder: it must
// return a *StateError or a state that encodes and decodes to itself.
func FuzzDecodeSnapshot(f *testing.F) {
	snap, _ := fuzzSeeds(f)
	f.Add(snap)
	f.Add([]byte(`{"schema":2}`))
	f.Add([]byte(`{"schema":1,"generation":1,"seq":0,"crc32c":0,"state":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		gen, st, serr := decodeSnapshot("state.json", data)
		if serr != nil {
			if !errors.Is(serr, ErrCorruptState) && !errors.Is(serr, ErrNewerState) {
				t.Fatalf("error of no class: %v", serr)
			}
			return
		}
		body, err := json.Marshal(st)
		if err != nil {
			t.Fatalf("decoded state does not encode: %v", err)
		}
		gen2, st2, serr := decodeSnapshot("state.json", encodeSnapshot(gen, st.Seq, body))
		if serr != nil || gen2 != gen {
			t.Fatalf("re-encoded snapshot does not decode: %v", serr)
		}
		body2, _ := json.Marshal(st2)
		if !bytes.Equal(body, body2) {
			t.Fatalf("round trip changed the state:\n%s\n%s", body, body2)
		}
	})
}

// FuzzReplayJournal feeds arbitrary bytes to the journal replay: it must
// return a *StateError, or apply lines in sequence.
func FuzzReplayJournal(f *testing.F) {
	_, journal := fuzzSeeds(f)
	f.Add(journal, true)
	f.Add(journal[:len(journal)-7], true)
	f.Add(journal[:len(journal)-7], false)
	f.Fuzz(func(t *testing.T, data []byte, tornOK bool) {
		st := &policy.RunState{}
		n, err := replay("journal.jsonl", data, st, tornOK)
		if err != nil {
			var se *StateError
			if !errors.As(err, &se) || !errors.Is(err, ErrCorruptState) {
				t.Fatalf("error is not a corrupt-state *StateError: %v", err)
			}
			return
		}
		if n > len(data) || (n < len(data) && !tornOK) {
			t.Fatalf("replay consumed %d of %d bytes (tornOK %v)", n, len(data), tornOK)
		}
		if n > 0 && data[n-1] != '\n' {
			t.Fatalf("replay stopped inside a line at %d", n)
		}
	})
}

// FuzzReplayTransitions gets past the checksums: the fuzzer writes the
// transitions, the test frames them with correct sequence numbers and
// checksums, so replay and Apply see arbitrary transitions in any order.
func FuzzReplayTransitions(f *testing.F) {
	_, journal := fuzzSeeds(f)
	var bodies [][]byte
	for line := range bytes.Lines(journal) {
		var jl journalLine
		if err := json.Unmarshal(line, &jl); err != nil {
			f.Fatal(err)
		}
		bodies = append(bodies, jl.T)
	}
	f.Add(bytes.Join(bodies, []byte("\n")))
	f.Add(bytes.Join(bodies[:3], []byte("\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var framed []byte
		var seq uint64
		for body := range bytes.Lines(data) {
			body = bytes.TrimSuffix(body, []byte("\n"))
			seq++
			framed = appendLine(framed, seq, body)
		}
		st := &policy.RunState{}
		if _, err := replay("journal.jsonl", framed, st, false); err != nil {
			if !errors.Is(err, ErrCorruptState) {
				t.Fatalf("error is not corrupt-state: %v", err)
			}
			return
		}
		// What replays must also survive a snapshot round trip.
		body, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, serr := decodeSnapshot("state.json", encodeSnapshot(1, st.Seq, body)); serr != nil {
			t.Fatalf("replayed state does not snapshot: %v", serr)
		}
	})
}
