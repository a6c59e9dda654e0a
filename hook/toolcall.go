package hook

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/harnish/harnish/guardrail"
)

// ToolCall is the PreToolUse payload Claude Code and Codex send: the tool
// the agent is about to call, its input, and the directory it runs in.
type ToolCall struct {
	Event string `json:"hook_event_name"`
	// Tool is the tool's name: Bash (a shell command, Codex's included),
	// Write, Edit, MultiEdit, NotebookEdit, apply_patch (Codex's patch
	// tool), Read, ...; Gemini CLI's run_shell_command, write_file and
	// replace are judged as Bash, Write and Edit.
	Tool string `json:"tool_name"`
	// Input is the tool's input as the agent sent it.
	Input json.RawMessage `json:"tool_input"`
	// Cwd is the directory the call runs in: for Codex, a command's own
	// workdir, which may be below the working tree. Relative paths in the
	// input resolve from it.
	Cwd string `json:"cwd"`
}

// InputError is the error of a hook payload that cannot be judged: it does
// not decode, or lacks what its tool needs (a command, a file). Its message
// is the problem alone, as the agent is told it.
type InputError struct {
	Err error
}

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// toolInput holds the tool_input fields of the tools harnish judges.
type toolInput struct {
	// Command is a shell call's command, or an apply_patch call's patch.
	Command      string
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	// Directory is where Gemini CLI's run_shell_command runs, from the
	// call's directory.
	Directory string
}

// UnmarshalJSON reads a tool's input in the spellings the agents and their
// versions use, so that none of them passes a call unjudged for a name: a
// command as tool_input.command or .cmd (Codex's exec_command), a string
// or an argv list (Codex's shell tool); a patch as .command, .input or
// .patch; and a tool_input that is the command or patch itself, a bare
// JSON string.
func (ti *toolInput) UnmarshalJSON(data []byte) error {
	var bare string
	if json.Unmarshal(data, &bare) == nil {
		*ti = toolInput{Command: bare}
		return nil
	}
	var in struct {
		Command      json.RawMessage `json:"command"`
		Cmd          json.RawMessage `json:"cmd"`
		Input        string          `json:"input"`
		Patch        string          `json:"patch"`
		FilePath     string          `json:"file_path"`
		NotebookPath string          `json:"notebook_path"`
		Directory    string          `json:"directory"`
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*ti = toolInput{FilePath: in.FilePath, NotebookPath: in.NotebookPath, Directory: in.Directory}
	for _, raw := range []json.RawMessage{in.Command, in.Cmd} {
		c, err := commandOf(raw)
		if err != nil {
			return err
		}
		if c != "" {
			ti.Command = c
			return nil
		}
	}
	ti.Command = cmp.Or(in.Input, in.Patch)
	return nil
}

// commandOf returns the command raw holds: a string, or an argv list
// joined as the shell would read it back.
func commandOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil {
		return "", errors.New("command is neither a string nor a list of strings")
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " "), nil
}

// editInput holds the tool_input fields of Claude Code's Write, Edit and
// MultiEdit tools that say what they write. They are read apart from
// toolInput: input that does not decode costs the diff, not the call.
type editInput struct {
	Content *string `json:"content"` // Write
	textEdit
	Edits []textEdit `json:"edits"` // MultiEdit
	// NewSource is the cell source NotebookEdit writes (replace, insert).
	NewSource *string `json:"new_source"`
}

// textEdit is one replacement of Claude Code's Edit and MultiEdit tools.
type textEdit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	// Expected is Gemini CLI's expected_replacements: more than one
	// replaces every occurrence, as replace_all does.
	Expected int `json:"expected_replacements"`
}

// The kinds of tool harnish judges; the others are allowed unjudged.
const (
	toolOther = iota
	toolShell
	toolEdit
	toolPatch
)

func toolKind(name string) int {
	switch canonicalTool(name) {
	case "Bash", "exec_command", "shell", "local_shell":
		return toolShell
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return toolEdit
	case "apply_patch":
		return toolPatch
	}
	return toolOther
}

// canonicalTool returns the tool of Claude Code's or Codex's that another
// agent's tool of the same input is: Gemini CLI's run_shell_command is
// Bash, write_file Write, replace Edit.
func canonicalTool(name string) string {
	switch name {
	case "run_shell_command":
		return "Bash"
	case "write_file":
		return "Write"
	case "replace":
		return "Edit"
	}
	return name
}

