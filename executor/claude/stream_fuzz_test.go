package claude

import (
	"path/filepath"
	"testing"
)

// FuzzStream feeds the stream-json parser arbitrary output, split at an
// arbitrary point as a pipe would deliver it: it never panics, gives the
// same answer however the bytes arrive, and reports only files inside the
// working tree.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		`{"type":"system","subtype":"init","session_id":"s"}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/work/a.txt","content":"x"}}],"usage":{"input_tokens":5,"output_tokens":2}}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"../../etc/passwd"}}]}}` + "\n" +
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"done"}]}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.25,"usage":{"input_tokens":10,"output_tokens":3}}`,
		`{"type":"system","message":"permission denied"}`,
		"garbage\n{\"type\":\"assistant\",\"message\":5}",
	} {
		f.Add([]byte(seed), uint16(7))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := newStream()
		whole.Write(data)
		whole.Close()
		split := newStream()
		at := int(cut) % (len(data) + 1)
		split.Write(data[:at])
		split.Write(data[at:])
		split.Close()
		a, b := whole.snapshot(), split.snapshot()
		if (a.err == nil) != (b.err == nil) || a.usage != b.usage || len(a.uses) != len(b.uses) {
			t.Fatalf("whole and split differ: %+v vs %+v", a, b)
		}
		for _, p := range a.filesChanged("/work") {
			if !filepath.IsLocal(filepath.FromSlash(p)) {
				t.Errorf("file %q is outside the working tree", p)
			}
		}
		a.calls(true)
		a.calls(false)
	})
}
