package hook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/task"
)

// RuleError is the rule of the hard decision with which a pre-tool-use call
// that cannot be judged is blocked: its payload does not decode, the agent
// is unknown, the plan does not load, there is no guardrail.
const RuleError = "hook.error"

// PreToolUse answers an agent's PreToolUse hook: it judges the actions of
// the tool call ([ToolCall.Actions]) one by one with the Handler's
// guardrail, through [guardrail.EvaluateAll], so a guardrail that errs or
// panics blocks. The first hard decision blocks the call ([ExitBlock],
// "harnish guardrail RULE blocked this: REASON"); soft ones allow it with a
// warning each ("harnish guardrail RULE warns: REASON"). A call that cannot
// be judged is blocked with the rule [RuleError] ("harnish: cannot judge
// the tool call: ..."): guardrails fail closed. Tools harnish does not
// judge are allowed.
//
// Every answer is appended to the hook log req.HookLog names, if any; a log
// that cannot be written blocks the call, since an unlogged call would look
// unguarded to the executor.
func (h *Handler) PreToolUse(ctx context.Context, req *Request) *Answer {
	p := &preToolUse{req: req}
	if !req.Agent.Valid() {
		return p.block("hook pre-tool-use: --agent %q: want claude or codex", req.Agent)
	}
	call, err := parseToolCall(req.Input)
	p.call = call // as far as it decoded, for the record
	if err != nil {
		return p.block("cannot judge the tool call: %v", err)
	}
	p.decoded = true
	if !call.Judged() {
		return p.answer(guardrail.Decision{}, "")
	}
	root, err := root(req.WorkDir, call.Cwd)
	if err != nil {
		return p.block("cannot judge the tool call: %v", err)
	}
	c := &Call{Event: guardrail.HookPreToolUse, Agent: req.Agent, Root: root, PlanFile: req.PlanFile,
		TaskID: req.TaskID, Tool: call}
	plan, err := h.plan(ctx, c)
	if err != nil {
		return p.block("cannot judge the tool call: the plan does not load: %v", err)
	}
	c.Plan = plan
	g, err := h.guardrail(ctx, c)
	if err != nil {
		return p.block("cannot judge the tool call: %v", err)
	}
	acts, err := call.Actions(root)
	if err != nil {
		return p.block("cannot judge the tool call: %v", err)
	}
	raw := call.command()
	var worst guardrail.Decision
	var warnings strings.Builder
	for _, a := range acts {
		a.Task = req.TaskID
		orig := ""
		if a.Kind == guardrail.KindCommand {
			orig = raw
		}
		for _, d := range guardrail.EvaluateAll(ctx, g, a) {
			if d.Level == guardrail.Hard {
				msg := fmt.Sprintf("harnish guardrail %s blocked this: %s", d.Rule, d.Reason)
				if d.Match != "" && d.Match != a.Command && d.Match != orig {
					msg += fmt.Sprintf(" (in %q)", d.Match)
				}
				return p.answer(d, msg+"\n")
			}
			fmt.Fprintf(&warnings, "harnish guardrail %s warns: %s\n", d.Rule, d.Reason)
			if worst.Level == guardrail.Allow {
				worst = d
			}
		}
	}
	return p.answer(worst, warnings.String())
}

// plan runs the Handler's Plan func, or FindPlan.
func (h *Handler) plan(ctx context.Context, c *Call) (plan *task.Plan, err error) {
	find := h.Plan
	if find == nil {
		find = FindPlan
	}
	err = protect("Plan", func() (err error) {
		plan, err = find(ctx, c)
		return err
	})
	return plan, err
}

// guardrail runs the Handler's Guardrail func, or Builtin.
func (h *Handler) guardrail(ctx context.Context, c *Call) (g guardrail.Guardrail, err error) {
	build := h.Guardrail
	if build == nil {
		build = Builtin
	}
	err = protect("Guardrail", func() (err error) {
		g, err = build(ctx, c)
		return err
	})
	if err == nil && g == nil {
		err = errors.New("hook: no guardrail")
	}
	return g, err
}

// preToolUse is one pre-tool-use answer in the making.
type preToolUse struct {
	req     *Request
	call    *ToolCall // as far as the payload decoded; nil when it did not
	decoded bool      // whether the call decoded whole
}

// block blocks the call as one that cannot be judged.
func (p *preToolUse) block(format string, a ...any) *Answer {
	reason := fmt.Sprintf(format, a...)
	return p.answer(guardrail.Decision{Level: guardrail.Hard, Rule: RuleError, Reason: reason}, "harnish: "+reason+"\n")
}

// answer logs the decision d about the call and returns the answer with
// msg on standard error.
func (p *preToolUse) answer(d guardrail.Decision, msg string) *Answer {
	r := guardrail.HookRecord{Time: time.Now().UTC(), Event: guardrail.HookPreToolUse, Agent: string(p.req.Agent), Decision: d}
	if c := p.call; c != nil {
		r.Tool = c.Tool
		switch {
		case p.decoded:
			// A shell call's command as the agent wrote it; for Codex's patch
			// tool the patch, which names every file it edits: the executor
			// reads them back.
			r.Command = c.command()
			if paths := c.paths(); len(paths) > 0 {
				r.Path = paths[0]
			}
		case c.Tool == "apply_patch":
			r.Command = c.patch() // even one that names no file
		}
	}
	ans := &Answer{Code: ExitAllow, Message: msg, Record: r}
	if d.Level == guardrail.Hard {
		ans.Code = ExitBlock
	}
	if p.req.HookLog != "" {
		if err := guardrail.AppendHookRecord(p.req.HookLog, r); err != nil {
			// An unlogged call would look unguarded to the executor; say so and block.
			ans.Code, ans.Message = ExitBlock, fmt.Sprintf("harnish: %v\n", err)
		}
	}
	return ans
}