// ParseToolCall reads and decodes a PreToolUse payload of at most
// [MaxInput] bytes. A payload that does not decode or names no tool, and a
// call of a tool harnish judges without what it needs (a shell call
// without a command, an edit without a file, a patch naming no file), are
// an [*InputError].
func ParseToolCall(r io.Reader) (*ToolCall, error) {
	c, err := parseToolCall(r)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parseToolCall is ParseToolCall, and on an error the call as far as it
// decoded (nil when it did not), for the hook log.
func parseToolCall(r io.Reader) (*ToolCall, error) {
	if r == nil {
		return nil, &InputError{errors.New("reading the hook input: there is none")}
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, &InputError{fmt.Errorf("reading the hook input: %w", err)}
	}
	if len(data) > MaxInput {
		return nil, &InputError{fmt.Errorf("the hook input is larger than %d bytes", MaxInput)}
	}
	var c ToolCall
	if err := json.Unmarshal(data, &c); err != nil {
		return &c, &InputError{fmt.Errorf("decoding the hook input: %w", err)}
	}
	if c.Tool == "" {
		return &c, &InputError{errors.New("the hook input has no tool_name")}
	}
	if _, err := c.input(); err != nil {
		return &c, err
	}
	return &c, nil
}

// Judged reports whether harnish judges calls of c's tool: shell commands,
// file edits and writes, and patches. Other tools (Read, Grep, WebFetch,
// ...) are allowed unjudged.
func (c *ToolCall) Judged() bool { return toolKind(c.Tool) != toolOther }

// input decodes and checks c's tool input.
func (c *ToolCall) input() (*toolInput, error) {
	var ti toolInput
	if len(c.Input) > 0 && string(c.Input) != "null" {
		if err := json.Unmarshal(c.Input, &ti); err != nil {
			return nil, &InputError{fmt.Errorf("decoding tool_input of %s: %w", c.Tool, err)}
		}
	}
	switch toolKind(c.Tool) {
	case toolShell:
		if ti.Command == "" {
			return nil, &InputError{fmt.Errorf("%s call without tool_input.command", c.Tool)}
		}
	case toolEdit:
		if ti.FilePath == "" && ti.NotebookPath == "" {
			return nil, &InputError{fmt.Errorf("%s call without a file path", c.Tool)}
		}
	case toolPatch:
		if len(patchFilePaths(ti.Command)) == 0 {
			return nil, &InputError{fmt.Errorf("%s call names no file in tool_input.command", c.Tool)}
		}
	}
	return &ti, nil
}

// command returns the shell command of a shell call, or the patch of an
// apply_patch call, as the agent wrote it; "" for other tools.
func (c *ToolCall) command() string {
	if k := toolKind(c.Tool); k != toolShell && k != toolPatch {
		return ""
	}
	ti, err := c.input()
	if err != nil {
		return ""
	}
	return ti.Command
}

// patch returns tool_input.command as far as it decodes: the patch of an
// apply_patch call.
func (c *ToolCall) patch() string {
	var ti toolInput
	_ = json.Unmarshal(c.Input, &ti) // what decodes is the record's
	return ti.Command
}

// paths returns the files the call edits, as the agent named them: the
// edit tools' file, the files a patch names.
func (c *ToolCall) paths() []string {
	ti, err := c.input()
	if err != nil {
		return nil
	}
	switch toolKind(c.Tool) {
	case toolShell:
		return applyPatchPaths(ti.Command)
	case toolEdit:
		if ti.FilePath != "" {
			return []string{ti.FilePath}
		}
		return []string{ti.NotebookPath}
	case toolPatch:
		return patchFilePaths(ti.Command)
	}
	return nil
}

// dir returns the directory the call runs in, in the working tree at root.
func (c *ToolCall) dir(root string) string {
	switch {
	case c.Cwd == "":
		return root
	case filepath.IsAbs(c.Cwd):
		return filepath.Clean(c.Cwd)
	}
	return filepath.Join(root, c.Cwd)
}

// Actions returns what the call would do in the working tree at root (an
// absolute path), for a guardrail to judge, in this order:
//
//   - a shell call: the command, for bash; when the call runs elsewhere
//     than root, as "cd DIR && {\n" + command + "\n}", since the command
//     rules resolve paths from the root and follow cd. Then each package
//     install it names ([guardrail.Installs]), and each file an apply_patch
//     command in it edits, as for the apply_patch tool.
//   - Write, Edit, MultiEdit: an edit of the file, with the change as a
//     unified diff against the file in the tree (a new file when there is
//     none; the replaced text alone when the tree's file does not hold it).
//     NotebookEdit: an edit of the notebook whose diff adds the cell's new
//     source (path only for a deleted cell).
//   - apply_patch: an edit per file the patch adds, updates, moves or
//     deletes, each with its part of the patch as a unified diff (a move:
//     a rename diff on the new path).
//
// An edit's Path is relative to root and slash-separated; an edit of a
// file outside root is judged as the shell write it amounts to (cat >
// PATH <<EOF with the text written: the system's files and devices are
// refused, and a secret written is judged as a command's is). Other
// tools ask for nothing. An input that does not decode is an
// [*InputError].
func (c *ToolCall) Actions(root string) ([]guardrail.Action, error) {
	ti, err := c.input()
	if err != nil {
		return nil, err
	}
	dir := c.dir(root)
	t := tree{root: root}
	switch toolKind(c.Tool) {
	case toolShell:
		if ti.Directory != "" {
			dir = resolve(dir, ti.Directory)
		}
		cmd := guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: ti.Command}
		acts := guardrail.Installs(cmd)
		if filepath.Clean(dir) != filepath.Clean(root) {
			cmd.Command = "cd " + shellQuote(dir) + " && {\n" + ti.Command + "\n}"
		}
		acts = append([]guardrail.Action{cmd}, acts...)
		if strings.Contains(ti.Command, "apply_patch") {
			acts = append(acts, t.patchEdits(dir, ti.Command)...)
		}
		return acts, nil
	case toolEdit:
		p := ti.FilePath
		if p == "" {
			p = ti.NotebookPath
		}
		var ei editInput
		decoded := json.Unmarshal(c.Input, &ei) == nil
		abs := resolve(dir, p)
		links := t.throughLinks(t.realRoot(), abs, ei.written())
		rel, ok := relativeTo(root, abs)
		if !ok {
			return append(outsideWrite(abs, ei.written()), links...), nil
		}
		a := guardrail.Action{Kind: guardrail.KindEdit, Path: rel}
		if !decoded {
			return append([]guardrail.Action{a}, links...), nil
		}
		switch canonicalTool(c.Tool) {
		case "Write":
			if ei.Content != nil {
				a.Diff = t.writeDiff(rel, *ei.Content)
			}
		case "Edit":
			a.Diff = t.editDiff(rel, []textEdit{ei.textEdit})
		case "MultiEdit":
			if len(ei.Edits) > 0 {
				a.Diff = t.editDiff(rel, ei.Edits)
			}
		case "NotebookEdit":
			if ei.NewSource != nil && *ei.NewSource != "" {
				a.Diff = fragmentDiff(rel, *ei.NewSource)
			}
		}
		return append([]guardrail.Action{a}, links...), nil
	case toolPatch:
		return t.patchEdits(dir, ti.Command), nil
	}
	return nil, nil
}

