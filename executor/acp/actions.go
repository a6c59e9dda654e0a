package acp

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/linediff"
)

// actions are what a tool call the agent asks about would do, for the
// guardrail: the command of an execute call, the edits of an edit, delete
// or move call. Other calls (reads, searches, thinking) do nothing harnish
// judges, as the hooks allow tools they do not judge. A call that should
// carry an action but shows none cannot be judged: an error.
func (s *session) actions(c *toolCall) ([]guardrail.Action, error) {
	switch c.kind {
	case acpsdk.ToolKindExecute:
		cmd := rawCommand(c.rawInput)
		if cmd == "" && s.profile.CommandInTitle {
			cmd = c.title
		}
		if strings.TrimSpace(cmd) == "" {
			return nil, errors.New("acp: a command tool call whose command harnish cannot read")
		}
		return []guardrail.Action{{Kind: guardrail.KindCommand, Command: cmd}}, nil
	case acpsdk.ToolKindEdit, acpsdk.ToolKindDelete, acpsdk.ToolKindMove:
		return s.editActions(c)
	}
	return nil, nil
}

// rawCommand reads the command of a tool call's raw input: its "command"
// (or "cmd"), a string or an argv; an argv that runs a shell script
// ("bash -lc SCRIPT") is the script.
func rawCommand(raw any) string {
	m, ok := raw.(map[string]any)
	if !ok {
		return ""
	}
	v, ok := m["command"]
	if !ok {
		v = m["cmd"]
	}
	switch v := v.(type) {
	case string:
		return v
	case []any:
		argv := make([]string, 0, len(v))
		for _, w := range v {
			s, ok := w.(string)
			if !ok {
				return ""
			}
			argv = append(argv, s)
		}
		if len(argv) == 3 && isShell(argv[0]) && (argv[1] == "-c" || argv[1] == "-lc") {
			return argv[2]
		}
		return commandLine(argv[0], argv[1:])
	}
	return ""
}

func isShell(p string) bool {
	switch path.Base(p) {
	case "sh", "bash", "zsh", "dash":
		return true
	}
	return false
}

// commandLine is program and args as one shell line: a program without
// args is a whole line already (claude-code-acp sends it so).
func commandLine(program string, args []string) string {
	if len(args) == 0 {
		return program
	}
	words := []string{shellQuote(program)}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// editActions are the edits of a call: its diffs, else Codex's changes in
// its raw input, else the paths of its locations alone.
func (s *session) editActions(c *toolCall) ([]guardrail.Action, error) {
	var acts []guardrail.Action
	for _, ct := range c.content {
		if d := ct.Diff; d != nil {
			rel, err := s.rel(d.Path)
			if err != nil {
				return nil, err
			}
			old := ""
			if d.OldText != nil {
				old = *d.OldText
			}
			acts = append(acts, editAction(rel, old, d.OldText != nil, d.NewText))
		}
	}
	if len(acts) > 0 {
		return acts, nil
	}
	if m, ok := c.rawInput.(map[string]any); ok {
		if changes, ok := m["changes"].(map[string]any); ok {
			return s.codexChanges(changes)
		}
		if acts, err := s.rawEdits(m); err != nil || len(acts) > 0 {
			return acts, err
		}
	}
	for _, l := range c.locations {
		rel, err := s.rel(l.Path)
		if err != nil {
			return nil, err
		}
		acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: rel})
	}
	if len(acts) == 0 {
		return nil, fmt.Errorf("acp: a %s tool call that names no file", c.kind)
	}
	return acts, nil
}

// rawEdits reads the edits of a tool's own input, when the call's diffs
// have not been shown (claude-code-acp's permission request carries only
// the input; its tool_call update may come with an empty one): a file_path
// (or path) with the new content, one old_string → new_string, or a list
// of those under edits.
func (s *session) rawEdits(m map[string]any) ([]guardrail.Action, error) {
	p, _ := m["file_path"].(string)
	if p == "" {
		p, _ = m["path"].(string)
	}
	if p == "" {
		return nil, nil
	}
	rel, err := s.rel(p)
	if err != nil {
		return nil, err
	}
	if content, ok := m["content"].(string); ok {
		old, exists, err := s.readFile(rel)
		if err != nil {
			return nil, err
		}
		return []guardrail.Action{editAction(rel, old, exists, content)}, nil
	}
	edits, _ := m["edits"].([]any)
	if len(edits) == 0 {
		edits = []any{m}
	}
	var acts []guardrail.Action
	for _, e := range edits {
		e, _ := e.(map[string]any)
		old, _ := e["old_string"].(string)
		upd, ok := e["new_string"].(string)
		if !ok {
			continue
		}
		acts = append(acts, editAction(rel, old, true, upd))
	}
	if len(acts) == 0 { // a path and nothing harnish reads as content: the path alone
		acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: rel})
	}
	return acts, nil
}

// codexChanges reads codex-acp's patch changes: path → {"type": "add",
// "content"} | {"type": "delete", "content"} | {"type": "update",
// "unified_diff", "move_path"}.
func (s *session) codexChanges(changes map[string]any) ([]guardrail.Action, error) {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var acts []guardrail.Action
	for _, p := range paths {
		rel, err := s.rel(p)
		if err != nil {
			return nil, err
		}
		ch, _ := changes[p].(map[string]any)
		content, _ := ch["content"].(string)
		switch ch["type"] {
		case "add":
			acts = append(acts, editAction(rel, "", false, content))
		case "delete":
			acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: rel,
				Diff: fileHeader(rel, "") + linediff.Unified(content, "", 0)})
		case "update":
			diff, _ := ch["unified_diff"].(string)
			to := rel
			if mv, ok := ch["move_path"].(string); ok && mv != "" {
				if to, err = s.rel(mv); err != nil {
					return nil, err
				}
			}
			if !strings.HasPrefix(diff, "--- ") {
				diff = fileHeader(rel, to) + diff
			}
			acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: to, Diff: diff})
		default:
			acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: rel})
		}
	}
	return acts, nil
}

// editAction is writing content over old (exists false: a new file) at
// rel, as a diff of the lines that change.
func editAction(rel, old string, exists bool, content string) guardrail.Action {
	from := rel
	if !exists {
		from = ""
	}
	return guardrail.Action{Kind: guardrail.KindEdit, Path: rel,
		Diff: fileHeader(from, rel) + linediff.Unified(old, content, 0)}
}

// fileHeader starts a file's diff, "" standing for /dev/null.
func fileHeader(from, to string) string {
	return "--- " + diffPath("a/", from) + "\n+++ " + diffPath("b/", to) + "\n"
}

func diffPath(prefix, p string) string {
	if p == "" {
		return "/dev/null"
	}
	if strings.HasPrefix(p, `"`) || strings.IndexFunc(p, func(r rune) bool {
		return r == '\\' || r == '"' || r == '\t' || !unicode.IsPrint(r)
	}) >= 0 {
		return strconv.Quote(prefix + p)
	}
	return prefix + p
}
