package claude

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
)

// TestStreamWatch: each Bash command that got its result, and each turn (a
// message, whose blocks come as events of their own), reach the watcher.
func TestStreamWatch(t *testing.T) {
	var got []executor.Activity
	s := newStream()
	s.watch = func(a executor.Activity) { got = append(got, a) }
	for _, l := range []string{
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"I will run the tests."}]}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"Exit code 1\nFAIL"}]}}`,
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"Hmm."}]}}`,
		`{"type":"assistant","message":{"id":"m3","content":[{"type":"text","text":"Done."}]}}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"Done.","usage":{"input_tokens":1,"output_tokens":1}}`,
	} {
		s.Write([]byte(l + "\n"))
	}
	want := []executor.Activity{{Command: "go test ./...", Result: "true\nExit code 1\nFAIL"},
		{Turn: true, Acted: true}, {Turn: true}, {Turn: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("activity (-want +got):\n%s", diff)
	}
}
