package codextest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnish/harnish/executor/codex"
)

// Turn is the model's answer to one request: the items it streams, in order,
// and the usage it reports. A turn must have at least one item.
type Turn struct {
	Items []Item
	// Usage is reported in the turn's response.completed event.
	Usage Usage
	// Expect, when set, checks the request this turn answers; an error fails
	// the test and the request gets an HTTP error instead of the turn, so a
	// conversation that diverges from the script stops at once.
	Expect func(*Request) error
	// Delay is how long the model thinks before it answers: the server
	// waits that long, or until the client goes away, before streaming the
	// turn. For tests of what happens while the agent waits.
	Delay time.Duration
}

// Containing returns an expectation for [Turn.Expect]: the request's body
// contains each of substrings (as text; JSON escapes are accounted for).
func Containing(substrings ...string) func(*Request) error {
	return func(r *Request) error {
		for _, s := range substrings {
			if !r.Contains(s) {
				return fmt.Errorf("the request does not contain %q", s)
			}
		}
		return nil
	}
}

// Usage is the token usage a turn reports.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// Item is one output item of a turn. Make one with [Shell], [ApplyPatch],
// [Patch] or [Message].
type Item struct {
	kind string // "shell", "patch" or "message"
	text string
	args map[string]any // more arguments of a shell call
}

// Shell is a call of the shell tool Codex declares for a model it does not
// know, exec_command, with cmd as its command line.
func Shell(cmd string) Item { return Item{kind: kindShell, text: cmd} }

// ShellWith is a call of exec_command with cmd and more of its arguments,
// such as "workdir" (where the command runs) or "tty" (an interactive
// session).
func ShellWith(cmd string, args map[string]any) Item {
	return Item{kind: kindShell, text: cmd, args: args}
}

// ApplyPatch is an apply_patch edit, sent the way a model without a patch
// tool sends it: through exec_command, as a heredoc. patch is the body
// between "*** Begin Patch" and "*** End Patch" inclusive.
func ApplyPatch(patch string) Item {
	return Shell("apply_patch <<'PATCH'\n" + strings.TrimRight(patch, "\n") + "\nPATCH")
}

// Patch is a call of the freeform apply_patch tool Codex declares for a
// model that has one (such as [PatchModel]): a custom_tool_call named
// apply_patch whose input is patch, the text from "*** Begin Patch" to
// "*** End Patch" inclusive. Codex declares no such tool for [Model]; give the
// executor PatchModel to use it.
func Patch(patch string) Item {
	return Item{kind: kindPatch, text: strings.TrimRight(patch, "\n") + "\n"}
}

// Message is the assistant's text message; the last one of a conversation is
// the agent's final message.
func Message(text string) Item { return Item{kind: kindMessage, text: text} }

const (
	kindShell   = "shell"
	kindMessage = "message"
	kindPatch   = "patch"
)

// Request is one request the server received.
type Request struct {
	// N numbers the requests from 0.
	N int
	// Body is the parsed JSON body; Raw the body as sent.
	Body map[string]any
	Raw  []byte
}

// Input returns the request's input items.
func (r *Request) Input() []map[string]any {
	items, _ := r.Body["input"].([]any)
	var out []map[string]any
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// UserText returns the text of the request's user messages, joined by
// newlines: the prompt, with whatever context Codex adds to it.
func (r *Request) UserText() string {
	var b strings.Builder
	for _, it := range r.Input() {
		if it["type"] != "message" || it["role"] != "user" {
			continue
		}
		b.WriteString(contentText(it["content"]))
		b.WriteString("\n")
	}
	return b.String()
}

// ToolOutputs returns the outputs of the tool calls the request reports back
// to the model (function_call_output and custom_tool_call_output items), in
// order.
func (r *Request) ToolOutputs() []string {
	var out []string
	for _, it := range r.Input() {
		if it["type"] != "function_call_output" && it["type"] != "custom_tool_call_output" {
			continue
		}
		switch o := it["output"].(type) {
		case string:
			out = append(out, o)
		default:
			out = append(out, contentText(o))
		}
	}
	return out
}

// Contains reports whether the raw body contains s, as JSON encodes it.
func (r *Request) Contains(s string) bool {
	enc, _ := json.Marshal(s)
	return bytes.Contains(r.Raw, enc[1:len(enc)-1])
}

func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if s, ok := c["text"].(string); ok {
			return s
		}
	}
	return ""
}

// Model is the model name tests give Codex: one it has no metadata for, so
// it declares the generic exec_command shell tool the script calls.
const Model = "test-model"

// PatchModel is a model name Codex knows to take a freeform apply_patch tool
// (besides exec_command), so that a script can send [Patch] items.
const PatchModel = "gpt-5.5"

