package executor

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

// DefaultPromptBudget is the size, in bytes, that [Render] keeps a prompt
// within: far below any agent's context, so the agent has room to work.
const DefaultPromptBudget = 48 << 10

// Spec renders a task as the opening of a prompt: its title, objective,
// scope and the acceptance checks the loop will run. The loop never trims it.
func Spec(t *task.Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task %s: %s\n", t.ID, t.Title)
	if o := strings.TrimSpace(t.Objective); o != "" {
		fmt.Fprintf(&b, "\n## Objective\n%s\n", o)
	}
	b.WriteString("\n## Scope\n")
	if len(t.Files) > 0 {
		fmt.Fprintf(&b, "Change only these files: %s\n", strings.Join(t.Files, ", "))
	} else {
		b.WriteString("The task declares no files: keep the change small and on its objective.\n")
	}
	if len(t.DependsOn) > 0 {
		fmt.Fprintf(&b, "It builds on tasks %s, which are done.\n", strings.Join(t.DependsOn, ", "))
	}
	if len(t.Acceptance) > 0 {
		b.WriteString("\n## Acceptance checks\nThe harness runs these checks; the task is done only when they pass:\n")
		for _, c := range t.Acceptance {
			switch c.Kind() {
			case "run":
				fmt.Fprintf(&b, "- run: %s\n", strings.Join(c.Run, " "))
			case "sh":
				fmt.Fprintf(&b, "- sh: %s\n", c.Sh)
			case "gotest":
				pkgs := c.GoTest.Packages
				if len(pkgs) == 0 {
					pkgs = []string{"./..."}
				}
				fmt.Fprintf(&b, "- go test %s (tests must run, not only compile)\n", strings.Join(slices.Concat(c.GoTest.Flags, pkgs), " "))
			case "cmake":
				b.WriteString("- cmake: configure, build and ctest (at least one test must run)\n")
			case "manual":
				fmt.Fprintf(&b, "- a person checks: %s\n", c.Manual)
			case "plugin":
				fmt.Fprintf(&b, "- the %s verifier checks the tree (its build and tests)\n", c.Plugin)
			default:
				fmt.Fprintf(&b, "- %s check\n", c.Kind())
			}
		}
	}
	return b.String()
}

// Prohibitions returns what an agent must not do under a plan's guardrail
// settings, as lines for [PromptParts.Prohibitions]. The guardrails enforce
// them either way; saying them up front saves an attempt.
func Prohibitions(g task.Guardrails) []string {
	out := []string{
		"Do not touch .harnish/ (the harness's state) or harnish-plugins.yaml (the plugins it runs).",
		"Do not delete recursively, force-push, reset or rewrite git history: the harness stops the run.",
	}
	if len(g.Protected) > 0 {
		out = append(out, fmt.Sprintf("Do not delete, move or overwrite these protected paths: %s.", strings.Join(g.Protected, ", ")))
	}
	if len(g.Packages) == 0 {
		out = append(out, "Install no packages.")
	} else {
		var allowed []string
		for _, eco := range slices.Sorted(maps.Keys(g.Packages)) {
			allowed = append(allowed, fmt.Sprintf("%s: %s", eco, strings.Join(g.Packages[eco], ", ")))
		}
		out = append(out, fmt.Sprintf("Install no packages but these (%s).", strings.Join(allowed, "; ")))
	}
	return append(out, "Do not claim the task done before its acceptance checks pass: the harness runs them and decides.")
}

// Render assembles a prompt from its parts within [DefaultPromptBudget]; see
// [RenderWithin].
func Render(p PromptParts) string { return RenderWithin(p, DefaultPromptBudget) }

