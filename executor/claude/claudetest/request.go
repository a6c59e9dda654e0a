package claudetest

import (
	"encoding/json"
	"strings"
)

// Request is one POST /v1/messages the server received, decoded.
type Request struct {
	// Path is the URL path with its query ("/v1/messages?beta=true").
	Path string
	// Model is the model asked for.
	Model string
	// MaxTokens is the request's max_tokens.
	MaxTokens int
	// System is the system prompt, its text blocks joined by newlines.
	System string
	// Tools are the names of the tools the request declares.
	Tools []string
	// Messages is the conversation so far.
	Messages []Message
	// Turn is the index of the script turn that answered it, or -1 for a
	// side request (see [Server]) or one the script could not answer.
	Turn int
	// Side marks a side request, answered without consuming the script.
	Side bool
	// Body is the request body as sent.
	Body []byte
}

// Message is one message of a request's conversation.
type Message struct {
	Role    string
	Content []Content
}

// Content is one content block of a message.
type Content struct {
	// Type is "text", "tool_use", "tool_result" or another block type.
	Type string
	// Text is a text block's text, or a tool result's content as text.
	Text string
	// ID is a tool_use block's ID; ToolUseID the one a tool_result answers.
	ID, ToolUseID string
	// Name and Input are a tool_use block's tool and input.
	Name  string
	Input json.RawMessage
	// IsError marks a tool result that reports an error (a failed command,
	// a call a hook blocked).
	IsError bool
}

// Text returns the message's text: its text blocks and tool results, one
// per line.
func (m Message) Text() string {
	var parts []string
	for _, c := range m.Content {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Prompt returns the text of the conversation's first user message: what
// Claude Code was asked to do (behind any reminders it puts first).
func (r *Request) Prompt() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Text()
		}
	}
	return ""
}

// Last returns the conversation's last user message: for the first turn the
// prompt, for a later one the tool results or the hook feedback Claude Code
// sends back. (Claude Code puts a message of its own with role "system",
// describing the environment, after the first.)
func (r *Request) Last() Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	return Message{}
}

// ToolResults returns the tool results of the last message.
func (r *Request) ToolResults() []Content {
	var out []Content
	for _, c := range r.Last().Content {
		if c.Type == "tool_result" {
			out = append(out, c)
		}
	}
	return out
}

// wireRequest is the part of a Messages API request the server reads.
type wireRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Tools     []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// decodeRequest decodes a Messages API request body.
func decodeRequest(path string, body []byte) (*Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, err
	}
	r := &Request{Path: path, Model: w.Model, MaxTokens: w.MaxTokens, Turn: -1, Body: body}
	r.System = textOf(w.System)
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, t.Name)
	}
	for _, m := range w.Messages {
		r.Messages = append(r.Messages, Message{Role: m.Role, Content: blocksOf(m.Content)})
	}
	return r, nil
}

// blocksOf decodes message content, given as a string or as blocks.
func blocksOf(raw json.RawMessage) []Content {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Content{{Type: "text", Text: s}}
	}
	var ws []wireBlock
	if json.Unmarshal(raw, &ws) != nil {
		return nil
	}
	out := make([]Content, 0, len(ws))
	for _, w := range ws {
		c := Content{Type: w.Type, Text: w.Text, ID: w.ID, Name: w.Name, Input: w.Input,
			ToolUseID: w.ToolUseID, IsError: w.IsError}
		if w.Type == "tool_result" {
			c.Text = textOf(w.Content)
		}
		out = append(out, c)
	}
	return out
}

// textOf flattens a string or a list of blocks to its text.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	for _, c := range blocksOf(raw) {
		if c.Text != "" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}
