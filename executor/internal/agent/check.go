package agent

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
)

// RuleUnguarded is the rule of the hard violation for a tool call the agent's
// stream shows but the pre-tool-use hook never judged.
const RuleUnguarded = "hook.unguarded"

// Call is a tool call the agent's own event stream shows it made: a shell
// command, or an edit of a file (for an edit made by an apply_patch command,
// the path alone).
type Call struct {
	// Command is the shell command as the model wrote it (unwrapped from
	// the shell the agent runs it with).
	Command string
	// Path is the file an edit tool changed; relative paths are relative to
	// the root given to [Check].
	Path string
}

// Check compares what the hooks logged with what the agent did, and returns
// the violations of the attempt, in this order: each pre-tool-use record the
// hook judged hard or soft, as a hard or soft violation with the record's
// rule and reason; then a hard [RuleUnguarded] violation for each call that
// no pre-tool-use record shows, since such a call ran without harnish's
// guard (a hook an agent skipped silently, or one that never started).
//
// A command call is seen when a record has the same command, and each
// record sees one call: n calls of a command need n records. An edit is seen
// when a record names the same file as its path, or is an apply_patch
// command or a call of Codex's apply_patch tool (Tool "apply_patch", the
// patch as its command) whose patch names it, again one record per edit. root is the working tree, against which
// relative paths resolve.
func Check(records []guardrail.HookRecord, calls []Call, root string) []executor.Violation {
	var out []executor.Violation
	// How many times the hook judged each command and each file: each call
	// the stream shows takes one.
	commands := map[string]int{}
	paths := map[string]int{}
	for _, r := range records {
		if r.Event != guardrail.HookPreToolUse {
			continue
		}
		var patched []string
		switch {
		case r.Tool == "apply_patch":
			// Codex's patch tool: the record's command is the patch.
			patched = patchFiles(r.Command)
		case r.Command != "":
			commands[r.Command]++
			patched = patchPaths(r.Command)
		}
		for _, p := range patched {
			paths[absPath(root, p)]++
		}
		if r.Path != "" && len(patched) == 0 {
			paths[absPath(root, r.Path)]++ // a patch's record names its first file as its path too
		}
		if r.Decision.Level == guardrail.Allow {
			continue
		}
		action := r.Command
		if action == "" {
			action = r.Path
		}
		out = append(out, executor.Violation{Hard: r.Decision.Level >= guardrail.Hard, Rule: r.Decision.Rule,
			Reason: r.Decision.Reason, Action: action})
	}
	for _, c := range calls {
		switch {
		case c.Command != "" && commands[c.Command] > 0:
			commands[c.Command]--
		case c.Command == "" && c.Path != "" && paths[absPath(root, c.Path)] > 0:
			paths[absPath(root, c.Path)]--
		case c.Command != "":
			out = append(out, executor.Violation{Hard: true, Rule: RuleUnguarded, Action: c.Command,
				Reason: "the agent ran a command harnish's pre-tool-use hook never judged: its hooks did not run"})
		case c.Path != "":
			out = append(out, executor.Violation{Hard: true, Rule: RuleUnguarded, Action: c.Path,
				Reason: "the agent changed a file through a tool call harnish's pre-tool-use hook never judged: its hooks did not run"})
		}
	}
	return out
}

var patchFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$`)
})

// patchPaths returns the files an apply_patch command names.
func patchPaths(command string) []string {
	if !strings.Contains(command, "apply_patch") {
		return nil
	}
	return patchFiles(command)
}

// patchFiles returns the files a patch in apply_patch's format names.
func patchFiles(patch string) []string {
	var out []string
	for _, m := range patchFile().FindAllStringSubmatch(patch, -1) {
		out = append(out, m[1])
	}
	return out
}

func absPath(root, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}

// CheckLog reads the hook log at path and checks it against calls, as
// [Check] does. A log that does not read leaves the hooks unproven: one more
// hard [RuleUnguarded] violation, naming the log.
func CheckLog(path string, calls []Call, root string) []executor.Violation {
	records, err := guardrail.ReadHookLog(path)
	violations := Check(records, calls, root)
	if err != nil {
		violations = append(violations, executor.Violation{Hard: true, Rule: RuleUnguarded, Action: path,
			Reason: "the hook log does not read, so whether the hooks ran is unknown: " + err.Error()})
	}
	return violations
}
