package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
)

// toolUse is a tool call the model made, as the stream shows it.
type toolUse struct {
	ID, Name string
	// Command is a Bash call's command; Path the file of an edit.
	Command, Path string
}

// toolResult is what Claude Code answered a tool call with.
type toolResult struct {
	IsError bool
	Text    string
}

// resultEvent is the stream's last event: the session's outcome.
type resultEvent struct {
	Subtype        string     `json:"subtype"`
	IsError        bool       `json:"is_error"`
	Result         string     `json:"result"`
	Usage          *wireUsage `json:"usage"`
	TotalCostUSD   float64    `json:"total_cost_usd"`
	APIErrorStatus *int       `json:"api_error_status"`
	Errors         []string   `json:"errors"`
}

type wireUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// usage counts cached input as input: the model read it, and the run's token
// budget is about what the model read and wrote.
func (u *wireUsage) usage() executor.Usage {
	if u == nil {
		return executor.Usage{}
	}
	return executor.Usage{InputTokens: u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens: u.OutputTokens}
}

// event is one line of `claude -p --output-format stream-json --verbose`.
// Its message is decoded only for the events that carry a conversation
// message: other events (system notices, hook events) use the same key for
// other things, such as a string.
type event struct {
	Type    string          `json:"type"`
	Message json.RawMessage `json:"message"`
	resultEvent
}

