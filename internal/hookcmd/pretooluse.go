package hookcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/cli"
)

// hookInput is the part of a PreToolUse call harnish reads; Claude Code and
// Codex send the same shape.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	Cwd           string          `json:"cwd"`
}

// toolInput holds the tool_input fields of the tools harnish judges.
type toolInput struct {
	Command      string `json:"command"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
}

// decodeHookCall decodes a PreToolUse call: the actions it asks for and the
// call itself, as far as it decoded.
func decodeHookCall(r io.Reader) ([]guardrail.Action, hookInput, error) {
	var in hookInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput+1))
	if err != nil {
		return nil, in, fmt.Errorf("reading the hook input: %w", err)
	}
	if len(data) > maxHookInput {
		return nil, in, fmt.Errorf("the hook input is larger than %d bytes", maxHookInput)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, in, fmt.Errorf("decoding the hook input: %w", err)
	}
	if in.ToolName == "" {
		return nil, in, errors.New("the hook input has no tool_name")
	}
	var ti toolInput
	if len(in.ToolInput) > 0 && string(in.ToolInput) != "null" {
		if err := json.Unmarshal(in.ToolInput, &ti); err != nil {
			return nil, in, fmt.Errorf("decoding tool_input of %s: %w", in.ToolName, err)
		}
	}
	switch in.ToolName {
	case "Bash", "exec_command", "shell", "local_shell":
		if ti.Command == "" {
			return nil, in, fmt.Errorf("%s call without tool_input.command", in.ToolName)
		}
		acts := []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: ti.Command}}
		for _, p := range applyPatchPaths(ti.Command) {
			acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: p})
		}
		return acts, in, nil
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		p := ti.FilePath
		if p == "" {
			p = ti.NotebookPath
		}
		if p == "" {
			return nil, in, fmt.Errorf("%s call without a file path", in.ToolName)
		}
		return []guardrail.Action{{Kind: guardrail.KindEdit, Path: p}}, in, nil
	case "apply_patch":
		// Codex's freeform patch tool: tool_input.command is the patch itself,
		// without the word apply_patch.
		paths := patchFilePaths(ti.Command)
		if len(paths) == 0 {
			return nil, in, fmt.Errorf("%s call names no file in tool_input.command", in.ToolName)
		}
		var acts []guardrail.Action
		for _, p := range paths {
			acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: p})
		}
		return acts, in, nil
	}
	return nil, in, nil
}

var applyPatchFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$`)
})

// applyPatchPaths returns the files an apply_patch command (Codex's way of
// editing files through its shell tool) adds, updates, deletes or moves.
func applyPatchPaths(command string) []string {
	if !strings.Contains(command, "apply_patch") {
		return nil
	}
	return patchFilePaths(command)
}

// patchFilePaths returns the files a patch in apply_patch's format adds,
// updates, deletes or moves.
func patchFilePaths(patch string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(patch))
	sc.Buffer(nil, maxHookInput)
	for sc.Scan() {
		if m := applyPatchFile().FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
			out = append(out, strings.TrimSpace(m[1]))
		}
	}
	return out
}

