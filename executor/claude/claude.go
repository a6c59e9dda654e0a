package claude

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/proc"
)

// DefaultAllowedTools are the tools Claude Code may use without asking when
// [Executor.AllowedTools] is nil: with -p there is nobody to ask, and a tool
// that needs approval is refused. Reading tools need no approval.
var DefaultAllowedTools = []string{"Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"}

// Executor runs Claude Code (`claude -p --output-format stream-json
// --verbose`) for one attempt, in the request's working tree, with the
// prompt on stdin. Claude Code's hooks point back at harnish: every tool
// call passes `harnish hook pre-tool-use --agent claude`, every stop `harnish
// hook stop --agent claude`, which refuses the stop while the task's checks
// fail. The hooks log what they judged (guardrail.EnvHookLog); a command or
// an edit in Claude Code's stream that the log does not show ran unguarded,
// and is reported as a hard violation (rule "hook.unguarded").
//
// Each call gets a fresh, empty HOME (and CLAUDE_CONFIG_DIR), removed
// afterwards, so no user configuration, login or session leaks in or out:
// credentials come from the environment (ANTHROPIC_API_KEY, or whatever Env
// sets).
//
// The agent claims done by ending its session; it claims blocked by ending
// its final message with a line "HARNISH-BLOCKED: <reason>", which the prompt
// tells it.
//
// The zero value is ready to use; an Executor is safe for concurrent use.
type Executor struct {
	// Claude is the Claude Code program. Empty means "claude" from PATH.
	Claude string
	// Harnish is the program the hooks run: harnish, or harnish-hook, which
	// answers the same hook command lines and, linking only what the hooks
	// need, starts in about half the time (it runs before every tool call).
	// Empty means "harnish" from PATH. It is resolved to an absolute path
	// before Claude Code starts.
	Harnish string
	// PlanFile, when set, is passed to the hooks as --plan, so they judge
	// by the plan's guardrails and the stop hook runs its task's checks; a
	// relative path resolves from the working tree. Empty leaves the hooks
	// to find the plan in the working tree.
	PlanFile string
	// Model is passed as --model. Empty means Claude Code's default.
	Model string
	// PermissionMode is passed as --permission-mode ("acceptEdits",
	// "bypassPermissions", ...). Empty passes none. As root, Claude Code
	// refuses "bypassPermissions" unless IS_SANDBOX=1 is in Env.
	PermissionMode string
	// AllowedTools are passed as --allowedTools: the tools Claude Code may
	// use without asking. Nil means [DefaultAllowedTools]; an empty non-nil
	// slice passes none.
	AllowedTools []string
	// Args are more arguments for Claude Code, before the ones the executor
	// sets.
	Args []string
	// Env adds variables to Claude Code's environment (and its hooks'):
	// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, IS_SANDBOX.
	Env map[string]string
	// TranscriptDir, when set, keeps each attempt's stream there, as
	// claude-<task>-<attempt>-*.jsonl, named in [executor.Result.Transcript].
	TranscriptDir string
	// Logger receives a line per attempt at debug level. Nil means silence.
	Logger *slog.Logger
}

