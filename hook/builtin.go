package hook

import (
	"context"
	"os"

	"github.com/harnish/harnish/guardrail"
)

// Builtin is the guardrail a [Handler] judges tool calls by unless it is
// given a Guardrail func, and what harnish hook judges by: harnish's
// command rules with c.Plan's protected paths and allowed packages (nil:
// only .harnish/ is protected and no package may be installed), and its
// edit rules with c.Plan's settings in the tree c.Root, in that order
// ([guardrail.All]).
//
// For Codex, a shell or REPL started without a script is refused
// (shell.interactive): what Codex types into it later (write_stdin) reaches
// no hook. Claude Code's Bash tool gives a command no terminal to read. The
// size rule (edit.size) is left out: one tool call's change is not the
// attempt's, which the loop audits whole.
func Builtin(_ context.Context, c *Call) (guardrail.Guardrail, error) {
	cmdCfg := guardrail.PlanCommandConfig(c.Plan, c.Root)
	cmdCfg.RefuseInteractive = c.Agent == Codex
	cmds, err := guardrail.NewCommandGuard(cmdCfg)
	if err != nil {
		return nil, err
	}
	editCfg := guardrail.PlanEditConfig(c.Plan, os.DirFS(c.Root))
	editCfg.Scope, editCfg.MaxChangedLines = nil, -1 // neither is one call's to judge
	edits, err := guardrail.NewEditGuard(editCfg)
	if err != nil {
		return nil, err
	}
	return guardrail.All(cmds, edits), nil
}