// hookPreToolUse is "harnish hook pre-tool-use". Every call it answers is
// appended to the hook log that $HARNISH_HOOK_LOG names, when it names one, so
// the executor that started the agent can tell what was blocked and that the
// hook ran at all.
func hookPreToolUse(args []string, stdin io.Reader, stderr io.Writer) int {
	var call hookInput
	var acts []guardrail.Action
	agent := ""
	verdict := func(d guardrail.Decision, msg string) int {
		if logPath := os.Getenv(guardrail.EnvHookLog); logPath != "" {
			r := guardrail.HookRecord{Time: time.Now().UTC(), Event: guardrail.HookPreToolUse, Agent: agent,
				Tool: call.ToolName, Decision: d}
			if call.ToolName == "apply_patch" {
				// The patch names every file it edits; the executor reads them back.
				r.Command = patchInput(call)
			}
			for _, a := range acts {
				if a.Kind == guardrail.KindCommand && r.Command == "" {
					r.Command = a.Command
				} else if a.Kind == guardrail.KindEdit && r.Path == "" {
					r.Path = a.Path
				}
			}
			if err := guardrail.AppendHookRecord(logPath, r); err != nil {
				// An unlogged call would look unguarded to the executor; say so and block.
				fmt.Fprintf(stderr, "harnish: %v\n", err)
				return ExitBlock
			}
		}
		fmt.Fprint(stderr, msg)
		if d.Level == guardrail.Hard {
			return ExitBlock
		}
		return cli.ExitOK
	}
	block := func(format string, a ...any) int {
		reason := fmt.Sprintf(format, a...)
		return verdict(guardrail.Decision{Level: guardrail.Hard, Rule: "hook.error", Reason: reason}, "harnish: "+reason+"\n")
	}
	fs := flag.NewFlagSet("hook pre-tool-use", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&agent, "agent", "", "claude or codex")
	planFile := fs.String("plan", "", "plan file")
	rest, err := cli.ParseFlags(fs, args)
	switch {
	case err != nil:
	case len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q", rest[0])
	case agent != "claude" && agent != "codex":
		err = fmt.Errorf("--agent %q: want claude or codex", agent)
	}
	if err != nil {
		return block("hook pre-tool-use: %v", err)
	}
	acts, call, err = decodeHookCall(stdin)
	if err != nil {
		return block("cannot judge the tool call: %v", err)
	}
	if len(acts) == 0 {
		return verdict(guardrail.Decision{}, "")
	}
	root, err := hookRoot(call.Cwd)
	if err != nil {
		return block("cannot judge the tool call: %v", err)
	}
	// The directory the call runs in: Codex passes a command's own workdir,
	// which may be below the working tree (or elsewhere).
	cwd := call.Cwd
	if cwd == "" {
		cwd = root
	} else if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(root, cwd)
	}
	plan, _, err := cli.LoadPlan(*planFile, root)
	if err != nil {
		return block("cannot judge the tool call: the plan does not load: %v", err)
	}
	cmdCfg := cli.CommandConfig(plan, root)
	// What Codex types into a session later (write_stdin) never reaches a
	// hook: a bare shell or REPL is refused itself. Claude Code's Bash
	// tool gives a command no terminal to read.
	cmdCfg.RefuseInteractive = agent == "codex"
	cmds, err := guardrail.NewCommandGuard(cmdCfg)
	if err != nil {
		return block("cannot judge the tool call: %v", err)
	}
	editCfg, err := cli.EditConfig(plan, "", os.DirFS(root))
	if err != nil {
		return block("cannot judge the tool call: %v", err)
	}
	edits, err := guardrail.NewEditGuard(editCfg)
	if err != nil {
		return block("cannot judge the tool call: %v", err)
	}
	g := guardrail.All(cmds, edits)
	var worst guardrail.Decision
	var warnings strings.Builder
	for _, a := range acts {
		orig := a.Command
		if a.Kind == guardrail.KindCommand && filepath.Clean(cwd) != filepath.Clean(root) {
			// The command guard resolves paths against the root and follows
			// cd: say where the command runs.
			a.Command = "cd " + shellQuote(cwd) + " && {\n" + a.Command + "\n}"
		}
		if a.Kind == guardrail.KindEdit {
			p := a.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			rel, inTree := relativeTo(root, p)
			if !inTree {
				continue // outside the working tree: not the edit rules' business
			}
			a.Path = rel
		}
		d := guardrail.Evaluate(context.Background(), g, a)
		switch d.Level {
		case guardrail.Hard:
			msg := fmt.Sprintf("harnish guardrail %s blocked this: %s", d.Rule, d.Reason)
			if d.Match != "" && d.Match != a.Command && d.Match != orig {
				msg += fmt.Sprintf(" (in %q)", d.Match)
			}
			return verdict(d, msg+"\n")
		case guardrail.Soft:
			fmt.Fprintf(&warnings, "harnish guardrail %s warns: %s\n", d.Rule, d.Reason)
			if worst.Level == guardrail.Allow {
				worst = d
			}
		}
	}
	return verdict(worst, warnings.String())
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// patchInput returns the patch of an apply_patch call.
func patchInput(call hookInput) string {
	var ti toolInput
	_ = json.Unmarshal(call.ToolInput, &ti) // decoded once already
	return ti.Command
}

// relativeTo returns p relative to root, slash-separated, and whether it is
// inside root.
func relativeTo(root, p string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
