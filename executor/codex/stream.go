package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
)

// event is one line of codex exec --json: a thread event. Only the fields
// harnish reads are decoded.
type event struct {
	Type  string `json:"type"`
	Item  *item  `json:"item"`
	Usage *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

type item struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Text    string `json:"text"`
	Command string `json:"command"`
	Output  string `json:"aggregated_output"`
	Status  string `json:"status"`
	Exit    *int   `json:"exit_code"`
	Changes []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"changes"`
}

// stream is what the event stream told so far.
type stream struct {
	root      string
	final     string // the last agent message
	commands  []string
	seenCmd   map[string]bool // item IDs of the commands recorded
	files     []string
	seenFile  map[string]bool
	usage     executor.Usage
	completed int    // turn.completed events
	failed    string // the last turn.failed or error message
	bad       string // the first line that does not parse
	lines     int
	// sandboxed is whether commands run in Codex's sandbox; when they do,
	// suspect is set by the first one whose output looks like the sandbox
	// failing to start, and onSuspect (when set) is called then.
	sandboxed   bool
	suspect     *SandboxError
	onSuspect   func()
	patchFailed bool // a patch failed (Codex says nothing of why)
	acted       bool // a tool call since the last turn
	// watch is told each command that ran to its end; may be nil.
	watch func(executor.Activity)
}

func newStream(root string) *stream {
	return &stream{root: root, seenCmd: map[string]bool{}, seenFile: map[string]bool{}}
}

// line reads one line of the stream.
func (s *stream) line(b []byte) {
	s.lines++
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	var e event
	if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
		if s.bad == "" {
			s.bad = fmt.Sprintf("line %d: %.200q", s.lines, b)
		}
		return
	}
	switch e.Type {
	case "turn.completed":
		s.completed++
		if s.watch != nil {
			s.watch(executor.Activity{Turn: true, Acted: s.acted})
		}
		s.acted = false
		if e.Usage != nil {
			s.usage = s.usage.Add(executor.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens})
		}
	case "turn.failed":
		if e.Error != nil {
			s.failed = e.Error.Message
		}
	case "error":
		s.failed = e.Message
	case "item.started", "item.updated", "item.completed":
		if e.Item != nil {
			s.item(e.Type, e.Item)
		}
	}
}

func (s *stream) item(typ string, it *item) {
	switch it.Type {
	case "agent_message":
		if typ == "item.completed" {
			s.final = it.Text
		}
	case "command_execution", "file_change", "mcp_tool_call":
		s.acted = true
	}
	switch it.Type {
	case "command_execution":
		// A command that started counts, whether or not it completed: once
		// per item ID. An item without an ID counts each time it shows (an
		// extra call the hook did not see is unguarded, not hidden).
		if it.Command != "" && (it.ID == "" || !s.seenCmd[it.ID]) {
			if it.ID != "" {
				s.seenCmd[it.ID] = true
			}
			s.commands = append(s.commands, unwrapShell(it.Command))
		}
		if typ == "item.completed" && s.watch != nil && it.Command != "" {
			exit := "?"
			if it.Exit != nil {
				exit = fmt.Sprint(*it.Exit)
			}
			s.watch(executor.Activity{Command: unwrapShell(it.Command), Result: it.Status + " " + exit + "\n" + it.Output})
		}
		if typ == "item.completed" && it.Status == "failed" && s.sandboxed && s.suspect == nil {
			if msg, ok := sandboxFailure(it.Command, it.Output); ok {
				s.suspect = &SandboxError{Command: unwrapShell(it.Command), Message: msg}
				if s.onSuspect != nil {
					s.onSuspect()
				}
			}
		}
	case "file_change":
		if typ != "item.completed" {
			return
		}
		if it.Status == "failed" {
			s.patchFailed = true
			return
		}
		for _, c := range it.Changes {
			p := c.Path
			if filepath.IsAbs(p) {
				if rel, err := filepath.Rel(s.root, p); err == nil && filepath.IsLocal(rel) {
					p = rel
				}
			}
			p = filepath.ToSlash(p)
			if !s.seenFile[p] {
				s.seenFile[p] = true
				s.files = append(s.files, p)
			}
		}
	}
}

// filesChanged returns the files changed inside the working tree: what
// [executor.Result.FilesChanged] holds. Changes outside it stay in files,
// for the hook check, but are not the tree's.
func (s *stream) filesChanged() []string {
	var out []string
	for _, f := range s.files {
		if filepath.IsLocal(filepath.FromSlash(f)) {
			out = append(out, f)
		}
	}
	return out
}

// calls returns the tool calls the stream shows, for the hook check.
func (s *stream) calls() []agent.Call {
	var out []agent.Call
	for _, c := range s.commands {
		out = append(out, agent.Call{Command: c})
	}
	for _, f := range s.files {
		out = append(out, agent.Call{Path: f})
	}
	return out
}

// unwrapShell returns the script of a command Codex reports as the shell it
// ran it with ("/bin/bash -lc 'ls -la'" -> "ls -la"), which is what its
// hooks see; any other command comes back as it is.
func unwrapShell(command string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) != 1 {
		return command
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(call.Args) != 3 || len(f.Stmts[0].Redirs) > 0 {
		return command
	}
	var words [3]string
	for i, w := range call.Args {
		if words[i], ok = literal(w); !ok {
			return command
		}
	}
	switch filepath.Base(words[0]) {
	case "bash", "sh", "zsh", "dash":
	default:
		return command
	}
	if words[1] != "-lc" && words[1] != "-c" {
		return command
	}
	return words[2]
}

// literal returns the value of a word made of plain text and quotes only.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescape removes the backslashes of an unquoted word.
func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that escape inside double quotes.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
