package agent

import (
	"encoding/json"
	"strings"
)

// HookCommand returns the shell command line an agent's hook runs to call
// harnish: "<harnish> hook <event> --agent <agent> [--plan <planFile>]",
// each word quoted for a POSIX shell. event is "pre-tool-use" or "stop".
func HookCommand(harnish, event, agent, planFile string) string {
	words := []string{harnish, "hook", event, "--agent", agent}
	if planFile != "" {
		words = append(words, "--plan", planFile)
	}
	for i, w := range words {
		words[i] = ShellQuote(w)
	}
	return strings.Join(words, " ")
}

// ShellQuote quotes s as one word for a POSIX shell; a word made of safe
// characters only is left as it is.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Hooks are the hook commands an agent is started with. Claude Code and
// Codex read the same shape.
type Hooks struct {
	// PreToolUse runs before every tool call; empty means none.
	PreToolUse string
	// Stop runs when the agent wants to stop; empty means none.
	Stop string
	// Timeout bounds each hook, in seconds; zero leaves the agent's default.
	Timeout int
}

type hookEntry struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

type hookMatcher struct {
	// Matcher is omitted for Stop, which has no tool to match.
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []hookEntry `json:"hooks"`
}

// Settings returns the hook settings as JSON: {"hooks": {"PreToolUse":
// [{"matcher": "*", "hooks": [{"type": "command", "command": ...}]}],
// "Stop": [...]}}. The pre-tool-use hook matches every tool, so a tool
// harnish does not judge is still logged and allowed rather than unseen.
func Settings(h Hooks) []byte {
	hooks := map[string][]hookMatcher{}
	if h.PreToolUse != "" {
		hooks["PreToolUse"] = []hookMatcher{{Matcher: "*", Hooks: []hookEntry{{Type: "command", Command: h.PreToolUse, Timeout: h.Timeout}}}}
	}
	if h.Stop != "" {
		hooks["Stop"] = []hookMatcher{{Hooks: []hookEntry{{Type: "command", Command: h.Stop, Timeout: h.Timeout}}}}
	}
	data, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		panic("agent: hook settings: " + err.Error()) // plain strings and ints always marshal
	}
	return data
}
