package codextest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor/codex/codextest"
)

// fakeTB records failures instead of failing, so a test can check that the
// server fails its test when it should.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Fatalf(format string, a ...any) { f.Errorf(format, a...); panic("fatal") }
func (f *fakeTB) Cleanup(fn func())              { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errors...)
}

func newFake(t *testing.T) *fakeTB {
	f := &fakeTB{TB: t}
	t.Cleanup(func() {
		for _, fn := range f.cleanups {
			fn()
		}
	})
	return f
}

// sse is one Server-Sent Event.
type sse struct {
	Event string
	Data  map[string]any
}

// post sends a Responses request and reads the answer's status and events.
func post(t *testing.T, s *codextest.Server, body string) (int, []sse) {
	t.Helper()
	resp, err := http.Post(s.URL()+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []sse
	var cur sse
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("data does not parse: %v: %s", err, line)
			}
		case line == "" && cur.Event != "":
			if cur.Data["type"] != cur.Event {
				t.Errorf("event %s carries type %v", cur.Event, cur.Data["type"])
			}
			events = append(events, cur)
			cur = sse{}
		}
	}
	return resp.StatusCode, events
}

const firstRequest = `{"model":"test-model","stream":true,"input":[
 {"type":"message","role":"developer","content":[{"type":"input_text","text":"be good"}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"Do T1."}]}]}`

const secondRequest = `{"model":"test-model","stream":true,"input":[
 {"type":"message","role":"user","content":[{"type":"input_text","text":"Do T1."}]},
 {"type":"function_call","call_id":"call_0_0","name":"exec_command","arguments":"{}"},
 {"type":"function_call_output","call_id":"call_0_0","output":"blocked by harnish"}]}`

