package codex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/proc"
)

// The sandbox modes of Codex ([Executor.Sandbox]).
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
	SandboxFullAccess     = "danger-full-access"
)

// Executor runs the Codex CLI for one attempt:
//
//	codex exec --json --skip-git-repo-check --dangerously-bypass-hook-trust
//	  -C WORKDIR -s SANDBOX -c approval_policy="APPROVAL" [provider and model] -
//
// with the prompt on stdin, in a fresh temporary CODEX_HOME whose hooks.json
// points back at harnish, and a TMPDIR of the run's own beside it (see "The
// sandbox" in the package doc). The agent and its hooks get the HARNISH_*
// variables of the attempt and HARNISH_HOOK_LOG.
//
// The final agent message is the summary; a line "HARNISH-BLOCKED: <reason>"
// in it claims blocked (the prompt tells the agent so), anything else claims
// done. FilesChanged lists the files Codex's own patches changed; what a
// shell command wrote is not in Codex's stream (the loop audits the real
// diff). Usage adds up the turns' input and output tokens. A run that
// crashes, times out or prints a stream that does not parse is an
// [*executor.Error] with the stream's tail and the usage so far; one whose
// sandbox cannot start is one of kind unavailable caused by a
// [*SandboxError].
//
// The zero value runs "codex" and "harnish" from PATH with Codex's own
// provider and model. An Executor is safe for concurrent use: each call has
// its own CODEX_HOME and hook log.
type Executor struct {
	// Codex is the codex program. Empty means "codex" from PATH. A relative
	// path resolves from the current directory.
	Codex string
	// Harnish is the program the hooks run: harnish, or harnish-hook, which
	// answers the same hook command lines and, linking only what the hooks
	// need, starts in about half the time (it runs before every tool call).
	// Empty means "harnish" from PATH. It is resolved to an absolute path
	// before the run.
	Harnish string
	// PlanFile, when set, is passed to the hooks as --plan; relative paths
	// resolve from the working tree. Empty: the hooks find the plan in the
	// working tree (harnish.yaml and the like, or the run's kept plan).
	PlanFile string
	// Model is the model Codex asks for (-m). Empty means Codex's default.
	Model string
	// Provider is the model provider to use. Nil means Codex's built-in
	// provider, which reads its API key from the environment.
	Provider *Provider
	// Sandbox is the sandbox of the commands the model runs: read-only,
	// workspace-write or danger-full-access. Empty means workspace-write:
	// the agent writes in the working tree (and temp dirs), nowhere else.
	Sandbox string
	// Approval is Codex's approval policy. Empty means "never": nobody is
	// there to approve, so a command the sandbox refuses fails and the model
	// is told.
	Approval string
	// Bypass runs Codex with --dangerously-bypass-approvals-and-sandbox
	// instead of Sandbox and Approval: no sandbox at all. Only for a host
	// that is a sandbox itself.
	Bypass bool
	// Args are more arguments for codex exec, put before the prompt.
	Args []string
	// Env adds variables to the agent's environment; the HARNISH_* ones,
	// CODEX_HOME and TMPDIR are harnish's.
	Env map[string]string
	// TranscriptDir, when set, keeps each run's event stream there as
	// codex-<task>-<attempt>-*.jsonl, named in [executor.Result.Transcript].
	// Empty keeps none.
	TranscriptDir string
}