// Server is a scripted model speaking the Responses API on 127.0.0.1: each
// POST .../responses is answered by the next [Turn] of its script, streamed
// as Server-Sent Events. It is safe for concurrent use.
type Server struct {
	t      testing.TB
	script []Turn
	srv    *http.Server
	ln     net.Listener

	mu   sync.Mutex
	reqs []Request
}

// NewServer starts a server answering with script, and stops it when the
// test ends. A malformed turn, a request beyond the script and a failed
// expectation fail t (with t.Errorf, safe from the server's goroutines) and
// are answered with an HTTP 400, which Codex does not retry.
func NewServer(t testing.TB, script ...Turn) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("codextest: listen: %v", err)
	}
	s := &Server{t: t, script: script, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// URL returns the base URL Codex is given: http://127.0.0.1:PORT/v1.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Provider returns the model provider settings for [codex.Executor] that
// point Codex at the server, with retries off so a failure shows at once.
func (s *Server) Provider() *codex.Provider {
	return &codex.Provider{Name: "codextest", BaseURL: s.URL(), WireAPI: "responses",
		Options: map[string]string{"request_max_retries": "0", "stream_max_retries": "0"}}
}

// Requests returns the requests answered so far (and those refused), in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r) // model lists and the like: Codex does without them
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.refuse(w, "reading request: %v", err)
		return
	}
	req := Request{Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		s.mu.Lock()
		req.N = len(s.reqs)
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		s.refuse(w, "request %d: body does not parse: %v", req.N, err)
		return
	}
	s.mu.Lock()
	req.N = len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if req.N >= len(s.script) {
		s.refuse(w, "request %d is beyond the script of %d turns; its input ends with %s",
			req.N, len(s.script), lastInput(&req))
		return
	}
	turn := s.script[req.N]
	if len(turn.Items) == 0 {
		s.refuse(w, "turn %d has no items", req.N)
		return
	}
	for i, it := range turn.Items {
		if it.kind != kindShell && it.kind != kindMessage && it.kind != kindPatch {
			s.refuse(w, "turn %d item %d: unknown item (make items with Shell, ApplyPatch, Patch or Message)", req.N, i)
			return
		}
	}
	if turn.Expect != nil {
		if err := turn.Expect(&req); err != nil {
			s.refuse(w, "turn %d: the request is not what the script expects: %v", req.N, err)
			return
		}
	}
	if turn.Delay > 0 {
		timer := time.NewTimer(turn.Delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	s.stream(w, req.N, turn)
}

// refuse fails the test and answers with an error Codex gives up on.
func (s *Server) refuse(w http.ResponseWriter, format string, a ...any) {
	msg := fmt.Sprintf("codextest: "+format, a...)
	s.t.Errorf("%s", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

func lastInput(r *Request) string {
	in := r.Input()
	if len(in) == 0 {
		return "nothing"
	}
	b, _ := json.Marshal(in[len(in)-1])
	if len(b) > 300 {
		b = append(b[:300], "..."...)
	}
	return string(b)
}

// stream writes the turn as the Responses API streams it.
func (s *Server) stream(w http.ResponseWriter, n int, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	id := fmt.Sprintf("resp_%d", n)
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		data := marshal(fields)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	send("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}})
	for i, it := range turn.Items {
		var item map[string]any
		switch it.kind {
		case kindShell:
			fields := map[string]any{"cmd": it.text}
			for k, v := range it.args {
				if k != "cmd" {
					fields[k] = v
				}
			}
			args := marshal(fields)
			item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d_%d", n, i),
				"call_id": fmt.Sprintf("call_%d_%d", n, i), "name": "exec_command", "arguments": args,
				"status": "completed"}
			send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		case kindPatch:
			item = map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d_%d", n, i),
				"call_id": fmt.Sprintf("call_%d_%d", n, i), "name": "apply_patch", "input": it.text,
				"status": "completed"}
			send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		case kindMessage:
			msgID := fmt.Sprintf("msg_%d_%d", n, i)
			send("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
				"type": "message", "id": msgID, "role": "assistant", "status": "in_progress", "content": []any{}}})
			send("response.output_text.delta", map[string]any{"item_id": msgID, "output_index": i,
				"content_index": 0, "delta": it.text})
			item = map[string]any{"type": "message", "id": msgID, "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": it.text, "annotations": []any{}}}}
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]any{
			"input_tokens": turn.Usage.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": turn.Usage.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": turn.Usage.InputTokens + turn.Usage.OutputTokens,
		}}})
}

// marshal encodes v as JSON as a model API writes it, without HTML escapes.
func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and slices always encode
	return strings.TrimSuffix(b.String(), "\n")
}