// TestServerStreams: each request gets the next turn, as the Responses API
// streams it, and is recorded.
func TestServerStreams(t *testing.T) {
	s := codextest.NewServer(t,
		codextest.Turn{Items: []codextest.Item{codextest.Message("Looking."), codextest.Shell("ls -la")}, Usage: codextest.Usage{InputTokens: 10, OutputTokens: 3}},
		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n")},
			Expect: codextest.Containing("be good", "Do T1.")},
		codextest.Turn{Items: []codextest.Item{codextest.Message("Done.")},
			Expect: func(r *codextest.Request) error {
				if got := r.ToolOutputs(); len(got) != 1 || got[0] != "blocked by harnish" {
					return fmt.Errorf("tool outputs %q", got)
				}
				return nil
			}},
	)
	type ev struct{ Type, Item string }
	summary := func(events []sse) []ev {
		var out []ev
		for _, e := range events {
			x := ev{Type: e.Event}
			if it, ok := e.Data["item"].(map[string]any); ok {
				x.Item = fmt.Sprint(it["type"], " ", it["name"], " ", it["arguments"], " ", it["content"])
			}
			if e.Event == "response.output_text.delta" {
				x.Item = fmt.Sprint(e.Data["delta"])
			}
			if r, ok := e.Data["response"].(map[string]any); ok {
				x.Item = fmt.Sprint(r["id"], " ", r["usage"])
			}
			out = append(out, x)
		}
		return out
	}
	tests := []struct {
		body string
		want []ev
	}{
		{firstRequest, []ev{
			{"response.created", "resp_0 <nil>"},
			{"response.output_item.added", "message <nil> <nil> []"},
			{"response.output_text.delta", "Looking."},
			{"response.output_item.done", "message <nil> <nil> [map[annotations:[] text:Looking. type:output_text]]"},
			{"response.output_item.added", `function_call exec_command {"cmd":"ls -la"} <nil>`},
			{"response.output_item.done", `function_call exec_command {"cmd":"ls -la"} <nil>`},
			{"response.completed", "resp_0 map[input_tokens:10 input_tokens_details:map[cached_tokens:0] output_tokens:3 output_tokens_details:map[reasoning_tokens:0] total_tokens:13]"},
		}},
		{firstRequest, []ev{
			{"response.created", "resp_1 <nil>"},
			{"response.output_item.added", `function_call exec_command {"cmd":"apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nPATCH"} <nil>`},
			{"response.output_item.done", `function_call exec_command {"cmd":"apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\nPATCH"} <nil>`},
			{"response.completed", "resp_1 map[input_tokens:0 input_tokens_details:map[cached_tokens:0] output_tokens:0 output_tokens_details:map[reasoning_tokens:0] total_tokens:0]"},
		}},
		{secondRequest, []ev{
			{"response.created", "resp_2 <nil>"},
			{"response.output_item.added", "message <nil> <nil> []"},
			{"response.output_text.delta", "Done."},
			{"response.output_item.done", "message <nil> <nil> [map[annotations:[] text:Done. type:output_text]]"},
			{"response.completed", "resp_2 map[input_tokens:0 input_tokens_details:map[cached_tokens:0] output_tokens:0 output_tokens_details:map[reasoning_tokens:0] total_tokens:0]"},
		}},
	}
	for i, tt := range tests {
		code, events := post(t, s, tt.body)
		if code != http.StatusOK {
			t.Fatalf("request %d: status %d", i, code)
		}
		if diff := cmp.Diff(tt.want, summary(events)); diff != "" {
			t.Errorf("request %d (-want +got):\n%s", i, diff)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	if got := reqs[0].UserText(); got != "Do T1.\n" {
		t.Errorf("UserText = %q", got)
	}
	if !reqs[0].Contains("be good") || reqs[0].Contains("nowhere") || string(reqs[2].Raw) != secondRequest || reqs[2].N != 2 {
		t.Errorf("requests recorded wrong: %+v", reqs[0])
	}
	if p := s.Provider(); p.BaseURL != s.URL() || !strings.HasPrefix(p.BaseURL, "http://127.0.0.1:") || p.WireAPI != "responses" {
		t.Errorf("Provider = %+v", p)
	}
}

// TestServerRefuses: a malformed script, a request beyond the script or one
// the script does not expect fails the test, and the client gets a 400.
func TestServerRefuses(t *testing.T) {
	tests := []struct {
		name   string
		script []codextest.Turn
		body   string
		want   string
	}{
		{"beyond the script", nil, firstRequest, "request 0 is beyond the script of 0 turns"},
		{"empty turn", []codextest.Turn{{}}, firstRequest, "turn 0 has no items"},
		{"unknown item", []codextest.Turn{{Items: []codextest.Item{{}}}}, firstRequest, "turn 0 item 0: unknown item"},
		{"expectation", []codextest.Turn{{Items: []codextest.Item{codextest.Message("x")},
			Expect: func(*codextest.Request) error { return errors.New("no failure summary") }}}, firstRequest,
			"turn 0: the request is not what the script expects: no failure summary"},
		{"containing", []codextest.Turn{{Items: []codextest.Item{codextest.Message("x")},
			Expect: codextest.Containing("Do T1.", "Previous attempts")}}, firstRequest,
			`turn 0: the request is not what the script expects: the request does not contain "Previous attempts"`},
		{"body not JSON", []codextest.Turn{{Items: []codextest.Item{codextest.Message("x")}}}, "{", "request 0: body does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := newFake(t)
			s := codextest.NewServer(tb, tt.script...)
			code, _ := post(t, s, tt.body)
			if code != http.StatusBadRequest {
				t.Errorf("status %d, want 400", code)
			}
			if errs := tb.Errors(); len(errs) != 1 || !strings.Contains(errs[0], tt.want) {
				t.Errorf("test errors %q, want one containing %q", errs, tt.want)
			}
			if len(s.Requests()) != 1 {
				t.Errorf("the refused request was not recorded")
			}
		})
	}
}

// TestServerOtherPaths: what is not a Responses request gets a 404, which
// Codex does without, and fails nothing.
func TestServerOtherPaths(t *testing.T) {
	tb := newFake(t)
	s := codextest.NewServer(tb)
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || len(tb.Errors()) != 0 || len(s.Requests()) != 0 {
		t.Errorf("status %d, errors %q", resp.StatusCode, tb.Errors())
	}
}

// TestServerDelay: a turn with a Delay is answered after it, and a client
// that goes away first is not kept waiting for it.
func TestServerDelay(t *testing.T) {
	tb := newFake(t)
	const delay = 300 * time.Millisecond
	s := codextest.NewServer(tb, codextest.Turn{Items: []codextest.Item{codextest.Message("hi")}, Delay: delay},
		codextest.Turn{Items: []codextest.Item{codextest.Message("hi")}, Delay: time.Hour})
	start := time.Now()
	if code, events := post(t, s, firstRequest); code != http.StatusOK || len(events) == 0 {
		t.Fatalf("status %d, %d events", code, len(events))
	}
	if d := time.Since(start); d < delay {
		t.Errorf("answered after %v, before the delay of %v", d, delay)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/responses", strings.NewReader(firstRequest))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the hour-long turn was answered: %s", resp.Status)
	}
	if errs := tb.Errors(); len(errs) != 0 {
		t.Errorf("errors %q", errs)
	}
}
