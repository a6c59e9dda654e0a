package guardrail

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// EnvHookLog names the file that `harnish hook` appends a [HookRecord] to for
// every call it answers. An executor that runs an agent sets it, then reads
// the log back with [ReadHookLog] to learn what its hooks blocked and to check
// that they ran at all: an agent CLI may skip a hook silently (an untrusted
// hook in Codex, one that fails to start in Claude Code), so a command in the
// agent's stream that the log does not show ran unguarded.
const EnvHookLog = "HARNISH_HOOK_LOG"

// The events of a [HookRecord].
const (
	HookPreToolUse = "pre-tool-use"
	HookStop       = "stop"
)

// HookRecord is one call a hook answered. Its JSON form is one line of the
// hook log.
type HookRecord struct {
	Time time.Time `json:"time"`
	// Event is [HookPreToolUse] or [HookStop].
	Event string `json:"event"`
	// Agent is the agent whose hook it was: "claude" or "codex".
	Agent string `json:"agent"`
	// Tool is the tool the agent was about to call, on pre-tool-use.
	Tool string `json:"tool,omitempty"`
	// Command is the shell command of a shell tool call.
	Command string `json:"command,omitempty"`
	// Path is the file of an edit tool call.
	Path string `json:"path,omitempty"`
	// Decision is the verdict on a pre-tool-use call: the most severe of its
	// actions'. A hook that could not judge the call blocks it, recorded as
	// [Hard] with rule "hook.error".
	Decision Decision `json:"decision"`
	// Refused is set on a stop the hook refused because the task's checks
	// fail; Reason says which.
	Refused bool   `json:"refused,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// AppendHookRecord appends r to the hook log at path as one line, written
// with a single write so hooks running side by side do not interleave.
func AppendHookRecord(path string, r HookRecord) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("guardrail: hook log record: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("guardrail: hook log: %w", err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("guardrail: hook log %s: %w", path, werr)
	}
	return nil
}

// ReadHookLog reads the records of the hook log at path, in order. A file
// that does not exist holds no records. A line that does not decode is an
// error naming the file and line, except a last line without its newline,
// which a hook killed mid-write leaves: it is skipped unless it decodes whole.
func ReadHookLog(path string) ([]HookRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("guardrail: hook log: %w", err)
	}
	// A last line without its newline is a hook killed mid-write: a record
	// only if it decodes whole.
	var torn []byte
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data, torn = data[:i+1], data[i+1:]
	}
	var out []HookRecord
	n := 0
	for line := range bytes.Lines(data) {
		n++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r HookRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return out, fmt.Errorf("guardrail: %s:%d: %w", path, n, err)
		}
		out = append(out, r)
	}
	var r HookRecord
	if len(torn) > 0 && json.Unmarshal(torn, &r) == nil {
		out = append(out, r)
	}
	return out, nil
}