// RenderWithin assembles a prompt from its parts, in this order: the spec
// (objective, scope, acceptance checks), where the task stands in the plan
// with the tasks done so far, the prohibitions, handoffs from
// earlier tasks, the last failure (its class, fingerprint and output tail),
// earlier failures, the reviewer's findings, the advisor's correction, the
// debugger's diagnosis, guardrail warnings, the project's context files,
// and experience; an advisor's
// PLAN comes before all of it.
// The same parts always give the same prompt.
//
// A prompt larger than budget bytes is trimmed, the least important first:
// experience, then handoffs, the context files (the last first), the tasks
// done so far (the oldest first), guardrail warnings, earlier failures, findings
// short of critical from low severity up, one item at a time from the end (the oldest failure
// first), a last line saying how much each section left out; then the last
// failure's output tail, keeping its end. The spec, the prohibitions, the
// critical findings and the diagnosis are never trimmed: a prompt that is over budget with only them
// is returned whole. A budget of zero or less means no limit.
func RenderWithin(p PromptParts, budget int) string {
	secs := sections(p)
	lead := ""
	if a := p.Advice; a != nil && a.Verdict == schema.AdvisePlan {
		lead = "## Advice before you start\n" + strings.TrimSpace(a.Text) + "\n\n"
	}
	size := func() int { return len(lead) + len(render(p.Spec, secs)) }
	if budget <= 0 {
		return lead + render(p.Spec, secs)
	}
	for _, key := range trimmable {
		for s := find(secs, key); size() > budget && len(s.items) > s.keep; {
			s.drop()
		}
	}
	if last := find(secs, "last"); size() > budget && len(last.items) > 0 {
		last.items[0] = failure(shortenTail(p.Failures[len(p.Failures)-1], size()-budget), true)
	}
	return lead + render(p.Spec, secs)
}

// A section of a prompt: a heading and items, of which trimming drops
// items from the end (or the start, with oldestFirst) and counts them.
type section struct {
	key, title  string
	items       []string
	oldestFirst bool
	// keep is how many leading items are never dropped.
	keep    int
	dropped int
}

func (s *section) drop() {
	if s.oldestFirst {
		s.items = slices.Delete(s.items, s.keep, s.keep+1) // the kept lead items stay
	} else {
		s.items = s.items[:len(s.items)-1]
	}
	s.dropped++
}

func (s *section) String() string {
	if len(s.items) == 0 {
		return ""
	}
	return "\n## " + s.title + "\n" + strings.Join(s.items, "")
}

// sections lays out every section after the spec, in prompt order.
func sections(p PromptParts) []*section {
	last := &section{key: "last", title: "The last attempt failed"}
	earlier := &section{key: "earlier", title: "Earlier failed attempts", oldestFirst: true}
	if n := len(p.Failures); n > 0 {
		last.items = []string{failure(p.Failures[n-1], true)}
		for _, f := range p.Failures[:n-1] {
			earlier.items = append(earlier.items, failure(f, false))
		}
	}
	prohibitions := &section{key: "prohibitions", title: "Prohibitions"}
	for _, s := range p.Prohibitions {
		prohibitions.items = append(prohibitions.items, "- "+s+"\n")
	}
	findings := &section{key: "findings", title: "Review findings to fix"}
	// Most severe first, so trimming from the end drops the least severe.
	fs := slices.Clone(p.Findings)
	slices.SortStableFunc(fs, func(a, b Finding) int { return int(b.Severity) - int(a.Severity) }) // most severe first
	for _, f := range fs {
		if f.Severity == schema.SeverityCritical {
			findings.keep++ // what sent the task back is never left out
		}
		loc := f.File
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		rule := ""
		if f.Rule != "" {
			rule = " (" + f.Rule + ")"
		}
		findings.items = append(findings.items, fmt.Sprintf("- [%s] %s: %s%s\n", f.Severity, loc, f.Message, rule))
	}
	correction := &section{key: "correction", title: "Correction from the advisor"}
	if a := p.Advice; a != nil && a.Verdict == schema.AdviseCorrection {
		correction.items = []string{strings.TrimSpace(a.Text) + "\n"}
	}
	diagnosis := &section{key: "diagnosis", title: "Root cause found by the debugger"}
	if d := p.Diagnosis; d != nil && d.Found {
		diagnosis.items = []string{fmt.Sprintf("%s\n\nSmallest fix: %s\n", strings.TrimSpace(d.RootCause), strings.TrimSpace(d.Fix))}
	}
	warnings := &section{key: "warnings", title: "Guardrail warnings"}
	for _, w := range p.Warnings {
		warnings.items = append(warnings.items, fmt.Sprintf("- %s: %s\n", w.Rule, w.Reason))
	}
	handoffs := &section{key: "handoffs", title: "Handoffs from earlier tasks"}
	for _, h := range p.Handoffs {
		handoffs.items = append(handoffs.items, fmt.Sprintf("### %s\n%s\n", h.TaskID, strings.TrimSpace(h.Text)))
	}
	assets := &section{key: "assets", title: "Experience"}
	for _, a := range p.Assets {
		assets.items = append(assets.items, strings.TrimRight(a.Text, "\n")+"\n")
	}
	progress := &section{key: "progress", title: "Where this task stands", oldestFirst: true}
	if p.Progress != "" {
		progress.items, progress.keep = append(progress.items, p.Progress+"\n"), 1
	}
	for _, d := range p.Done {
		line := "- " + d.TaskID + " " + d.Title
		if d.Line != "" {
			line += ": " + d.Line
		}
		progress.items = append(progress.items, line+"\n")
	}
	if len(p.Done) > 0 && p.Progress != "" {
		progress.items[0] += "Done so far, in order:\n"
	}
	context := &section{key: "context", title: "Project context"}
	for _, c := range p.Context {
		context.items = append(context.items, fmt.Sprintf("### %s\n%s\n", c.Path, strings.TrimRight(c.Text, "\n")))
	}
	return []*section{progress, prohibitions, handoffs, last, earlier, findings, correction, diagnosis, warnings, context, assets}
}

