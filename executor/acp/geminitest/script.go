package geminitest

import (
	"errors"
	"fmt"
)

// Turn is the model's answer to one scripted request: the parts of one
// candidate, streamed in order.
type Turn struct {
	// Parts are the candidate's content; at least one.
	Parts []Part
	// FinishReason is the candidate's finishReason. Empty means "STOP".
	FinishReason string
	// Usage is the usage metadata the turn reports.
	Usage Usage
	// Status, when set, answers the request with an API error of this HTTP
	// status instead (400 and 404 are not retried by Gemini CLI; 429 and
	// 5xx are, for minutes). Parts are not needed then.
	Status int
	// Want, when set, must occur in the text of the request (see
	// [Request.Text]), or the test fails.
	Want string
	// Expect, when set, checks the request the turn answers; an error fails
	// the test. The turn is answered either way.
	Expect func(*Request) error
}

// Usage is the token usage a turn reports, as usageMetadata.
type Usage struct {
	PromptTokens     int64
	CandidatesTokens int64
}

// Part is one part of a turn: text, or a function call. Build it with
// [Text], [Call], [Shell], [WriteFile] or [Replace].
type Part struct {
	// Text is the text of a text part.
	Text string
	// Call is the function a function-call part calls; nil for text.
	Call *FunctionCall
}

// FunctionCall is a call of one of the agent's tools.
type FunctionCall struct {
	Name string
	Args map[string]any
}

// Text is a text part.
func Text(s string) Part { return Part{Text: s} }

// Call is a call of any tool with the given arguments.
func Call(name string, args map[string]any) Part {
	return Part{Call: &FunctionCall{Name: name, Args: args}}
}

// Shell is a call of Gemini CLI's shell tool, run_shell_command.
func Shell(command string) Part {
	return Call("run_shell_command", map[string]any{"command": command, "description": "run a command"})
}

// WriteFile is a call of Gemini CLI's write_file tool. Gemini CLI resolves
// a relative path against its working directory.
func WriteFile(path, content string) Part {
	return Call("write_file", map[string]any{"file_path": path, "content": content})
}

// Replace is a call of Gemini CLI's replace tool: old replaced by new in the
// file at path, which must hold old exactly once.
func Replace(path, old, new string) Part {
	return Call("replace", map[string]any{"file_path": path, "old_string": old, "new_string": new,
		"instruction": "replace the text"})
}

func (t Turn) finishReason() string {
	if t.FinishReason != "" {
		return t.FinishReason
	}
	return "STOP"
}

// validate says what is wrong with a turn, if anything.
func (t Turn) validate() error {
	if len(t.Parts) == 0 && t.Status == 0 {
		return errors.New("the turn has no parts")
	}
	for i, p := range t.Parts {
		switch {
		case p.Call != nil && p.Call.Name == "":
			return fmt.Errorf("part %d: a function call without a name", i)
		case p.Call != nil && p.Text != "":
			return fmt.Errorf("part %d: both text and a function call", i)
		}
	}
	return nil
}
