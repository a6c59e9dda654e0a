package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor/acp"
)

// A permission request waits for the updates the agent sent before it,
// though the SDK runs requests at once and queues notifications: here the
// edit's file and diff come only in the tool_call update, and the request
// names nothing but the call's id.
func TestPermissionWaitsForEarlierUpdates(t *testing.T) {
	root := t.TempDir()
	s, err := acp.NewSession(root)
	if err != nil {
		t.Fatal(err)
	}
	chk, sdkIn := acp.NewChecker(s)
	go io.Copy(io.Discard, sdkIn) // no SDK: the test hands the messages to the session itself
	defer chk.Close()

	path := filepath.Join(root, "a.txt")
	update := fmt.Sprintf(`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Write a.txt","kind":"edit","status":"pending","content":[{"type":"diff","path":%q,"newText":"hello\n"}],"locations":[{"path":%q}]}}`, path, path)
	request := `{"sessionId":"s","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}`
	chk.Write([]byte(`{"jsonrpc":"2.0","method":"session/update","params":` + update + "}\n"))
	chk.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":` + request + "}\n"))

	var p acpsdk.RequestPermissionRequest
	if err := json.Unmarshal([]byte(request), &p); err != nil {
		t.Fatal(err)
	}
	answer := make(chan acpsdk.RequestPermissionResponse, 1)
	go func() {
		resp, _ := s.RequestPermission(t.Context(), p)
		answer <- resp
	}()
	select {
	case resp := <-answer:
		t.Fatalf("answered before the update sent ahead of the request was taken in: %+v, violations %+v", resp, s.Violations())
	case <-time.After(100 * time.Millisecond):
	}
	var n acpsdk.SessionNotification
	if err := json.Unmarshal([]byte(update), &n); err != nil {
		t.Fatal(err)
	}
	s.SessionUpdate(t.Context(), n)
	select {
	case resp := <-answer:
		if sel := resp.Outcome.Selected; sel == nil || sel.OptionId != "yes" {
			t.Fatalf("the write was not allowed: %+v; violations %+v", resp, s.Violations())
		}
	case <-time.After(time.Second):
		t.Fatal("no answer once the update was taken in")
	}
}

// Through the SDK itself, every session update reaches the session, so a
// request never waits out MaxUpdateWait: behind a queue of message chunks
// and the edit's tool_call update, it is answered at once and allowed.
func TestPermissionSeesUpdatesSentBeforeIt(t *testing.T) {
	for round := range 20 {
		root := t.TempDir()
		s, err := acp.NewSession(root)
		if err != nil {
			t.Fatal(err)
		}
		chk, sdkIn := acp.NewChecker(s)
		outR, outW := io.Pipe()
		acpsdk.NewClientSideConnection(s, outW, sdkIn)

		id := fmt.Sprintf("call-%d", round)
		var lines []string
		for i := range 300 {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d "}}}}`, i))
		}
		path := filepath.Join(root, "a.txt")
		lines = append(lines,
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":%q,"title":"Write a.txt","kind":"edit","status":"pending","content":[{"type":"diff","path":%q,"newText":"hello\n"}],"locations":[{"path":%q}]}}}`, id, path, path),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":%q},"options":[{"optionId":"yes","name":"Yes","kind":"allow_once"},{"optionId":"no","name":"No","kind":"reject_once"}]}}`, id))
		written := make(chan struct{})
		go func() { // the agent's stdout: Write and Close come from one goroutine, as in an attempt
			defer close(written)
			for _, l := range lines {
				chk.Write([]byte(l + "\n"))
			}
		}()

		answer := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				answer <- sc.Text()
				return
			}
		}()
		start := time.Now()
		select {
		case line := <-answer:
			if waited := time.Since(start); waited > acp.MaxUpdateWait/2 {
				t.Fatalf("round %d: answered after %v: the session missed updates the checker counted", round, waited)
			}
			var resp struct {
				Result acpsdk.RequestPermissionResponse `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &resp); err != nil {
				t.Fatalf("answer %s: %v", line, err)
			}
			if sel := resp.Result.Outcome.Selected; sel == nil || sel.OptionId != "yes" {
				t.Fatalf("round %d: the write was not allowed: %s; violations %+v", round, line, s.Violations())
			}
		case <-time.After(acp.MaxUpdateWait + 5*time.Second):
			t.Fatal("no answer to the permission request")
		}
		<-written
		chk.Close()
		outR.Close()
	}
}

// A permission request is judged on what it and the updates before it
// show: diffs, else the tool's own input (claude-code-acp sends only that
// with the request), and a call that should show a change but names no
// file or command is refused as unjudged.
func TestPermissionJudgesRawInput(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { return filepath.Join(root, p) }
	token := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "Jk9LmN"
	tests := []struct {
		name     string
		kind     acpsdk.ToolKind
		rawInput map[string]any
		allowed  bool
		rule     string // of the violation of a refusal
	}{
		{"edit by old and new string", acpsdk.ToolKindEdit,
			map[string]any{"file_path": abs("main.go"), "old_string": "func main() {}", "new_string": "func main() { println(1) }"}, true, ""},
		{"write of a new file", acpsdk.ToolKindEdit,
			map[string]any{"file_path": abs("doc.txt"), "content": "hello\n"}, true, ""},
		{"several edits of one file", acpsdk.ToolKindEdit,
			map[string]any{"file_path": abs("main.go"), "edits": []any{
				map[string]any{"old_string": "package main", "new_string": "package main // x"},
				map[string]any{"old_string": "func main() {}", "new_string": "func main() {}\n"}}}, true, ""},
		{"a secret written, judged by content", acpsdk.ToolKindEdit,
			map[string]any{"file_path": abs("config.go"), "content": "package main\n\nconst token = \"" + token + "\"\n"}, false, ""},
		{"an edit that names no file", acpsdk.ToolKindEdit,
			map[string]any{"old_string": "a", "new_string": "b"}, false, acp.RuleUnjudged},
		{"an edit outside the tree", acpsdk.ToolKindEdit,
			map[string]any{"file_path": "/etc/passwd", "content": "x"}, false, acp.RuleUnjudged},
		{"a command", acpsdk.ToolKindExecute,
			map[string]any{"command": "go test ./..."}, true, ""},
		{"a command harnish cannot read", acpsdk.ToolKindExecute,
			map[string]any{"description": "run tests"}, false, acp.RuleUnjudged},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := acp.NewSession(root)
			if err != nil {
				t.Fatal(err)
			}
			kind := tt.kind
			resp, err := s.RequestPermission(t.Context(), acpsdk.RequestPermissionRequest{
				SessionId: "s",
				ToolCall: acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(fmt.Sprint("c", i)),
					Kind: &kind, RawInput: tt.rawInput},
				Options: []acpsdk.PermissionOption{
					{OptionId: "yes", Name: "Yes", Kind: acpsdk.PermissionOptionKindAllowOnce},
					{OptionId: "no", Name: "No", Kind: acpsdk.PermissionOptionKindRejectOnce}},
			})
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Outcome.Selected != nil && resp.Outcome.Selected.OptionId == "yes"
			if got != tt.allowed {
				t.Fatalf("allowed = %t, want %t; violations %+v", got, tt.allowed, s.Violations())
			}
			if tt.rule != "" {
				if v := s.Violations(); len(v) == 0 || v[0].Rule != tt.rule || !v[0].Hard {
					t.Errorf("violations %+v, want a hard %s first", v, tt.rule)
				}
			}
		})
	}
}
