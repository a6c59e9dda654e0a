package guardrail_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

func TestHookLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.jsonl")
	if recs, err := guardrail.ReadHookLog(path); err != nil || recs != nil {
		t.Fatalf("a missing log: %v, %v", recs, err)
	}
	// Hooks of parallel tool calls append side by side; no line may tear.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Agent: "codex", Tool: "Bash",
				Command: strings.Repeat("x", 1000*i)}
			if err := guardrail.AppendHookRecord(path, r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	recs, err := guardrail.ReadHookLog(path)
	if err != nil || len(recs) != 20 {
		t.Fatalf("ReadHookLog: %d records, %v", len(recs), err)
	}

	stop := guardrail.HookRecord{Event: guardrail.HookStop, Agent: "claude", Refused: true, Reason: "checks fail"}
	if err := guardrail.AppendHookRecord(path, stop); err != nil {
		t.Fatal(err)
	}
	// A hook killed mid-write leaves a torn last line: skipped.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"event":"pre-to`)
	f.Close()
	recs, err = guardrail.ReadHookLog(path)
	if err != nil || len(recs) != 21 {
		t.Fatalf("with a torn tail: %d records, %v", len(recs), err)
	}
	if diff := cmp.Diff(stop, recs[20]); diff != "" {
		t.Errorf("stop record (-want +got):\n%s", diff)
	}

	// A bad line inside the log is an error naming the file and line.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"event\":\"stop\"}\nnot json\n{}\n"), 0o600)
	if _, err := guardrail.ReadHookLog(bad); err == nil || !strings.Contains(err.Error(), bad+":2:") {
		t.Errorf("bad line: %v", err)
	}
}

// FuzzReadHookLog: any file reads without a panic; a log of records
// written by AppendHookRecord, followed by any torn tail without a newline,
// reads back as those records.
func FuzzReadHookLog(f *testing.F) {
	f.Add([]byte(`{"event":"stop","agent":"claude","refused":true}`+"\n"), []byte(`{"event":"pre`))
	f.Add([]byte("not json\n"), []byte(""))
	f.Add([]byte(`{"decision":{"level":"bogus"}}`+"\n"), []byte("{"))
	f.Fuzz(func(t *testing.T, data, tail []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "any.jsonl")
		os.WriteFile(path, data, 0o600)
		guardrail.ReadHookLog(path)

		good := filepath.Join(dir, "good.jsonl")
		r := guardrail.HookRecord{Event: guardrail.HookPreToolUse, Agent: "codex", Tool: "Bash", Command: string(data),
			Decision: guardrail.Decision{Level: guardrail.Soft, Rule: "r", Reason: string(tail)}}
		if err := guardrail.AppendHookRecord(good, r); err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(tail, '\n') < 0 {
			fh, _ := os.OpenFile(good, os.O_APPEND|os.O_WRONLY, 0)
			fh.Write(tail)
			fh.Close()
		}
		recs, err := guardrail.ReadHookLog(good)
		if err != nil {
			t.Fatalf("ReadHookLog: %v", err)
		}
		// JSON carries text: invalid UTF-8 comes back as U+FFFD, byte by byte.
		var want string
		b, _ := json.Marshal(string(data))
		json.Unmarshal(b, &want)
		if len(recs) == 0 || recs[0].Command != want || recs[0].Decision.Level != guardrail.Soft {
			t.Fatalf("records %+v", recs)
		}
	})
}
