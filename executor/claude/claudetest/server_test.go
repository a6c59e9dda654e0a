package claudetest_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor/claude/claudetest"
)

// fakeTB records the failures the server reports instead of failing the test.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) failures() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// body is a Messages API request as Claude Code sends it: the prompt, then
// the exchange so far.
func body(tools bool, messages ...string) string {
	t := `[]`
	if tools {
		t = `[{"name":"Bash"},{"name":"Write"}]`
	}
	return `{"model":"m","max_tokens":100,"stream":true,"system":[{"type":"text","text":"sys"}],"tools":` + t +
		`,"messages":[` + strings.Join(messages, ",") + `]}`
}

const (
	prompt = `{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"do the task"}]}`
	env    = `{"role":"system","content":[{"type":"text","text":"# Environment"}]}`
	called = `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}`
	result = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"blocked by hook","is_error":true}]}`
)

// sse is one event of a streamed answer.
type sse struct {
	Event string
	Data  map[string]any
}

func post(t *testing.T, url, path, b string) (int, []sse) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	var out []sse
	sc := bufio.NewScanner(resp.Body)
	var cur sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				t.Fatalf("data does not parse: %v", err)
			}
		case line == "":
			out = append(out, cur)
			cur = sse{}
		}
	}
	return resp.StatusCode, out
}

// message joins a streamed answer back into its blocks, stop reason and
// usage, the way a client does.
func message(t *testing.T, events []sse) (blocks []string, stop string, in, out float64) {
	t.Helper()
	var names []string
	parts := map[int]string{}
	kinds := map[int]string{}
	for _, e := range events {
		names = append(names, e.Event)
		if e.Data["type"] != e.Event {
			t.Errorf("event %s has data of type %v", e.Event, e.Data["type"])
		}
		switch e.Event {
		case "message_start":
			in = e.Data["message"].(map[string]any)["usage"].(map[string]any)["input_tokens"].(float64)
		case "content_block_start":
			cb := e.Data["content_block"].(map[string]any)
			i := int(e.Data["index"].(float64))
			kinds[i] = cb["type"].(string)
			if cb["type"] == "tool_use" {
				kinds[i] += " " + cb["name"].(string)
			}
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			i := int(e.Data["index"].(float64))
			if d["type"] == "text_delta" {
				parts[i] += d["text"].(string)
			} else {
				parts[i] += d["partial_json"].(string)
			}
		case "message_delta":
			stop = e.Data["delta"].(map[string]any)["stop_reason"].(string)
			out = e.Data["usage"].(map[string]any)["output_tokens"].(float64)
		}
	}
	if len(names) < 2 || names[0] != "message_start" || names[len(names)-1] != "message_stop" || names[len(names)-2] != "message_delta" {
		t.Errorf("events %v: want message_start ... message_delta, message_stop", names)
	}
	for i := 0; i < len(kinds); i++ {
		blocks = append(blocks, kinds[i]+": "+parts[i])
	}
	return blocks, stop, in, out
}

func TestServerStreamsTheScript(t *testing.T) {
	srv := claudetest.NewServer(t,
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Let me look — ✓"), claudetest.Bash("ls -la")},
			Usage: claudetest.Usage{InputTokens: 120, OutputTokens: 30}, Want: "do the task"},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write("/w/a.txt", "a\n"), claudetest.Edit("/w/b.txt", "x", "y")},
			StopReason: "max_tokens", Want: "blocked by hook"},
		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Done.")}},
	)
	tests := []struct {
		body   string
		blocks []string
		stop   string
		in     float64
		out    float64
	}{
		{body(true, prompt, env), []string{"text: Let me look — ✓", `tool_use Bash: {"command":"ls -la","description":"run ls"}`}, "tool_use", 120, 30},
		{body(false, `{"role":"user","content":"write a title"}`), []string{"text: claudetest: side request"}, "end_turn", 1, 1},
		{body(true, prompt, called, result), []string{`tool_use Write: {"content":"a\n","file_path":"/w/a.txt"}`,
			`tool_use Edit: {"file_path":"/w/b.txt","new_string":"y","old_string":"x"}`}, "max_tokens", 0, 0},
		{body(true, prompt, called, result), []string{"text: Done."}, "end_turn", 0, 0},
	}
	for i, tc := range tests {
		status, events := post(t, srv.URL(), "/v1/messages?beta=true", tc.body)
		if status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, status)
		}
		blocks, stop, in, out := message(t, events)
		if diff := cmp.Diff(tc.blocks, blocks); diff != "" {
			t.Errorf("request %d: blocks (-want +got):\n%s", i, diff)
		}
		if stop != tc.stop || in != tc.in || out != tc.out {
			t.Errorf("request %d: stop %q, usage %v/%v; want %q, %v/%v", i, stop, in, out, tc.stop, tc.in, tc.out)
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left", srv.Remaining())
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !reqs[1].Side || reqs[1].Turn != -1 || reqs[2].Turn != 1 {
		t.Fatalf("requests recorded: %+v", reqs)
	}
	turns := srv.Turns()
	if len(turns) != 3 || turns[0] != reqs[0] || turns[1] != reqs[2] {
		t.Fatalf("turns: %+v", turns)
	}
	first := turns[0]
	if first.Prompt() != "<system-reminder>x</system-reminder>\ndo the task" || first.Last().Role != "user" ||
		first.Model != "m" || first.MaxTokens != 100 || first.System != "sys" || first.Path != "/v1/messages?beta=true" {
		t.Errorf("first request: %+v, prompt %q", first, first.Prompt())
	}
	want := []claudetest.Content{{Type: "tool_result", ToolUseID: "t1", Text: "blocked by hook", IsError: true}}
	if diff := cmp.Diff(want, turns[1].ToolResults()); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

func TestServerOtherEndpoints(t *testing.T) {
	srv := claudetest.NewServer(t)
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{http.MethodHead, "/api/hello", 200},
		{http.MethodPost, "/v1/messages/count_tokens", 200},
		{http.MethodGet, "/v1/models", 404},
	} {
		req, _ := http.NewRequest(c.method, srv.URL()+c.path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, resp.StatusCode, c.status)
		}
	}
	want := []string{"HEAD /api/hello", "POST /v1/messages/count_tokens", "GET /v1/models"}
	if diff := cmp.Diff(want, srv.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	env := srv.Env()
	if env["ANTHROPIC_BASE_URL"] != srv.URL() || env["ANTHROPIC_API_KEY"] == "" || !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Errorf("env %v for %s", env, srv.URL())
	}
	if ex := srv.Executor(); ex.Env["ANTHROPIC_BASE_URL"] != srv.URL() {
		t.Errorf("executor env %v", ex.Env)
	}
}

// A script that is wrong fails the test loudly, and Claude Code gets an HTTP
// error it does not retry.
func TestServerMalformedScripts(t *testing.T) {
	tests := []struct {
		name     string
		script   []claudetest.Turn
		requests int
		status   int    // of the last request
		failure  string // in the test failures
	}{
		{"empty turn", []claudetest.Turn{{}}, 1, 400, "turn 0: the turn has no content blocks"},
		{"unknown block", []claudetest.Turn{{Blocks: []claudetest.Block{{Type: "image"}}}}, 1, 400, `unknown block type "image"`},
		{"tool without a name", []claudetest.Turn{{Blocks: []claudetest.Block{{Type: "tool_use"}}}}, 1, 400, "without a tool name"},
		{"beyond the script", []claudetest.Turn{{Blocks: []claudetest.Block{claudetest.Text("a")}}}, 2, 400, "beyond the script's 1 turns"},
		{"unmet want", []claudetest.Turn{{Blocks: []claudetest.Block{claudetest.Text("a")}, Want: "not there"}}, 1, 200, `does not contain "not there"`},
		{"unmet expectation", []claudetest.Turn{{Blocks: []claudetest.Block{claudetest.Text("a")},
			Expect: func(*claudetest.Request) error { return errors.New("wrong prompt") }}}, 1, 200, "turn 0: wrong prompt"},
		{"a body that does not decode", nil, 1, 400, "does not decode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ftb := &fakeTB{TB: t}
			srv := claudetest.NewServer(ftb, tc.script...)
			var status int
			for range tc.requests {
				b := body(true, prompt)
				if tc.script == nil {
					b = "{"
				}
				status, _ = post(t, srv.URL(), "/v1/messages", b)
			}
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			f := ftb.failures()
			if len(f) == 0 || !strings.Contains(strings.Join(f, "\n"), tc.failure) {
				t.Errorf("failures %q, want one with %q", f, tc.failure)
			}
		})
	}
}
