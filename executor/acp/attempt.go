package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/internal/agent"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/proc"
)

// attempt is one run of the agent.
type attempt struct {
	e          *Executor
	req        *executor.Request
	name       string
	root       string
	argv, env  []string
	mark       string
	tree       *os.Root
	guard      guardrail.Guardrail
	prof       Profile
	stream     *proc.Tail // the end of what the agent wrote to stdout
	transcript io.Writer  // the stream, the tail and the transcript file
	terms      *terminals
	sess       *session
}

var errStopped = errors.New("acp: the attempt is over")

// turn is how the prompt ended.
type turn struct {
	resp acpsdk.PromptResponse
	err  error
}

func (a *attempt) run(ctx context.Context) (*executor.Result, error) {
	// The terminals die with the attempt, whichever way it ends.
	attemptCtx, endAttempt := context.WithCancelCause(ctx)
	defer endAttempt(errStopped)
	a.terms = newTerminals(attemptCtx, a.root, a.env, cmp.Or(a.e.TerminalTimeout, DefaultTerminalTimeout), a.e.grace())
	a.sess = newSession(a.root, a.tree, a.guard, a.req.Task.ID, a.prof, a.terms)
	a.sess.watch = a.req.Watch

	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, unavailable(fmt.Errorf("acp: %w", err))
	}
	chk, sdkIn := newChecker(a.transcript, a.sess.bar)
	// The agent is stopped when harnish decides, not when ctx is done: a
	// cancelled session first gets the chance to end its turn.
	agentCtx, stopAgent := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopAgent(errStopped)
	var (
		pres     *proc.Result
		perr     error
		procDone = make(chan struct{})
		stopping atomic.Bool // harnish is stopping the agent
		exited   bool        // the agent exited by itself, before that
	)
	// The connection and its logger before the agent: the SDK's reader
	// goroutine logs as soon as the stream ends, and SetLogger is not safe
	// once it runs.
	conn := acpsdk.NewClientSideConnection(a.sess, stdinW, sdkIn)
	conn.SetLogger(cmp.Or(a.e.Logger, discard))
	start := time.Now()
	go func() {
		pres, perr = proc.Run(agentCtx, proc.Spec{Stage: "execute", Argv: a.argv, Root: a.root, Env: a.env,
			Stdin: stdinR, Stdout: chk, Grace: a.e.grace()})
		exited = !stopping.Load()
		chk.Close()
		stdinR.Close()
		stdinW.Close() // a write to a dead agent fails, never blocks
		close(procDone)
	}()

	var (
		t     turn
		phase = "initialize"
	)
	sid, err := a.open(ctx, conn, &phase)
	if err != nil {
		t.err = err
	} else {
		if a.e.Logger != nil {
			a.e.Logger.Debug("acp: session open", "agent", a.name, "task", a.req.Task.ID, "attempt", a.req.Attempt,
				"startup", time.Since(start))
		}
		phase = "session/prompt"
		t = a.prompt(ctx, conn, sid, procDone)
	}
	stopping.Store(true)
	stopAgent(errStopped)
	<-procDone
	endAttempt(errStopped)
	a.terms.close()
	a.killStrays(ctx)
	if a.e.Logger != nil {
		a.e.Logger.Debug("acp: finished", "agent", a.name, "task", a.req.Task.ID, "attempt", a.req.Attempt,
			"duration", time.Since(start), "stop", t.resp.StopReason, "err", t.err)
	}
	return a.result(ctx, t, phase, pres, perr, exited, chk.Err())
}

// open initializes the connection and opens the session.
func (a *attempt) open(ctx context.Context, conn *acpsdk.ClientSideConnection, phase *string) (acpsdk.SessionId, error) {
	init, err := conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{
			Fs:       acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true},
			Terminal: true,
		},
		ClientInfo: &acpsdk.Implementation{Name: "harnish", Version: "1"},
	})
	if err != nil {
		return "", acpError("initialize", err)
	}
	if init.ProtocolVersion != acpsdk.ProtocolVersionNumber {
		return "", &versionError{got: int(init.ProtocolVersion)}
	}
	*phase = "session/new"
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: a.root, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		return "", acpError("session/new", err)
	}
	return sess.SessionId, nil
}