// Execute runs Claude Code for one attempt.
func (e *Executor) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	if req.Task == nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: errors.New("claude: the request has no task")}
	}
	claude, err := agent.LookPath(e.Claude, "claude")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}
	harnish, err := agent.LookPath(e.Harnish, "harnish")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}
	root, plan, err := agent.Paths(req, e.PlanFile)
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("claude: %w", err)}
	}
	tmp, err := fsx.MkdirTempOwned("", "harnish-claude-")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("claude: %w", err)}
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("claude: %w", err)}
	}
	hookLog := filepath.Join(tmp, "hooks.jsonl")

	argv := append([]string{claude}, e.Args...)
	argv = append(argv, "-p", "--output-format", "stream-json", "--verbose", "--no-session-persistence",
		"--settings", string(agent.Settings(agent.Hooks{
			PreToolUse: agent.HookCommand(harnish, "pre-tool-use", "claude", plan),
			Stop:       agent.HookCommand(harnish, "stop", "claude", plan),
			Timeout:    agent.HookTimeout(ctx, req.Limits.Deadline),
		})))
	tools := e.AllowedTools
	if tools == nil {
		tools = DefaultAllowedTools
	}
	if len(tools) > 0 {
		// One argument with "=": --allowedTools takes a list and would
		// swallow the words after it.
		argv = append(argv, "--allowedTools="+strings.Join(tools, ","))
	}
	if e.PermissionMode != "" {
		argv = append(argv, "--permission-mode", e.PermissionMode)
	}
	if e.Model != "" {
		argv = append(argv, "--model", e.Model)
	}

	env := agent.SortedEnv(e.Env)
	env = append(env, "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"DISABLE_AUTOUPDATER=1")
	inTree := *req
	inTree.WorkDir = root
	env = append(env, agent.Env(&inTree, hookLog)...)

	st := newStream()
	st.watch = req.Watch
	out, transcript, closeTranscript, err := agent.Transcript(e.TranscriptDir, "claude", req, st)
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}
	if e.Logger != nil {
		e.Logger.Debug("claude: starting", "task", req.Task.ID, "attempt", req.Attempt, "dir", root)
	}
	run, runErr := proc.Run(ctx, proc.Spec{Stage: "execute", Argv: argv, Root: root, Env: env,
		Stdin: strings.NewReader(agent.WithBlockedInstruction(req.Prompt)), Stdout: out})
	closeTranscript(agent.EndOf(run, runErr))
	st.Close()
	snap := st.snapshot()

	var pe *proc.Error
	errors.As(runErr, &pe)
	if pe != nil && (pe.Kind == proc.KindStart || pe.Kind == proc.KindConfined) {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Tail: agent.Tail(run.Output), Err: runErr}
	}
	// A call killed mid-way has no result yet, and its hook may have been
	// killed before it could log: only calls that came back count then.
	killed := pe != nil && (pe.Kind == proc.KindTimeout || pe.Kind == proc.KindCanceled)
	violations := agent.CheckLog(hookLog, snap.calls(!killed), root)
	fail := func(kind executor.ErrorKind, err error) (*executor.Result, error) {
		return nil, &executor.Error{Kind: kind, Tail: agent.Tail(run.Output), Usage: snap.usage,
			Violations: violations, Err: err}
	}
	switch {
	case runErr != nil && errors.Is(ctx.Err(), context.Canceled):
		// Cancelled, not timed out: the caller stopped the run, and nothing
		// should retry it.
		return nil, executor.Cancelled("claude", ctx)
	case killed:
		return fail(executor.KindTimeout, runErr)
	case snap.result != nil && snap.result.IsError:
		return fail(resultKind(snap.result), resultError(snap.result))
	case snap.err != nil && runErr != nil:
		return fail(executor.KindCrashed, runErr)
	case snap.err != nil:
		return fail(executor.KindProtocol, fmt.Errorf("claude: %w", snap.err))
	case runErr != nil:
		return fail(executor.KindCrashed, runErr)
	case snap.result == nil:
		return fail(executor.KindProtocol, errors.New("claude: the stream ended without a result event"))
	}
	res := &executor.Result{Status: executor.StatusDone, Summary: strings.TrimSpace(snap.result.Result),
		FilesChanged: snap.filesChanged(root), Transcript: transcript, Usage: snap.usage, Violations: violations}
	res.Decisions, res.OpenQuestions, res.Blocker = agent.Notes(snap.result.Result)
	if reason, ok := agent.Blocked(snap.result.Result); ok {
		res.Status, res.Reason = executor.StatusBlocked, reason
	}
	return res, nil
}

// resultKind classifies a result event that reports an error: a refused
// credential will be refused on every attempt; anything else may pass.
func resultKind(r *resultEvent) executor.ErrorKind {
	if s := r.APIErrorStatus; s != nil && (*s == 401 || *s == 403) {
		return executor.KindUnavailable
	}
	return executor.KindCrashed
}

func resultError(r *resultEvent) error {
	msg := strings.TrimSpace(r.Result)
	if msg == "" {
		msg = strings.Join(r.Errors, "; ")
	}
	if r.APIErrorStatus != nil {
		msg = fmt.Sprintf("API error status %d: %s", *r.APIErrorStatus, msg)
	}
	return fmt.Errorf("claude: the session ended in error (%s): %s", r.Subtype, msg)
}