// Execute runs Codex for one attempt.
func (e *Executor) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	if req.Task == nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: errors.New("codex: the request has no task")}
	}
	codexPath, err := agent.LookPath(e.Codex, "codex")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("codex: the codex CLI: %w", err)}
	}
	harnish, err := agent.LookPath(e.Harnish, "harnish")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("codex: the harnish program for the hooks: %w", err)}
	}
	workDir, plan, err := agent.Paths(req, e.PlanFile)
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("codex: %w", err)}
	}

	tmp, err := fsx.MkdirTempOwned("", "harnish-codex-")
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: fmt.Errorf("codex: %w", err)}
	}
	defer os.RemoveAll(tmp)
	home, tmpDir, hookLog, err := layout(tmp, agent.Settings(agent.Hooks{
		PreToolUse: agent.HookCommand(harnish, "pre-tool-use", "codex", plan),
		Stop:       agent.HookCommand(harnish, "stop", "codex", plan),
		Timeout:    agent.HookTimeout(ctx, req.Limits.Deadline),
	}))
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}
	argv, err := e.argv(codexPath, workDir)
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}

	inTree := *req
	inTree.WorkDir = workDir // absolute: the hooks take it as the tree they guard
	env := append(agent.SortedEnv(e.Env), agent.Env(&inTree, hookLog)...)
	env = append(env, "CODEX_HOME="+home, "TMPDIR="+tmpDir)

	st := newStream(workDir)
	st.watch = req.Watch
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	var check *sandboxCheck
	if mode := e.sandboxMode(); mode != "" {
		// A sandbox that cannot start fails every command alike: once that
		// is known, stop rather than let the model try the next.
		check = &sandboxCheck{mode: mode, done: make(chan struct{}), stop: func() { stopRun(errSandboxStop) },
			probe: func() (string, bool) { return probeSandbox(ctx, codexPath, mode, workDir, env) }}
		st.sandboxed, st.onSuspect = true, check.start
	}
	lines := agent.NewLineWriter(st.line)
	out, transcript, closeTranscript, err := agent.Transcript(e.TranscriptDir, "codex", req, lines)
	if err != nil {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Err: err}
	}
	res, runErr := proc.Run(runCtx, proc.Spec{Stage: "codex", Argv: argv, Root: workDir, Env: env,
		Stdin: strings.NewReader(agent.WithBlockedInstruction(req.Prompt)), Stdout: out})
	closeTranscript(agent.EndOf(res, runErr))
	lines.Flush()
	var sandboxErr *SandboxError
	if check != nil {
		// Codex gives no reason for a failed patch: a sandbox that cannot
		// start is one.
		sandboxErr = check.result(st.suspect, st.patchFailed)
	}

	violations := agent.CheckLog(hookLog, st.calls(), workDir)
	fail := func(kind executor.ErrorKind, tail string, err error) (*executor.Result, error) {
		return nil, &executor.Error{Kind: kind, Tail: agent.Tail(tail), Usage: st.usage, Violations: violations, Err: err}
	}
	var pe *proc.Error
	switch {
	case runErr == nil:
	case errors.As(runErr, &pe) && (pe.Kind == proc.KindStart || pe.Kind == proc.KindConfined):
		return nil, &executor.Error{Kind: executor.KindUnavailable, Tail: agent.Tail(res.Output), Err: fmt.Errorf("codex: %w", runErr)}
	case errors.Is(ctx.Err(), context.Canceled):
		// Cancelled, not timed out: the caller stopped the run, and nothing
		// should retry it.
		return nil, executor.Cancelled("codex", ctx)
	case ctx.Err() != nil:
		return fail(executor.KindTimeout, res.Output, fmt.Errorf("codex: %w", runErr))
	case sandboxErr != nil:
		// Stopped by the check.
	case errors.As(runErr, &pe) && (pe.Kind == proc.KindTimeout || pe.Kind == proc.KindCanceled):
		return fail(executor.KindTimeout, res.Output, fmt.Errorf("codex: %w", runErr))
	default:
		if st.failed != "" {
			runErr = fmt.Errorf("%w: %s", runErr, st.failed)
		}
		return fail(executor.KindCrashed, res.Output, fmt.Errorf("codex: %w", runErr))
	}
	if sandboxErr != nil {
		return fail(executor.KindUnavailable, res.Stdout, sandboxErr)
	}
	switch {
	case lines.Long:
		return fail(executor.KindProtocol, res.Stdout, fmt.Errorf("codex: a line of the event stream is longer than %d bytes", agent.MaxLine))
	case st.bad != "":
		return fail(executor.KindProtocol, res.Stdout, fmt.Errorf("codex: the event stream does not parse at %s", st.bad))
	case st.completed == 0:
		msg := "codex: the event stream has no turn.completed"
		if st.failed != "" {
			msg += ": " + st.failed
		}
		return fail(executor.KindProtocol, res.Stdout, errors.New(msg))
	}
	result := &executor.Result{Status: executor.StatusDone, Summary: strings.TrimSpace(st.final),
		FilesChanged: st.filesChanged(), Transcript: transcript, Usage: st.usage, Violations: violations}
	result.Decisions, result.OpenQuestions, result.Blocker = agent.Notes(st.final)
	if reason, ok := agent.Blocked(st.final); ok {
		result.Status, result.Reason = executor.StatusBlocked, reason
	}
	return result, nil
}

