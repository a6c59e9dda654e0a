package geminitest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is one generateContent request as the server received it.
type Request struct {
	// Model is the model named in the path (models/MODEL:method).
	Model string
	// Method is "streamGenerateContent" or "generateContent".
	Method string
	// Contents are the conversation so far, oldest first.
	Contents []Content
	// System is the text of the system instruction.
	System string
	// Tools are the names of the functions the request declares.
	Tools []string
	// Turn is the index of the scripted turn that answered the request; -1
	// for a side request (one that declares no tools).
	Turn int
	// Side marks a request that declares no tools: not the agent loop's, so
	// it was answered without consuming the script.
	Side bool
	// Body is the request's body as it came.
	Body []byte
}

// Content is one message of the conversation.
type Content struct {
	// Role is "user" or "model".
	Role  string
	Parts []RequestPart
}

// RequestPart is one part of a message: text, a function call the model
// made, or the response to one.
type RequestPart struct {
	Text             string
	FunctionCall     *FunctionCall
	FunctionResponse *FunctionResponse
}

// FunctionResponse is what the agent sent back for a function call.
type FunctionResponse struct {
	Name     string
	Response map[string]any
}

// Output is the response's "output" text, where Gemini CLI puts a tool's
// result; else its "error" text.
func (f *FunctionResponse) Output() string {
	for _, k := range []string{"output", "error"} {
		if s, ok := f.Response[k].(string); ok {
			return s
		}
	}
	b, _ := json.Marshal(f.Response)
	return string(b)
}

// Prompt returns the text of the first user message that is not a
// function response: the prompt the agent was given.
func (r *Request) Prompt() string {
	for _, c := range r.Contents {
		if c.Role == "user" {
			if s := c.text(); s != "" {
				return s
			}
		}
	}
	return ""
}

// Text returns the text of every message, function responses included, in
// order: what a Want is looked for in.
func (r *Request) Text() string {
	var b strings.Builder
	for _, c := range r.Contents {
		b.WriteString(c.text())
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				b.WriteString(p.FunctionResponse.Output())
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// FunctionResponses returns the function responses of the request's last
// message.
func (r *Request) FunctionResponses() []*FunctionResponse {
	if len(r.Contents) == 0 {
		return nil
	}
	var out []*FunctionResponse
	for _, p := range r.Contents[len(r.Contents)-1].Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

func (c Content) text() string {
	var b strings.Builder
	for _, p := range c.Parts {
		if p.Text != "" {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

type wireRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text         string `json:"text"`
			FunctionCall *struct {
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				Name     string         `json:"name"`
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// decodeRequest decodes the body of a request to models/MODEL:METHOD.
func decodeRequest(model, method string, body []byte) (*Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("geminitest: %w", err)
	}
	r := &Request{Model: model, Method: method, Turn: -1, Body: body}
	for _, c := range w.Contents {
		rc := Content{Role: c.Role}
		for _, p := range c.Parts {
			rp := RequestPart{Text: p.Text}
			if f := p.FunctionCall; f != nil {
				rp.FunctionCall = &FunctionCall{Name: f.Name, Args: f.Args}
			}
			if f := p.FunctionResponse; f != nil {
				rp.FunctionResponse = &FunctionResponse{Name: f.Name, Response: f.Response}
			}
			rc.Parts = append(rc.Parts, rp)
		}
		r.Contents = append(r.Contents, rc)
	}
	if s := w.SystemInstruction; s != nil {
		var b strings.Builder
		for _, p := range s.Parts {
			b.WriteString(p.Text)
		}
		r.System = b.String()
	}
	for _, t := range w.Tools {
		for _, f := range t.FunctionDeclarations {
			r.Tools = append(r.Tools, f.Name)
		}
	}
	return r, nil
}
