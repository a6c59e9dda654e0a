package executor

import (
	"fmt"
	"strings"

	"github.com/harnish/harnish/task"
)

// Spec renders a task as the opening of a prompt: title, objective, declared
// files, dependencies and the acceptance checks the loop will run.
func Spec(t *task.Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s: %s\n", t.ID, t.Title)
	if t.Objective != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(t.Objective))
	}
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, "\nFiles in scope: %s\n", strings.Join(t.Files, ", "))
	}
	if len(t.Acceptance) > 0 {
		b.WriteString("\nThe harness runs these checks; the task is done when they pass:\n")
		for _, c := range t.Acceptance {
			switch c.Kind() {
			case "run":
				fmt.Fprintf(&b, "- run: %s\n", strings.Join(c.Run, " "))
			case "sh":
				fmt.Fprintf(&b, "- sh: %s\n", c.Sh)
			case "manual":
				fmt.Fprintf(&b, "- a person checks: %s\n", c.Manual)
			default:
				fmt.Fprintf(&b, "- %s check\n", c.Kind())
			}
		}
	}
	return b.String()
}

// Render assembles a prompt from its parts: the spec, then what earlier
// tasks handed over, then what went wrong before (failures, findings, the
// debugger's diagnosis, guardrail warnings), then experience.
func Render(p PromptParts) string {
	var b strings.Builder
	b.WriteString(p.Spec)
	section := func(title string) { fmt.Fprintf(&b, "\n## %s\n", title) }
	if len(p.Handoffs) > 0 {
		section("Handoffs from earlier tasks")
		for _, h := range p.Handoffs {
			fmt.Fprintf(&b, "### %s\n%s\n", h.TaskID, strings.TrimSpace(h.Text))
		}
	}
	if len(p.Failures) > 0 {
		section("Previous attempts failed")
		for _, f := range p.Failures {
			fmt.Fprintf(&b, "- attempt %d (%s): %s\n", f.Attempt, f.Class, f.Summary)
			if f.OutputTail != "" {
				fmt.Fprintf(&b, "```\n%s\n```\n", strings.TrimRight(f.OutputTail, "\n"))
			}
		}
	}
	if len(p.Findings) > 0 {
		section("Review findings to fix")
		for _, f := range p.Findings {
			loc := f.File
			if f.Line > 0 {
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			fmt.Fprintf(&b, "- [%s] %s: %s\n", f.Severity, loc, f.Message)
		}
	}
	if d := p.Diagnosis; d != nil && d.Found {
		section("Root cause found by the debugger")
		fmt.Fprintf(&b, "%s\n\nSmallest fix: %s\n", d.RootCause, d.Fix)
	}
	if len(p.Warnings) > 0 {
		section("Guardrail warnings")
		for _, w := range p.Warnings {
			fmt.Fprintf(&b, "- %s: %s\n", w.Rule, w.Reason)
		}
	}
	if len(p.Assets) > 0 {
		section("Experience")
		for _, a := range p.Assets {
			fmt.Fprintf(&b, "%s\n", strings.TrimRight(a.Text, "\n"))
		}
	}
	return b.String()
}
