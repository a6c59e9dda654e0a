package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
)

// maxAssetText bounds the experience put into one prompt.
const maxAssetText = 4000

// experience returns the assets for t's tags and phase, rendered for a
// prompt within maxAssetText characters.
func (l *Loop) experience(ctx context.Context, t *task.Task, phase string) []executor.Asset {
	if l.cfg.Assets == nil {
		return nil
	}
	q := asset.Query{Tags: append(slices.Clone(t.Tags), phase), Limit: 5, MarkAccessed: true}
	found, err := guard(func() ([]*asset.Asset, error) { return l.cfg.Assets.Query(ctx, q) })
	if err != nil {
		l.log.Warn("loop: query the assets", "task", t.ID, "err", err)
		return nil
	}
	texts := asset.Render(found, maxAssetText)
	out := make([]executor.Asset, len(texts))
	for i, text := range texts {
		a := found[i]
		out[i] = executor.Asset{Type: string(a.Type), Slug: a.Slug, Title: a.Title, Text: text}
	}
	return out
}

// learn records what a finished task taught: a failure mode that repeated
// and was then resolved, or a first-try success the executor marks as
// generalizable.
func (l *Loop) learn(ctx context.Context, id string) {
	if l.cfg.Assets == nil {
		return
	}
	t, ts := l.tasks[id], l.st.Tasks[id]
	tags := append(slices.Clone(t.Tags), l.st.Phase)
	var a *asset.Asset
	switch {
	case ts.Status != policy.StatusDone:
		// A task that ended for a person after failing teaches the next run
		// what did not work, as the engine records failures on escalation.
		n := len(ts.Failures)
		if n == 0 || ts.Failures[n-1].Attempt <= ts.Base || ts.Status == policy.StatusBlocked {
			return
		}
		last := ts.Failures[n-1]
		resolved := false
		a = &asset.Asset{Type: asset.TypeFailure, Title: t.Title + ": " + last.Describe(), Tags: tags, Resolved: &resolved,
			Context: fmt.Sprintf("plan %s, task %s %s after %d attempts, fingerprint %s", l.cfg.Plan.Name, id, ts.Status, ts.Attempts-ts.Base, last.Fingerprint),
			Body:    "Unresolved: " + ts.Reason}
		if d := ts.Diagnosis; d != nil && len(d.FiveWhys) > 0 {
			a.Body += "\nFive whys:\n- " + strings.Join(d.FiveWhys, "\n- ")
		}
	case ts.DebuggedAt > 0 && ts.RootCause:
		var repeated policy.Failure
		for _, f := range ts.Failures {
			if f.Attempt == ts.DebuggedAt {
				repeated = f
			}
		}
		resolved := true
		a = &asset.Asset{Type: asset.TypeFailure, Title: t.Title + ": " + repeated.Describe(), Tags: tags, Resolved: &resolved,
			Context: fmt.Sprintf("plan %s, task %s, fingerprint %s", l.cfg.Plan.Name, id, repeated.Fingerprint)}
		if d := ts.Diagnosis; d != nil {
			a.Body = fmt.Sprintf("Root cause: %s\nFix: %s", d.RootCause, d.Fix)
		}
	case ts.Attempts == 1 && l.runs[id] != nil && l.runs[id].last != nil && l.runs[id].last.Generalizable:
		a = &asset.Asset{Type: asset.TypePattern, Title: t.Title, Tags: tags, Body: l.runs[id].last.Summary,
			Context: fmt.Sprintf("plan %s, task %s, first try", l.cfg.Plan.Name, id)}
	default:
		return
	}
	a.Session = l.st.Run
	if _, err := guard(func() (struct{}, error) { return struct{}{}, l.cfg.Assets.Record(ctx, a) }); err != nil {
		l.log.Warn("loop: record an asset", "task", id, "err", err)
	}
}

// handoffsFor returns the handoffs of t's dependencies, or, for a task that
// depends on nothing, of the task before it in the plan.
func (l *Loop) handoffsFor(t *task.Task) []executor.Handoff {
	ids := t.DependsOn
	if len(ids) == 0 && l.prev[t.ID] != "" {
		ids = []string{l.prev[t.ID]}
	}
	var out []executor.Handoff
	for _, id := range ids {
		if h := l.rec.handoff(id); h != nil {
			out = append(out, executor.Handoff{TaskID: id, Text: h.Text()})
		}
	}
	return out
}

// MaxDoneInPrompt bounds the tasks done that a prompt lists: the latest.
const MaxDoneInPrompt = 100

// progress says where t stands in the plan, and lists the tasks done
// before it, in plan order, with their summaries' first lines. l.mu must
// be held.
func (l *Loop) progress(t *task.Task) (string, []executor.TaskSummary) {
	i := l.index[t.ID]
	ph := l.phase(l.phaseOf[t.ID])
	where := fmt.Sprintf("Task %d of %d, in phase %s", i+1, len(l.order), ph.ID)
	if ph.Title != "" {
		where += " (" + ph.Title + ")"
	}
	var done []executor.TaskSummary
	for j := i - 1; j >= 0 && len(done) < MaxDoneInPrompt; j-- {
		id := l.order[j]
		if ts := l.st.Tasks[id]; ts == nil || ts.Status != policy.StatusDone {
			continue
		}
		s := executor.TaskSummary{TaskID: id, Title: l.tasks[id].Title}
		if h := l.rec.handoff(id); h != nil {
			line, _, _ := strings.Cut(strings.TrimSpace(h.Summary), "\n")
			s.Line = clip(line, 200)
		}
		done = append(done, s)
	}
	slices.Reverse(done)
	return where + ".", done
}

// failuresOf returns the task's failed attempts, from the durable state.
func (l *Loop) failuresOf(id string) []executor.Failure {
	if ts := l.st.Tasks[id]; ts != nil {
		return slices.Clone(ts.Failures)
	}
	return nil
}
