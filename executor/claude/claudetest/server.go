package claudetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/harnish/harnish/executor/claude"
)

// APIKey is the dummy API key [Server.Env] hands Claude Code.
const APIKey = "sk-ant-claudetest"

// Server is a scripted Messages API server on 127.0.0.1. Each POST
// /v1/messages that Claude Code's agent loop makes is answered by the next
// [Turn] of the script, streamed as Server-Sent Events the way the Messages
// API streams. It records every request, so a test can check the prompt it
// was given and the tool results and hook feedback that came back.
//
// Claude Code may make requests of its own besides the agent loop's (a
// session title, a summary, token counting). Every request of the agent
// loop declares the agent's tools, whatever its model (a small main model
// included), so a request that declares no tools is taken for a side
// request: it is answered with a short text, recorded with Side set, logged,
// and does not consume the script. (Claude Code 2.1.328 with -p was seen to
// make none: HEAD /api/hello, then the agent loop's requests only.) POST
// /v1/messages/count_tokens gets a token count, HEAD /api/hello (Claude
// Code's connectivity check) 200, and anything else 404, logged;
// [Server.Calls] lists them all.
//
// A malformed turn (no blocks, an unknown block type) and a request beyond
// the end of the script fail the test and are answered with HTTP 400, which
// Claude Code reports as an API error and does not retry.
type Server struct {
	t   testing.TB
	srv *httptest.Server

	mu     sync.Mutex
	script []Turn
	next   int
	reqs   []*Request
	calls  []string
}

// NewServer starts a server that answers with script, one turn per agent
// request, and closes it when the test ends. A malformed turn fails t at
// once.
func NewServer(t testing.TB, script ...Turn) *Server {
	t.Helper()
	for i, turn := range script {
		if err := turn.validate(); err != nil {
			t.Errorf("claudetest: turn %d: %v", i, err)
		}
	}
	s := &Server{t: t, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL, what ANTHROPIC_BASE_URL must be.
func (s *Server) URL() string { return s.srv.URL }

// Env returns the environment that points Claude Code at the server:
// ANTHROPIC_BASE_URL and a dummy ANTHROPIC_API_KEY.
func (s *Server) Env() map[string]string {
	return map[string]string{"ANTHROPIC_BASE_URL": s.srv.URL, "ANTHROPIC_API_KEY": APIKey}
}

// Executor returns a [claude.Executor] whose Claude Code talks to the server.
// Set its other fields (Harnish, PlanFile, ...) before use.
func (s *Server) Executor() *claude.Executor {
	return &claude.Executor{Env: s.Env()}
}

// Requests returns every POST /v1/messages received, side requests
// included, in order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Turns returns the requests the script answered, in order: Turns()[i] is
// the one turn i answered.
func (s *Server) Turns() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Request
	for _, r := range s.reqs {
		if r.Turn >= 0 {
			out = append(out, r)
		}
	}
	return out
}

// Remaining returns how many turns of the script are still unanswered.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script) - s.next
}

// Calls returns every call the server received as "METHOD /path", in order.
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodHead && r.URL.Path == "/api/hello":
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":1}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r)
	default:
		s.t.Logf("claudetest: no such endpoint: %s %s", r.Method, r.URL)
		apiError(w, http.StatusNotFound, "not_found_error", "claudetest: no such endpoint: "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "claudetest: reading the request: "+err.Error())
		return
	}
	req, err := decodeRequest(r.URL.RequestURI(), body)
	if err != nil {
		s.t.Errorf("claudetest: a request that does not decode: %v\n%s", err, body)
		apiError(w, http.StatusBadRequest, "invalid_request_error", "claudetest: the request does not decode: "+err.Error())
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var turn Turn
	n := -1
	switch {
	case len(req.Tools) == 0:
		req.Side = true
	case s.next < len(s.script):
		n, turn = s.next, s.script[s.next]
		req.Turn = n
		s.next++
	}
	s.mu.Unlock()

	if req.Side {
		s.t.Logf("claudetest: side request (no tools): model %s, max_tokens %d", req.Model, req.MaxTokens)
		stream(w, req.Model, fmt.Sprintf("msg_claudetest_side_%p", req),
			Turn{Blocks: []Block{Text("claudetest: side request")}, Usage: Usage{InputTokens: 1, OutputTokens: 1}})
		return
	}
	if n < 0 {
		s.t.Errorf("claudetest: request %d is beyond the script's %d turns; its last message:\n%s",
			len(s.Requests()), len(s.script), req.Last().Text())
		apiError(w, http.StatusBadRequest, "invalid_request_error", "claudetest: the script has no more turns")
		return
	}
	if err := turn.validate(); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("claudetest: turn %d: %v", n, err))
		return
	}
	if turn.Want != "" && !strings.Contains(req.Last().Text(), turn.Want) {
		s.t.Errorf("claudetest: turn %d: the request's last message does not contain %q:\n%s", n, turn.Want, req.Last().Text())
	}
	if turn.Expect != nil {
		if err := turn.Expect(req); err != nil {
			s.t.Errorf("claudetest: turn %d: %v", n, err)
		}
	}
	stream(w, req.Model, fmt.Sprintf("msg_claudetest_%d", n), turn)
}

// stream writes turn as a streamed Messages API response: message_start,
// each block's start, deltas and stop, message_delta with the stop reason and
// usage, message_stop.
func stream(w http.ResponseWriter, model, id string, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	type obj = map[string]any
	event("message_start", obj{"type": "message_start", "message": obj{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": turn.Usage.InputTokens, "output_tokens": min(turn.Usage.OutputTokens, 1)},
	}})
	flush()
	for i, b := range turn.Blocks {
		switch b.Type {
		case "text":
			event("content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "text", "text": ""}})
			for _, part := range halves(b.Text) {
				event("content_block_delta", obj{"type": "content_block_delta", "index": i,
					"delta": obj{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			input := b.Input
			if input == nil {
				input = map[string]any{}
			}
			js, _ := json.Marshal(input)
			event("content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": b.Name, "input": obj{}}})
			for _, part := range halves(string(js)) {
				event("content_block_delta", obj{"type": "content_block_delta", "index": i,
					"delta": obj{"type": "input_json_delta", "partial_json": part}})
			}
		}
		event("content_block_stop", obj{"type": "content_block_stop", "index": i})
		flush()
	}
	event("message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": turn.stopReason(), "stop_sequence": nil},
		"usage": obj{"output_tokens": turn.Usage.OutputTokens}})
	event("message_stop", obj{"type": "message_stop"})
	flush()
}

// halves splits s in two at a character boundary, so a client has to join
// deltas as the real API makes it.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	i := len(s) / 2
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	if i == 0 {
		return []string{s}
	}
	return []string{s[:i], s[i:]}
}

// apiError answers with a Messages API error.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": msg}})
	w.Write(b)
}
