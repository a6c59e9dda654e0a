package geminitest_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor/acp/geminitest"
)

const request = `{"contents":[{"role":"user","parts":[{"text":"do it"}]},
{"role":"model","parts":[{"functionCall":{"name":"write_file","args":{"file_path":"a"}}}]},
{"role":"user","parts":[{"functionResponse":{"name":"write_file","response":{"output":"written"}}}]}],
"systemInstruction":{"parts":[{"text":"be good"}]},
"tools":[{"functionDeclarations":[{"name":"run_shell_command"},{"name":"write_file"}]}]}`

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// sse decodes the data lines of a Server-Sent Events body.
func sse(t *testing.T, body string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimRight(sc.Text(), "\r"), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("an event that does not decode: %v: %s", err, data)
		}
		out = append(out, m)
	}
	return out
}

func TestServer(t *testing.T) {
	srv := geminitest.NewServer(t,
		geminitest.Turn{Parts: []geminitest.Part{geminitest.Text("Hello."), geminitest.Shell("ls")},
			Usage: geminitest.Usage{PromptTokens: 7, CandidatesTokens: 3}, Want: "written"},
		geminitest.Turn{Status: 404},
	)
	stream := srv.URL() + "/v1beta/models/m1:streamGenerateContent?alt=sse"
	resp, body := post(t, stream, request)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := sse(t, body)
	var text strings.Builder
	var calls []string
	for _, e := range events {
		c := e["candidates"].([]any)[0].(map[string]any)
		for _, p := range c["content"].(map[string]any)["parts"].([]any) {
			p := p.(map[string]any)
			if s, ok := p["text"].(string); ok {
				text.WriteString(s)
			}
			if f, ok := p["functionCall"].(map[string]any); ok {
				calls = append(calls, f["name"].(string)+" "+f["args"].(map[string]any)["command"].(string))
			}
		}
	}
	last := events[len(events)-1]
	if text.String() != "Hello." || !cmp.Equal(calls, []string{"run_shell_command ls"}) || len(events) != 3 {
		t.Errorf("text %q, calls %v, %d events", text.String(), calls, len(events))
	}
	if u := last["usageMetadata"].(map[string]any); u["promptTokenCount"] != 7.0 || u["totalTokenCount"] != 10.0 {
		t.Errorf("usage %v", u)
	}
	if f := last["candidates"].([]any)[0].(map[string]any)["finishReason"]; f != "STOP" {
		t.Errorf("finishReason %v", f)
	}
	// A side request (no tools) does not take a turn.
	if resp, _ := post(t, srv.URL()+"/v1beta/models/m1:generateContent", `{"contents":[]}`); resp.StatusCode != 200 {
		t.Errorf("side request: %d", resp.StatusCode)
	}
	if resp, body := post(t, stream, request); resp.StatusCode != 404 || !strings.Contains(body, `"code":404`) {
		t.Errorf("an error turn: %d %s", resp.StatusCode, body)
	}
	if resp, _ := post(t, srv.URL()+"/v1beta/other", "{}"); resp.StatusCode != 404 {
		t.Errorf("unknown endpoint: %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	turns := srv.Turns()
	if len(reqs) != 3 || len(turns) != 2 || srv.Remaining() != 0 || !reqs[1].Side {
		t.Fatalf("%d requests, %d turns, %d left", len(reqs), len(turns), srv.Remaining())
	}
	r := turns[0]
	if r.Model != "m1" || r.Method != "streamGenerateContent" || r.Prompt() != "do it\n" || r.System != "be good" ||
		!cmp.Equal(r.Tools, []string{"run_shell_command", "write_file"}) {
		t.Errorf("request %+v", r)
	}
	if fr := r.FunctionResponses(); len(fr) != 1 || fr[0].Name != "write_file" || fr[0].Output() != "written" {
		t.Errorf("function responses %+v", fr)
	}
	if got := srv.Calls(); len(got) != 4 || got[0] != "POST /v1beta/models/m1:streamGenerateContent" {
		t.Errorf("calls %v", got)
	}
}
