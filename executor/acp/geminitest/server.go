package geminitest

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

	"github.com/harnish/harnish/executor/acp"
)

// APIKey is the dummy API key [Server.Env] hands the agent.
const APIKey = "geminitest-key"

// MaxBody bounds a request body the server reads, in bytes.
const MaxBody = 32 << 20

// Server is a scripted Gemini API server on 127.0.0.1. Each streamed
// request of the agent loop (POST …/models/MODEL:streamGenerateContent) is
// answered by the next [Turn] of the script, as Server-Sent Events the way
// the Gemini API streams. It records every request.
//
// A request that declares no tools is taken for a side request of the
// agent's own (a routing or summary call): it is answered with a short
// text, recorded with Side set, and does not consume the script; so is a
// POST …:generateContent. …:countTokens gets a count; anything else is 404,
// logged. [Server.Calls] lists them all.
//
// A request beyond the end of the script fails the test and is answered
// with HTTP 400, which Gemini CLI reports as an API error and does not
// retry.
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
			t.Errorf("geminitest: turn %d: %v", i, err)
		}
	}
	s := &Server{t: t, script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL, what GOOGLE_GEMINI_BASE_URL must be.
func (s *Server) URL() string { return s.srv.URL }

// Env returns the environment that points Gemini CLI at the server:
// GOOGLE_GEMINI_BASE_URL and a dummy GEMINI_API_KEY.
func (s *Server) Env() map[string]string {
	return map[string]string{"GOOGLE_GEMINI_BASE_URL": s.srv.URL, "GEMINI_API_KEY": APIKey}
}

// Model is the model [Server.Executor] asks for.
const Model = "geminitest-model"

// Executor returns an [acp.Executor] of Gemini CLI that talks to the
// server, asking for [Model]. Set its other fields (Plan, ...) before use.
func (s *Server) Executor() *acp.Executor {
	return &acp.Executor{Agent: acp.Gemini, Model: Model, Env: s.Env()}
}

// Requests returns every generateContent request received, side requests
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

// route splits a path ".../models/MODEL:METHOD" into its model and method.
func route(path string) (model, method string, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	model, method, ok = strings.Cut(path[i+len("/models/"):], ":")
	return model, method, ok && model != "" && !strings.Contains(model, "/")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	model, method, ok := route(r.URL.Path)
	switch {
	case ok && r.Method == http.MethodPost && method == "countTokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens":1}`)
	case ok && r.Method == http.MethodPost && (method == "streamGenerateContent" || method == "generateContent"):
		s.generate(w, r, model, method)
	default:
		s.t.Logf("geminitest: no such endpoint: %s %s", r.Method, r.URL)
		apiError(w, http.StatusNotFound, "NOT_FOUND", "geminitest: no such endpoint: "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) generate(w http.ResponseWriter, r *http.Request, model, method string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil || len(body) > MaxBody {
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("geminitest: reading the request: %v (%d bytes)", err, len(body)))
		return
	}
	req, err := decodeRequest(model, method, body)
	if err != nil {
		s.t.Errorf("geminitest: a request that does not decode: %v\n%s", err, body)
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error())
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	var turn Turn
	n := -1
	switch {
	case len(req.Tools) == 0 || method != "streamGenerateContent":
		req.Side = true
	case s.next < len(s.script):
		n, turn = s.next, s.script[s.next]
		req.Turn = n
		s.next++
	}
	s.mu.Unlock()

	if req.Side {
		s.t.Logf("geminitest: side request (%s, %d tools): model %s", method, len(req.Tools), model)
		side := Turn{Parts: []Part{Text(`{"reasoning":"geminitest side request","next_speaker":"user","model_choice":"flash"}`)}}
		if method == "generateContent" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(chunk(side.Parts, side.finishReason(), side.Usage))
			return
		}
		stream(w, side)
		return
	}
	if n < 0 {
		s.t.Errorf("geminitest: request %d is beyond the script's %d turns; its text:\n%s",
			len(s.Requests()), len(s.script), tail(req.Text()))
		apiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "geminitest: the script has no more turns")
		return
	}
	if turn.Want != "" && !strings.Contains(req.Text(), turn.Want) {
		s.t.Errorf("geminitest: turn %d: the request does not contain %q:\n%s", n, turn.Want, tail(req.Text()))
	}
	if turn.Expect != nil {
		if err := turn.Expect(req); err != nil {
			s.t.Errorf("geminitest: turn %d: %v", n, err)
		}
	}
	if turn.Status != 0 {
		apiError(w, turn.Status, "INVALID_ARGUMENT", fmt.Sprintf("geminitest: turn %d answers with status %d", n, turn.Status))
		return
	}
	stream(w, turn)
}

type obj = map[string]any

// chunk is one GenerateContentResponse holding parts; finish and usage are
// left out when empty.
func chunk(parts []Part, finish string, u Usage) obj {
	var ps []obj
	for _, p := range parts {
		if p.Call != nil {
			args := p.Call.Args
			if args == nil {
				args = obj{}
			}
			ps = append(ps, obj{"functionCall": obj{"name": p.Call.Name, "args": args}})
			continue
		}
		ps = append(ps, obj{"text": p.Text})
	}
	cand := obj{"content": obj{"role": "model", "parts": ps}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	c := obj{"candidates": []obj{cand}, "modelVersion": "geminitest"}
	if u != (Usage{}) {
		c["usageMetadata"] = obj{"promptTokenCount": u.PromptTokens, "candidatesTokenCount": u.CandidatesTokens,
			"totalTokenCount": u.PromptTokens + u.CandidatesTokens}
	}
	return c
}

// stream writes turn as Server-Sent Events: a text part split in two
// chunks, so a client has to join them, each function call in a chunk of
// its own, and the finish reason and usage with the last.
func stream(w http.ResponseWriter, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var chunks [][]Part
	for _, p := range turn.Parts {
		if p.Call != nil {
			chunks = append(chunks, []Part{p})
			continue
		}
		for _, h := range halves(p.Text) {
			chunks = append(chunks, []Part{Text(h)})
		}
	}
	for i, ps := range chunks {
		finish, usage := "", Usage{}
		if i == len(chunks)-1 {
			finish, usage = turn.finishReason(), turn.Usage
		}
		b, _ := json.Marshal(chunk(ps, finish, usage))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// halves splits s in two at a character boundary.
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

func tail(s string) string {
	const n = 4096
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// apiError answers with a Gemini API error.
func apiError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(obj{"error": obj{"code": status, "message": msg, "status": kind}})
	w.Write(b)
}