// outsideWrite returns what an edit of a file outside the working tree,
// writing text into it, is judged as: the shell write it amounts to (cat >
// PATH, with text as its here-document), so that the command rules judge a
// Write of /etc/hosts as they judge echo > /etc/hosts (sys.files for the
// system's own files, sys.disk for a device), and a key written into
// ~/.aws/credentials as they judge one a command writes there.
func outsideWrite(abs, text string) []guardrail.Action {
	cmd := "cat > " + shellQuote(filepath.ToSlash(abs))
	if text != "" {
		lines, delim := "\n"+text+"\n", "HARNISH_EOF"
		for n := 1; strings.Contains(lines, "\n"+delim+"\n"); n++ {
			delim = "HARNISH_EOF" + strconv.Itoa(n)
		}
		cmd += " <<'" + delim + "'\n" + strings.TrimSuffix(text, "\n") + "\n" + delim
	}
	return []guardrail.Action{{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: cmd}}
}

// written returns the text an edit tool's call puts into its file: Write's
// content, Edit's and MultiEdit's new strings, NotebookEdit's new source.
func (ei *editInput) written() string {
	var parts []string
	if ei.Content != nil {
		parts = append(parts, *ei.Content)
	}
	if ei.NewSource != nil {
		parts = append(parts, *ei.NewSource)
	}
	parts = append(parts, ei.NewString)
	for _, e := range ei.Edits {
		parts = append(parts, e.NewString)
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n")
}

// throughLinks returns what writing text into the file at abs (absolute,
// as the call names it) also is when symbolic links on its way lead
// elsewhere: an edit of the file they lead to in the tree, judged by its
// path (a link to .git/config is .git/config's protection), or the write
// outside the tree it amounts to. None when no link changes where it is.
// realRoot is [tree.realRoot], worked out once for a call's files.
func (t tree) throughLinks(realRoot, abs, text string) []guardrail.Action {
	real, ok := realPath(abs)
	if !ok {
		return nil
	}
	realRel, in := relativeTo(realRoot, real)
	lexRel, lexIn := relativeTo(t.root, abs)
	switch {
	case in && lexIn && realRel == lexRel:
		return nil
	case in:
		return []guardrail.Action{{Kind: guardrail.KindEdit, Path: realRel}}
	case lexIn || real != filepath.Clean(abs):
		return outsideWrite(real, text)
	}
	return nil
}

// realRoot returns the tree's root with its symbolic links resolved (the
// root as given when they cannot be).
func (t tree) realRoot() string {
	if r, err := filepath.EvalSymlinks(t.root); err == nil {
		return r
	}
	return t.root
}

// realPath returns abs with the symbolic links of its longest existing
// part resolved, and whether that could be done.
func realPath(abs string) (string, bool) {
	p, rest := filepath.Clean(abs), ""
	for range 256 {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	return "", false
}

// resolve returns p, made absolute from dir when it is relative.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
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

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
