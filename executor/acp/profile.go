package acp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The agents with a profile.
const (
	Gemini = "gemini"
	Claude = "claude"
	Codex  = "codex"
)

// Profile is how to start one ACP agent and what to expect of it.
type Profile struct {
	// Program is the agent's program, looked up in PATH; [Executor.Command]
	// replaces it.
	Program string
	// Args are the arguments that make it speak ACP, before the model's.
	Args []string
	// ModelArgs returns the arguments that select model; nil when the agent
	// takes its model from the environment (see ModelEnv).
	ModelArgs func(model string) []string
	// ModelEnv is the variable that selects the model, when ModelArgs is nil.
	ModelEnv string
	// Setup prepares the attempt's fresh home directory and returns the
	// variables the agent needs beyond HOME: a config directory in it, the
	// workarounds of its traps. tmp is a directory of the attempt's own
	// outside home; model is the model asked for, "" for the default.
	Setup func(home, tmp, model string) (env map[string]string, err error)
	// CommandInTitle says that a permission request for a command carries
	// the command only as its title (Gemini CLI); otherwise a command is
	// read from the tool call's raw input, and a call without one cannot be
	// judged.
	CommandInTitle bool
	// RefuseInteractive refuses a shell or REPL started without a script,
	// as the hooks do for Codex: what the agent types into it later reaches
	// no permission request.
	RefuseInteractive bool
}

// profiles are the agents harnish knows by name.
var profiles = map[string]Profile{
	// Gemini CLI 0.61 (@google/gemini-cli): asks before its shell and its
	// edit tools, writes and reads files through the client, runs its shell
	// itself. Without GEMINI_CLI_NO_RELAUNCH the launcher spawns the real
	// agent as a child, and killing the launcher would leave it working.
	Gemini: {
		Program:        "gemini",
		Args:           []string{"--acp"},
		ModelArgs:      func(m string) []string { return []string{"-m", m} },
		CommandInTitle: true,
		Setup: func(home, _, _ string) (map[string]string, error) {
			settings := map[string]any{
				"privacy":   map[string]any{"usageStatisticsEnabled": false},
				"telemetry": map[string]any{"enabled": false},
			}
			if err := writeJSON(filepath.Join(home, ".gemini", "settings.json"), settings); err != nil {
				return nil, err
			}
			return map[string]string{"GEMINI_CLI_NO_RELAUNCH": "true"}, nil
		},
	},
	// claude-code-acp 0.16 (@zed-industries/claude-code-acp): asks before
	// each tool, runs commands through the client's terminal and writes
	// through fs/write_text_file (its tools are mcp__acp__Bash, ...Write,
	// ...Edit, ...Read: the built-in ones are turned off). It picks its
	// model from the user settings' "model", offered as a custom model when
	// ANTHROPIC_MODEL names it too. Its NotebookEdit tool writes to the disk
	// itself, so it is denied. As root Claude Code accepts IS_SANDBOX
	// only as "1", while the adapter takes any value for a sandbox.
	Claude: {
		Program:  "claude-code-acp",
		ModelEnv: "ANTHROPIC_MODEL",
		Setup: func(home, _, model string) (map[string]string, error) {
			config := filepath.Join(home, ".claude")
			// NotebookEdit writes to the disk itself, not through
			// fs/write_text_file: denied, so every write is judged.
			settings := map[string]any{"permissions": map[string]any{"deny": []string{"NotebookEdit"}}}
			if model != "" {
				settings["model"] = model
			}
			if err := writeJSON(filepath.Join(config, "settings.json"), settings); err != nil {
				return nil, err
			}
			env := map[string]string{"CLAUDE_CONFIG_DIR": config, "DISABLE_AUTOUPDATER": "1"}
			if v, ok := os.LookupEnv("IS_SANDBOX"); ok && v != "1" {
				env["IS_SANDBOX"] = "1"
			}
			return env, nil
		},
	},
	// codex-acp 0.16 (@zed-industries/codex-acp): runs commands and patches
	// itself, asking first only under approval_policy "untrusted"; its
	// default sandbox needs bubblewrap, so harnish's mediation is its
	// sandbox. Its helpers stay out of /tmp when TMPDIR holds CODEX_HOME,
	// hence a TMPDIR beside it.
	Codex: {
		Program: "codex-acp",
		Args: []string{"-c", `approval_policy="untrusted"`, "-c", `sandbox_mode="danger-full-access"`,
			"-c", "check_for_update_on_startup=false"},
		ModelArgs:         func(m string) []string { return []string{"-c", "model=" + quoteTOML(m)} },
		RefuseInteractive: true,
		Setup: func(home, tmp, _ string) (map[string]string, error) {
			codexHome := filepath.Join(home, ".codex")
			tmpdir := filepath.Join(tmp, "tmp")
			for _, d := range []string{codexHome, tmpdir} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					return nil, err
				}
			}
			return map[string]string{"CODEX_HOME": codexHome, "TMPDIR": tmpdir}, nil
		},
	},
}

// Lookup returns the profile of the agent named; false when harnish has
// none.
func Lookup(agent string) (Profile, bool) {
	p, ok := profiles[agent]
	return p, ok
}

// Agents returns the names of the agents with a profile, sorted.
func Agents() []string {
	var names []string
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func quoteTOML(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a TOML basic string
	return string(b)
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("acp: %w", err)
	}
	return os.WriteFile(path, b, 0o600)
}
