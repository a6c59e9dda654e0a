package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// StopCall is the Stop payload Claude Code and Codex send when the agent
// wants to stop.
type StopCall struct {
	Event string `json:"hook_event_name"`
	// Cwd is the directory the agent runs in.
	Cwd string `json:"cwd"`
	// Active is set when the agent goes on because a stop hook refused its
	// last stop.
	Active bool `json:"stop_hook_active"`
}

// ParseStop reads and decodes a Stop payload of at most [MaxInput] bytes;
// one that does not is an [*InputError].
func ParseStop(r io.Reader) (*StopCall, error) {
	if r == nil {
		return nil, &InputError{errors.New("decoding the hook input: there is none")}
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err == nil && len(data) > MaxInput {
		err = fmt.Errorf("the hook input is larger than %d bytes", MaxInput)
	}
	var s StopCall
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		return nil, &InputError{fmt.Errorf("decoding the hook input: %w", err)}
	}
	return &s, nil
}

// MaxStopRefusals is how many times in one attempt [Handler.Stop] sends the
// agent back to work while the checks fail; then it lets the agent stop and
// the loop's own verification decide, since refusing forever only burns the
// attempt's time.
const MaxStopRefusals = 3

// Stop answers an agent's Stop hook: it runs the checks of the task the
// Handler's Task func names (with the Handler's Verifier) and refuses the
// stop ([ExitBlock], the failing check and its output in the message,
// which Claude Code and Codex hand the model as the reason to go on) while
// they fail. With no task, only manual checks, or checks that pass, the
// agent may stop. A plan or task that does not load, and checks that
// cannot run, refuse the stop too.
//
// Refusals are counted in the hook log req.HookLog names: after
// [MaxStopRefusals] in one attempt the agent may stop. Without a log, a
// stop that is already a continuation (stop_hook_active) goes. An agent
// that is not Claude or Codex is [ExitError].
//
// ctx bounds the checks: an agent that gives up on its hook terminates it,
// and the checks' processes must end with it.
func (h *Handler) Stop(ctx context.Context, req *Request) *Answer {
	if !req.Agent.Valid() {
		return &Answer{Code: ExitError, Message: fmt.Sprintf("harnish hook stop: --agent must be claude or codex, not %q\n", req.Agent)}
	}
	in, err := ParseStop(req.Input)
	if err != nil {
		return &Answer{Code: ExitBlock, Message: fmt.Sprintf("harnish hook stop: %v\n", err)}
	}
	root, err := root(req.WorkDir, in.Cwd)
	if err != nil {
		return &Answer{Code: ExitBlock, Message: fmt.Sprintf("harnish hook stop: %v\n", err)}
	}
	s := &stop{req: req}
	if n, ok := stopRefusals(req.HookLog, in.Active); !ok {
		// The agent has been sent back n times already: let it stop, and the
		// loop's own verification decide.
		fmt.Fprintf(&s.msg, "harnish: the stop was refused %d times; the harness verifies the task now\n", n)
		return s.log("")
	}
	c := &Call{Event: guardrail.HookStop, Agent: req.Agent, Root: root, PlanFile: req.PlanFile, TaskID: req.TaskID}
	t, err := h.task(ctx, c)
	if err != nil {
		// Refused, and counted like any refusal, so that a plan or task that
		// does not load cannot hold the agent forever.
		fmt.Fprintf(&s.msg, "harnish hook stop: %v\n", err)
		return s.refuse("the task cannot be loaded: " + err.Error())
	}
	if t == nil {
		return s.log("")
	}
	vreq := &verify.Request{Task: t, PhaseID: phaseOf(c.Plan, t.ID), WorkDir: root}
	if h.Verifier == nil {
		// A plugin check runs in the loop's host, which started the plugin;
		// the hook runs the rest, and the loop all of them after the attempt.
		vreq.Checks = slices.DeleteFunc(slices.Clone(t.Acceptance), func(c task.Check) bool { return c.Kind() == "plugin" })
	}
	rep, err := h.verify(ctx, vreq)
	if errors.Is(err, verify.ErrNoChecks) {
		return s.log("") // only manual checks: a person decides, at the milestone
	}
	if err != nil {
		fmt.Fprintf(&s.msg, "harnish: the checks of task %s could not run, so the task is not done: %v\n", t.ID, err)
		return s.refuse("checks could not run: " + err.Error())
	}
	if rep.Passed {
		return s.log("")
	}
	ans := s.refuse("checks fail: " + rep.Fingerprint.Summary)
	fmt.Fprintf(&s.msg, "harnish: task %s is not done: its checks fail (%s). Keep working until they pass.\n",
		t.ID, rep.Fingerprint.Summary)
	for _, c := range rep.Checks {
		if !c.Passed {
			fmt.Fprintf(&s.msg, "\n$ %s\n%s\n", c.Name, strings.TrimRight(c.OutputTail, "\n"))
			break
		}
	}
	ans.Message = s.msg.String()
	return ans
}

// task finds the plan (c.Plan) and the task a stop holds the agent to.
func (h *Handler) task(ctx context.Context, c *Call) (*task.Task, error) {
	plan, err := h.plan(ctx, c)
	if err != nil {
		return nil, err
	}
	c.Plan = plan
	find := h.Task
	if find == nil {
		find = FindTask
	}
	var t *task.Task
	err = protect("Task", func() (err error) {
		t, err = find(ctx, c)
		return err
	})
	return t, err
}

// verify runs the Handler's Verifier, or the task's acceptance checks.
func (h *Handler) verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	v := h.Verifier
	if v == nil {
		v = verify.Acceptance{}
	}
	var rep *verify.Report
	err := protect("Verifier", func() (err error) {
		rep, err = v.Verify(ctx, req)
		return err
	})
	if err == nil && rep == nil {
		err = errors.New("hook: the verifier returned no report")
	}
	return rep, err
}

// stopRefusals returns how many stops of this attempt were refused, and
// whether one more may be. The count comes from the hook log at logPath;
// without one, only a stop that is not already a continuation (active) may
// be refused.
func stopRefusals(logPath string, active bool) (int, bool) {
	if logPath == "" {
		if active {
			return 1, false
		}
		return 0, true
	}
	recs, _ := guardrail.ReadHookLog(logPath) // an unreadable log counts none
	n := 0
	for _, r := range recs {
		if r.Event == guardrail.HookStop && r.Refused {
			n++
		}
	}
	return n, n < MaxStopRefusals
}

// stop is one stop answer in the making.
type stop struct {
	req *Request
	msg strings.Builder // standard error so far
}

// log records the stop's answer in the hook log, when the request names
// one; refused is the reason it refuses the stop, or "". It returns the
// answer of an allowed stop, unless the log cannot be written.
func (s *stop) log(refused string) *Answer {
	r := guardrail.HookRecord{Time: time.Now().UTC(), Event: guardrail.HookStop, Agent: string(s.req.Agent),
		Refused: refused != "", Reason: refused}
	ans := &Answer{Code: ExitAllow, Record: r}
	if s.req.HookLog != "" {
		if err := guardrail.AppendHookRecord(s.req.HookLog, r); err != nil {
			fmt.Fprintf(&s.msg, "harnish: %v\n", err)
			ans.Code = ExitBlock
		}
	}
	ans.Message = s.msg.String()
	return ans
}

// refuse logs the stop as refused for reason, and refuses it.
func (s *stop) refuse(reason string) *Answer {
	ans := s.log(reason)
	ans.Code = ExitBlock
	return ans
}
