package claudetest

import (
	"errors"
	"fmt"
	"strings"
)

// Turn is the model's answer to one scripted request: the content blocks of
// one assistant message, streamed in order.
type Turn struct {
	// Blocks are the message's content; at least one.
	Blocks []Block
	// StopReason is the message's stop_reason. Empty means "tool_use" when a
	// block calls a tool, else "end_turn".
	StopReason string
	// Usage is what the message reports it spent. Claude Code adds it up and
	// prices it in the result's total_cost_usd.
	Usage Usage
	// Want, when set, must occur in the text of the request's last user
	// message (see [Request.Last]), or the test fails.
	Want string
	// Expect, when set, checks the request the turn answers; an error fails
	// the test. The turn is answered either way, so the run goes on and the
	// test sees everything that followed.
	Expect func(*Request) error
}

// Usage is the token usage a turn reports.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// Block is one content block of a turn: text, or a tool call. Build it with
// [Text], [Bash], [Write], [Edit] or [ToolUse].
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is the text of a text block.
	Text string
	// Name is the tool a tool_use block calls ("Bash", "Write", "Edit", ...).
	Name string
	// Input is the tool's input, marshalled to JSON.
	Input map[string]any
}

// Text is a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// ToolUse is a call of any tool with the given input.
func ToolUse(name string, input map[string]any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// Bash is a call of Claude Code's Bash tool.
func Bash(command string) Block {
	return ToolUse("Bash", map[string]any{"command": command, "description": "run " + firstWord(command)})
}

// Write is a call of the Write tool. Claude Code wants an absolute path and
// refuses a relative one.
func Write(path, content string) Block {
	return ToolUse("Write", map[string]any{"file_path": path, "content": content})
}

// Edit is a call of the Edit tool, replacing old by new in the file at the
// absolute path. Claude Code refuses to edit a file it has not read in the
// session unless it wrote it.
func Edit(path, old, new string) Block {
	return ToolUse("Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new})
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return s
}

// stopReason returns the turn's stop_reason.
func (t Turn) stopReason() string {
	if t.StopReason != "" {
		return t.StopReason
	}
	for _, b := range t.Blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// validate says what is wrong with a turn, if anything.
func (t Turn) validate() error {
	if len(t.Blocks) == 0 {
		return errors.New("the turn has no content blocks")
	}
	for i, b := range t.Blocks {
		switch b.Type {
		case "text":
		case "tool_use":
			if b.Name == "" {
				return fmt.Errorf("block %d: a tool_use block without a tool name", i)
			}
		default:
			return fmt.Errorf("block %d: unknown block type %q (want text or tool_use)", i, b.Type)
		}
	}
	return nil
}