// message is the message of an assistant or a user event.
type message struct {
	ID      string     `json:"id"`
	Content []block    `json:"content"`
	Usage   *wireUsage `json:"usage"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type toolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
}

// stream parses Claude Code's stream-json as it is written. It is an
// io.Writer fed by the process's stdout; its snapshot is taken once the
// process has ended.
type stream struct {
	mu      sync.Mutex
	lines   *agent.LineWriter
	line    int
	err     error // the first line that does not parse
	uses    []toolUse
	results map[string]toolResult
	usage   map[string]executor.Usage // per message ID: the last report
	order   []string
	result  *resultEvent
	// watch is told each Bash command's outcome and each turn; may be nil.
	watch    func(executor.Activity)
	commands map[string]string // Bash tool_use ID -> command, until its result
	turn     string            // the ID of the message of the turn going on
	acted    bool              // the turn called a tool
}

// endTurn tells the watcher that the turn going on ended.
func (s *stream) endTurn() {
	if s.turn != "" && s.watch != nil {
		s.watch(executor.Activity{Turn: true, Acted: s.acted})
	}
	s.turn, s.acted = "", false
}

func newStream() *stream {
	s := &stream{results: map[string]toolResult{}, usage: map[string]executor.Usage{}}
	s.lines = agent.NewLineWriter(s.parse)
	return s
}

// Write parses every complete line in p. It never fails, so the process's
// output is never cut short.
func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines.Write(p)
}

// Close parses a last line that had no newline.
func (s *stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines.Flush()
	return nil
}

func (s *stream) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *stream) parse(line []byte) {
	s.line++
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var e event
	if err := json.Unmarshal(line, &e); err != nil {
		s.fail(fmt.Errorf("line %d of the stream does not parse: %w: %.200q", s.line, err, line))
		return
	}
	var m message
	if e.Type == "assistant" || e.Type == "user" {
		if err := json.Unmarshal(e.Message, &m); err != nil {
			s.fail(fmt.Errorf("line %d of the stream: the %s message does not decode: %w", s.line, e.Type, err))
			return
		}
	}
	switch e.Type {
	case "assistant":
		// Claude Code writes a message's blocks as events of their own,
		// under the message's ID: a new ID is a new turn.
		if m.ID != s.turn {
			s.endTurn()
			s.turn = m.ID
		}
		if m.Usage != nil && m.ID != "" {
			if _, seen := s.usage[m.ID]; !seen {
				s.order = append(s.order, m.ID)
			}
			s.usage[m.ID] = m.Usage.usage()
		}
		for _, b := range m.Content {
			if b.Type != "tool_use" {
				continue
			}
			u := toolUse{ID: b.ID, Name: b.Name}
			var in toolInput
			_ = json.Unmarshal(b.Input, &in) // a tool we do not judge may take any input
			s.acted = true
			switch b.Name {
			case "Bash":
				u.Command = in.Command
				if s.watch != nil && b.ID != "" {
					if s.commands == nil {
						s.commands = map[string]string{}
					}
					s.commands[b.ID] = in.Command
				}
			case "Write", "Edit", "MultiEdit", "NotebookEdit":
				u.Path = in.FilePath
				if u.Path == "" {
					u.Path = in.NotebookPath
				}
			}
			s.uses = append(s.uses, u)
		}
	case "user":
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				r := toolResult{IsError: b.IsError, Text: contentText(b.Content)}
				s.results[b.ToolUseID] = r
				if cmd, ok := s.commands[b.ToolUseID]; ok {
					delete(s.commands, b.ToolUseID)
					s.watch(executor.Activity{Command: cmd, Result: fmt.Sprint(r.IsError, "\n", r.Text)})
				}
			}
		}
	case "result":
		s.endTurn()
		r := e.resultEvent
		s.result = &r
	}
}

// contentText flattens a tool result's content, a string or text blocks.
func contentText(raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b bytes.Buffer
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// snapshot is what the stream showed, read once the process has ended.
type snapshot struct {
	err     error
	uses    []toolUse
	results map[string]toolResult
	result  *resultEvent
	// usage is the result's, or what the messages reported so far when
	// there is no result.
	usage executor.Usage
}

func (s *stream) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lines.Long {
		s.fail(fmt.Errorf("a line of the stream is longer than %d bytes", agent.MaxLine))
	}
	snap := snapshot{err: s.err, uses: append([]toolUse(nil), s.uses...), results: s.results, result: s.result}
	if s.result != nil && s.result.Usage != nil {
		snap.usage = s.result.Usage.usage()
		snap.usage.CostUSD = s.result.TotalCostUSD
	} else {
		for _, id := range s.order {
			snap.usage = snap.usage.Add(s.usage[id])
		}
		if s.result != nil {
			snap.usage.CostUSD = s.result.TotalCostUSD
		}
	}
	return snap
}

var _ io.WriteCloser = (*stream)(nil)

// rejected starts the result of a tool call Claude Code refused before
// running it, and before its PreToolUse hooks: input that fails validation,
// an Edit of a file not read, an unknown tool. (A command that ran and
// failed answers "Exit code N" instead.)
const rejected = "<tool_use_error>"

// calls returns the commands and edits the model asked Claude Code to run,
// for the hook check: all but those rejected before the hooks. pending says
// whether to count a call that has no result in the stream.
func (s snapshot) calls(pending bool) []agent.Call {
	var out []agent.Call
	for _, u := range s.uses {
		if u.Command == "" && u.Path == "" {
			continue
		}
		r, done := s.results[u.ID]
		if !done && !pending || done && r.IsError && strings.HasPrefix(strings.TrimSpace(r.Text), rejected) {
			continue
		}
		out = append(out, agent.Call{Command: u.Command, Path: u.Path})
	}
	return out
}

// filesChanged returns the files the edit tools changed (their calls did not
// fail), relative to root and slash-separated, in the order first changed.
// Files outside root are left out: the loop audits the working tree only.
func (s snapshot) filesChanged(root string) []string {
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	var out []string
	seen := map[string]bool{}
	for _, u := range s.uses {
		r, done := s.results[u.ID]
		if u.Path == "" || !done || r.IsError {
			continue
		}
		for _, root := range roots {
			p := u.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			rel, err := filepath.Rel(root, p)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			if rel = filepath.ToSlash(rel); !seen[rel] {
				seen[rel] = true
				out = append(out, rel)
			}
			break
		}
	}
	return out
}