type versionError struct{ got int }

func (e *versionError) Error() string {
	return fmt.Sprintf("acp: the agent speaks protocol version %d, harnish %d", e.got, acpsdk.ProtocolVersionNumber)
}

// prompt sends the prompt and waits for the turn to end: by itself, or
// cancelled (session/cancel) when ctx is done or the guardrail stops the
// run, the agent having CancelWait to end it before it is stopped anyway.
func (a *attempt) prompt(ctx context.Context, conn *acpsdk.ClientSideConnection, sid acpsdk.SessionId, procDone <-chan struct{}) turn {
	promptCtx, cancelPrompt := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelPrompt(errStopped)
	done := make(chan turn, 1)
	go func() {
		resp, err := conn.Prompt(promptCtx, acpsdk.PromptRequest{SessionId: sid,
			Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(agent.WithBlockedInstruction(a.req.Prompt))}})
		if err != nil {
			err = acpError("session/prompt", err)
		}
		done <- turn{resp: resp, err: err}
	}()
	select {
	case t := <-done:
		return t
	case <-procDone:
		return <-done // the connection is closed: the prompt fails at once
	case <-ctx.Done():
	case <-a.sess.stopped:
	}
	// session/cancel, then give the agent CancelWait to end the turn.
	_ = conn.Cancel(promptCtx, acpsdk.CancelNotification{SessionId: sid})
	timer := time.NewTimer(cmp.Or(a.e.CancelWait, DefaultCancelWait))
	defer timer.Stop()
	select {
	case t := <-done:
		return t
	case <-procDone:
		return <-done
	case <-timer.C:
		cancelPrompt(errStopped)
		return <-done
	}
}

// killStrays kills what the agent left outside its process group, found
// by the attempt's mark.
func (a *attempt) killStrays(ctx context.Context) {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	killed, err := proc.KillStrays(kctx, EnvMark, a.mark)
	if a.e.Logger != nil && (len(killed) > 0 || err != nil) {
		a.e.Logger.Debug("acp: killed what the agent left running", "pids", killed, "err", err)
	}
}

// result turns how the attempt went into its result or error.
func (a *attempt) result(ctx context.Context, t turn, phase string, pres *proc.Result, perr error, exited bool, streamErr error) (*executor.Result, error) {
	s := a.sess
	violations := append(s.snapshotViolations(), s.unguarded(context.WithoutCancel(ctx))...)
	usage := s.usageOf(t.resp)
	tail := a.tail(pres)
	fail := func(kind executor.ErrorKind, err error) (*executor.Result, error) {
		return nil, &executor.Error{Kind: kind, Tail: tail, Usage: usage, Violations: violations, Err: err}
	}
	hard := false
	for _, v := range violations {
		hard = hard || v.Hard
	}
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) && !hard:
		return nil, executor.Cancelled("acp", ctx)
	case ctx.Err() != nil && !hard:
		return fail(executor.KindTimeout, fmt.Errorf("acp: %s: %w", phase, context.Cause(ctx)))
	case hard:
		// The run stops on the violation whatever the turn claims.
		return a.done(t, violations, usage), nil
	case streamErr != nil:
		return fail(executor.KindProtocol, fmt.Errorf("acp: %s: %w", phase, streamErr))
	case t.err != nil && exited && lost(t.err):
		// The agent exited before harnish stopped it, and the call failed
		// for it; perr says how it exited (nil: with status 0).
		return fail(executor.KindCrashed, fmt.Errorf("acp: the agent exited during %s: %w", phase, cmp.Or(perr, errExitZero)))
	case t.err != nil:
		var ve *versionError
		var re *RPCError
		if errors.As(t.err, &ve) || (errors.As(t.err, &re) && re.Code == -32000 && re.Method != "session/prompt") {
			// Another protocol, or authentication required: every attempt
			// would fail the same way.
			return fail(executor.KindUnavailable, t.err)
		}
		return fail(executor.KindCrashed, t.err)
	case t.resp.StopReason == acpsdk.StopReasonRefusal:
		return fail(executor.KindProtocol, errors.New("acp: the agent refused the prompt"))
	case !s.hadOutput():
		return fail(executor.KindProtocol, fmt.Errorf("acp: the turn ended (%s) with no output at all", t.resp.StopReason))
	}
	return a.done(t, violations, usage), nil
}