// trimmable are the keys of the sections that may be trimmed, least
// important first.
var trimmable = []string{"assets", "handoffs", "context", "progress", "warnings", "earlier", "findings"}

// find returns the section of secs with key.
func find(secs []*section, key string) *section {
	return secs[slices.IndexFunc(secs, func(s *section) bool { return s.key == key })]
}

// render writes the spec and the sections, then a line naming what was left
// out, so the agent knows there was more.
func render(spec string, secs []*section) string {
	var b strings.Builder
	b.WriteString(spec)
	var left []string
	for _, s := range secs {
		b.WriteString(s.String())
		if s.dropped > 0 {
			left = append(left, fmt.Sprintf("%d of %s", s.dropped, strings.ToLower(s.title)))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n(Left out to fit the prompt budget: %s.)\n", strings.Join(left, "; "))
	}
	return b.String()
}

// failure renders a failed attempt; the last one with its output tail.
func failure(f Failure, withTail bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- attempt %d", f.Attempt)
	if class := cmp.Or(f.Class, string(f.Kind)); class != "" {
		fmt.Fprintf(&b, " (%s)", class)
	}
	fmt.Fprintf(&b, ": %s\n", f.Describe())
	if f.Fingerprint != "" {
		fmt.Fprintf(&b, "  fingerprint %s: the same fingerprint twice brings in the debugger\n", f.Fingerprint)
	}
	if withTail && f.OutputTail != "" {
		fmt.Fprintf(&b, "```\n%s\n```\n", strings.TrimRight(f.OutputTail, "\n"))
	}
	return b.String()
}

const tailCut = "[… the start of the output is left out to fit the prompt budget]\n"

// shortenTail returns f with its output tail shorter by at least over
// bytes, keeping its end, where a failure's cause usually is; with no tail
// when none of it fits.
func shortenTail(f Failure, over int) Failure {
	tail := strings.TrimRight(f.OutputTail, "\n") + "\n"
	keep := len(tail) - over - len(tailCut)
	if keep <= 0 {
		f.OutputTail = ""
		return f
	}
	cut := tail[len(tail)-keep:]
	if i := strings.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
		cut = cut[i+1:] // start at a whole line
	}
	f.OutputTail = tailCut + cut
	return f
}