// layout makes the directories of one run in tmp, a fresh temporary
// directory: CODEX_HOME (with hooks.json), TMPDIR, side by side, and the
// path of the hooks' log.
//
// CODEX_HOME must not lie inside the temporary directory Codex sees (TMPDIR,
// or /tmp): Codex then refuses to put its helper links (codex-linux-sandbox,
// apply_patch) in CODEX_HOME and goes on without them, and a system
// bubblewrap older than 0.9 (no --argv0), which execs the helper by that
// name, cannot start the sandbox. A TMPDIR of its own beside CODEX_HOME
// keeps both under tmp, removed after the run, and the agent's temporary
// files with them.
func layout(tmp string, hooks []byte) (home, tmpDir, hookLog string, err error) {
	home, tmpDir, hookLog = filepath.Join(tmp, "home"), filepath.Join(tmp, "tmp"), filepath.Join(tmp, "hooks.jsonl")
	if err = os.Mkdir(home, 0o700); err == nil {
		err = os.WriteFile(filepath.Join(home, "hooks.json"), hooks, 0o600)
	}
	if err == nil {
		err = os.Mkdir(tmpDir, 0o700)
	}
	if err != nil {
		return "", "", "", fmt.Errorf("codex: CODEX_HOME: %w", err)
	}
	return home, tmpDir, hookLog, nil
}

// errSandboxStop is the cause of stopping Codex when its sandbox cannot
// start.
var errSandboxStop = errors.New("codex: the sandbox cannot start")

// sandboxMode is the sandbox the agent's commands run in; "" for none.
func (e *Executor) sandboxMode() string {
	if mode := cmp.Or(e.Sandbox, SandboxWorkspaceWrite); !e.Bypass && mode != SandboxFullAccess {
		return mode
	}
	return ""
}

// argv is the command line of one run, the prompt read from stdin.
func (e *Executor) argv(codexPath, workDir string) ([]string, error) {
	argv := []string{codexPath, "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--color", "never", "-C", workDir}
	if e.Bypass {
		argv = append(argv, "--dangerously-bypass-approvals-and-sandbox")
	} else {
		argv = append(argv, "-s", cmp.Or(e.Sandbox, SandboxWorkspaceWrite), "-c", "approval_policy="+tomlString(cmp.Or(e.Approval, "never")))
	}
	if p := e.Provider; p != nil {
		if p.BaseURL == "" {
			return nil, errors.New("codex: Provider.BaseURL is empty")
		}
		name := cmp.Or(p.Name, "harnish")
		if strings.ContainsAny(name, ".\"' =") {
			return nil, fmt.Errorf("codex: Provider.Name %q: want a bare key", name)
		}
		key := "model_providers." + name + "."
		argv = append(argv, "-c", "model_provider="+tomlString(name),
			"-c", key+"name="+tomlString(name),
			"-c", key+"base_url="+tomlString(p.BaseURL),
			"-c", key+"wire_api="+tomlString(cmp.Or(p.WireAPI, "responses")))
		if p.EnvKey != "" {
			argv = append(argv, "-c", key+"env_key="+tomlString(p.EnvKey))
		}
		opts := make([]string, 0, len(p.Options))
		for k := range p.Options {
			opts = append(opts, k)
		}
		sort.Strings(opts)
		for _, k := range opts {
			argv = append(argv, "-c", key+k+"="+p.Options[k])
		}
	}
	if e.Model != "" {
		argv = append(argv, "-m", e.Model)
	}
	argv = append(argv, e.Args...)
	return append(argv, "-"), nil
}

// tomlString quotes s as a TOML basic string; JSON's escapes are TOML's.
func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