var errExitZero = errors.New("exit status 0")

// lost reports whether a call failed on the SDK's side of the
// connection (an internal error: the peer disconnected, a write to it
// failed), rather than with an error the agent answered.
func lost(err error) bool {
	var re *RPCError
	return !errors.As(err, &re) || re.Code == -32603
}

func (a *attempt) done(t turn, violations []executor.Violation, usage executor.Usage) *executor.Result {
	s := a.sess
	final, summary := s.summary()
	res := &executor.Result{Status: executor.StatusDone, Summary: summary, FilesChanged: s.filesChanged(),
		Usage: usage, Violations: violations}
	res.Decisions, res.OpenQuestions, res.Blocker = agent.Notes(final)
	if reason, ok := agent.Blocked(final); ok {
		res.Status, res.Reason = executor.StatusBlocked, reason
	}
	return res
}

// tail is the end of the agent's stderr and of its stream.
func (a *attempt) tail(pres *proc.Result) string {
	var b strings.Builder
	if pres != nil && strings.TrimSpace(pres.Stderr) != "" {
		b.WriteString("stderr:\n" + pres.Stderr + "\n")
	}
	if s := a.stream.String(); s != "" {
		b.WriteString("stream:\n" + s)
	}
	return agent.Tail(b.String())
}

func (s *session) snapshotViolations() []executor.Violation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]executor.Violation(nil), s.violations...)
}

// hadOutput reports whether the turn produced anything: text or a tool
// call.
func (s *session) hadOutput() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates > 0 || len(s.files) > 0 || len(s.commands) > 0
}

// usageOf is what the turn reports it spent: the prompt response's usage,
// else Gemini CLI's _meta.quota.token_count; the cost from the last usage
// update.
func (s *session) usageOf(resp acpsdk.PromptResponse) executor.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := executor.Usage{CostUSD: s.costUSD}
	if r := resp.Usage; r != nil {
		u.InputTokens, u.OutputTokens = int64(r.InputTokens), int64(r.OutputTokens)
		return u
	}
	if quota, ok := resp.Meta["quota"].(map[string]any); ok {
		if tc, ok := quota["token_count"].(map[string]any); ok {
			u.InputTokens, u.OutputTokens = number(tc["input_tokens"]), number(tc["output_tokens"])
		}
	}
	return u
}

func number(v any) int64 {
	if f, ok := v.(float64); ok && f > 0 {
		return int64(f)
	}
	return 0
}

// MaxSummaryCommands bounds the commands a summary lists.
const MaxSummaryCommands = 20

// summary returns the agent's final message, and the summary of the
// attempt: that message (all its messages when the last is empty), the
// plan's entries and the commands run.
func (s *session) summary() (final, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	final = strings.TrimSpace(s.final.String())
	var b strings.Builder
	b.WriteString(cmp.Or(final, strings.TrimSpace(s.text.String())))
	if len(s.plan) > 0 {
		b.WriteString("\n\nPlan:")
		for _, e := range s.plan {
			fmt.Fprintf(&b, "\n- [%s] %s", e.Status, e.Content)
		}
	}
	if len(s.commands) > 0 {
		b.WriteString("\n\nCommands run:")
		for i, c := range s.commands {
			if i == MaxSummaryCommands {
				fmt.Fprintf(&b, "\n- … and %d more", len(s.commands)-i)
				break
			}
			fmt.Fprintf(&b, "\n- %s", firstLine(c))
		}
	}
	return final, strings.TrimSpace(b.String())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// filesChanged lists the files written through harnish and those the
// agent's own edit calls name, relative to the working tree.
func (s *session) filesChanged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	files := append([]string(nil), s.files...)
	for _, id := range s.order {
		c := s.calls[id]
		if !changes(c.kind) || c.kind == acpsdk.ToolKindExecute || c.status != acpsdk.ToolCallStatusCompleted {
			continue
		}
		for _, l := range c.locations {
			if rel, err := filepath.Rel(s.root, filepath.Clean(l.Path)); err == nil && filepath.IsLocal(rel) {
				files = appendNew(files, filepath.ToSlash(rel))
			}
		}
	}
	return files
}
