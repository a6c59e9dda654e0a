package loop

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/loop/policy"
)

// Handoff is what a finished task leaves for the tasks after it; the loop
// writes it to handoffs/<task>.json and puts it in the prompts of the tasks
// that depend on it.
type Handoff struct {
	Task    string            `json:"task"`
	Phase   string            `json:"phase"`
	Status  policy.TaskStatus `json:"status"`
	Summary string            `json:"summary,omitempty"`
	// FilesChanged are the files the task changed: read from git when the
	// working tree is a git tree, else as the executor reports them.
	FilesChanged []string `json:"files_changed,omitempty"`
	// Checks are the names of the checks that passed.
	Checks []string `json:"checks,omitempty"`
	// Findings are the review findings below critical, left for later.
	Findings []string `json:"findings,omitempty"`
	Attempts int      `json:"attempts"`
}

// Text renders the handoff for a prompt.
func (h *Handoff) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Status: %s after %d attempt(s).\n", h.Status, h.Attempts)
	if h.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", h.Summary)
	}
	if len(h.FilesChanged) > 0 {
		fmt.Fprintf(&b, "Files changed: %s\n", strings.Join(h.FilesChanged, ", "))
	}
	if len(h.Checks) > 0 {
		fmt.Fprintf(&b, "Checks passed: %s\n", strings.Join(h.Checks, "; "))
	}
	for _, f := range h.Findings {
		fmt.Fprintf(&b, "Open finding: %s\n", f)
	}
	return b.String()
}

// AuditLog is a task's record for people: every attempt and how it ended,
// the debugger's answer, the review findings, and how the task ended. The
// loop writes it to logs/<plan>/task-<id>.json after every attempt.
type AuditLog struct {
	Plan     string            `json:"plan"`
	Run      string            `json:"run"`
	Task     string            `json:"task"`
	Title    string            `json:"title"`
	Phase    string            `json:"phase"`
	Status   policy.TaskStatus `json:"status"`
	Reason   string            `json:"reason,omitempty"`
	Attempts []AuditAttempt    `json:"attempts"`
	// Debugger is set when the debugger was consulted.
	Debugger *AuditDebugger `json:"debugger,omitempty"`
	// Advice holds the advisor's answers, in order.
	Advice []policy.Advised `json:"advice,omitempty"`
	// Findings are every review finding of the task, by attempt.
	Findings  []string `json:"findings,omitempty"`
	Escalated bool     `json:"escalated"`
}

// repair adds what the task's state knows and the log lacks, after a crash
// came between the two: the attempts that finished, and how the task ended.
// It reports whether it changed anything.
func (a *AuditLog) repair(ts *policy.TaskState) bool {
	changed := false
	have := map[int]bool{}
	for _, at := range a.Attempts {
		have[at.Attempt] = true
	}
	failed := map[int]*policy.Failure{}
	for i := range ts.Failures {
		failed[ts.Failures[i].Attempt] = &ts.Failures[i]
	}
	for n := 1; n <= ts.Finished; n++ {
		if have[n] {
			continue
		}
		at := AuditAttempt{Attempt: n, Failure: failed[n]}
		if at.Failure == nil && (n != ts.Finished || ts.Status != policy.StatusDone) {
			at.Voided = "a crash kept this attempt's record from the log"
		}
		a.Attempts = append(a.Attempts, at)
		changed = true
	}
	if changed {
		slices.SortFunc(a.Attempts, func(x, y AuditAttempt) int { return x.Attempt - y.Attempt })
	}
	if ts.Status.Terminal() && a.Status != ts.Status {
		a.Status, a.Reason, a.Escalated = ts.Status, ts.Reason, ts.Status != policy.StatusDone
		changed = true
	}
	return changed
}

// AuditAttempt is one attempt in an [AuditLog].
type AuditAttempt struct {
	Attempt int           `json:"attempt"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Tokens  int64         `json:"tokens,omitempty"`
	CostUSD float64       `json:"cost_usd,omitempty"`
	// Failure is nil for the attempt that passed.
	Failure *policy.Failure `json:"failure,omitempty"`
	// Voided says why a fault of the harness voided the attempt.
	Voided string `json:"voided,omitempty"`
}

// AuditDebugger is the debugger's part of an [AuditLog].
type AuditDebugger struct {
	AfterAttempt int      `json:"after_attempt"`
	Found        bool     `json:"found"`
	RootCause    string   `json:"root_cause,omitempty"`
	Fix          string   `json:"fix,omitempty"`
	FiveWhys     []string `json:"five_whys,omitempty"`
}

// records writes handoffs, audit logs and reports under a directory. The
// zero value (no directory) keeps handoffs in memory and writes nothing.
//
// Records are derived from the journal, for people and prompts: they are
// replaced atomically but not fsync'd (a machine crash may lose the latest
// one, never the run), and an audit log changed by several transitions of
// one commit is written once, by flush.
// The records' names under the records directory: the run's records
// commit holds exactly these (recordPaths).
const (
	handoffsDir  = "handoffs"
	logsDir      = "logs"
	summaryFile  = "summary.md"
	escalationFn = "escalation-%s-%d.md" // task, sequence
)

// recordPaths are the records a run's records commit holds, relative to
// the records directory; the state files stay out of history.
var recordPaths = []string{handoffsDir, logsDir, summaryFile, "escalation-*.md"}

type records struct {
	dir      string
	handoffs map[string]*Handoff
	audits   map[string]*AuditLog
	dirty    []*AuditLog        // in the order they were marked
	isDirty  map[*AuditLog]bool // the same, to look up: a repair marks every task's log
}

func newRecords(dir string) *records {
	return &records{dir: dir, handoffs: map[string]*Handoff{}, audits: map[string]*AuditLog{}, isDirty: map[*AuditLog]bool{}}
}

// audit returns the task's log, read back from disk after a resume.
func (r *records) audit(plan, run, phase, id, title string) *AuditLog {
	if a := r.audits[id]; a != nil {
		return a
	}
	a := &AuditLog{Plan: plan, Run: run, Task: id, Title: title, Phase: phase}
	if r.dir != "" {
		if data, err := os.ReadFile(r.auditPath(plan, id)); err == nil {
			var old AuditLog
			if json.Unmarshal(data, &old) == nil && old.Run == run {
				a = &old
			}
		}
	}
	r.audits[id] = a
	return a
}

func (r *records) auditPath(plan, id string) string {
	return filepath.Join(r.dir, logsDir, plan, "task-"+id+".json")
}

// handoff returns a finished task's handoff, read back from disk after a resume.
func (r *records) handoff(id string) *Handoff {
	if h := r.handoffs[id]; h != nil {
		return h
	}
	if r.dir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(r.dir, handoffsDir, id+".json"))
	if err != nil {
		return nil
	}
	var h Handoff
	if json.Unmarshal(data, &h) != nil {
		return nil
	}
	r.handoffs[id] = &h
	return &h
}

// sweep removes the half-written records (fsx.IsReplaceTemp) a
// crash left behind, so no records commit takes one in. Only this run's
// loop writes here, and it is not writing now.
func (r *records) sweep() {
	if r.dir == "" {
		return
	}
	for _, sub := range []string{handoffsDir, logsDir} {
		filepath.WalkDir(filepath.Join(r.dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && fsx.IsReplaceTemp(d.Name()) {
				os.Remove(path)
			}
			return nil
		})
	}
}

// saveAudit marks a's log to be written at the next flush.
func (r *records) saveAudit(a *AuditLog) error {
	if !r.isDirty[a] {
		r.isDirty[a] = true
		r.dirty = append(r.dirty, a)
	}
	return nil
}

// flush writes the audit logs changed since the last flush.
func (r *records) flush() error {
	var err error
	for _, a := range r.dirty {
		err = errors.Join(err, r.write(r.auditPath(a.Plan, a.Task), a))
	}
	r.dirty = r.dirty[:0]
	clear(r.isDirty)
	return err
}

func (r *records) saveHandoff(h *Handoff) error {
	r.handoffs[h.Task] = h
	return r.write(filepath.Join(r.dir, handoffsDir, h.Task+".json"), h)
}

func (r *records) write(path string, v any) error {
	if r.dir == "" {
		return nil
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsx.ReplaceFile(path, append(data, '\n'), 0o644)
}

// writeText writes a report once: an existing file is kept.
func (r *records) writeText(name, text string) error {
	if r.dir == "" {
		return nil
	}
	path := filepath.Join(r.dir, name)
	if _, err := os.Stat(path); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fsx.ReplaceFile(path, []byte(text), 0o644)
}

// escalationReport tells a person where a task is stuck, what each attempt
// did, and what they can do.
func escalationReport(st *policy.RunState, a *AuditLog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: task %s needs a person\n\n", strings.ToUpper(string(st.Outcome)[:1])+string(st.Outcome)[1:], a.Task)
	fmt.Fprintf(&b, "Run %s of plan %s, phase %s: %s (%s).\n\n", st.Run, st.Plan, a.Phase, a.Title, a.Status)
	fmt.Fprintf(&b, "Where it is stuck: %s\n\n## Attempts\n\n", st.Reason)
	for _, at := range a.Attempts {
		if at.Voided != "" {
			fmt.Fprintf(&b, "- attempt %d: voided (%s)\n", at.Attempt, at.Voided)
			continue
		}
		if at.Failure == nil {
			fmt.Fprintf(&b, "- attempt %d: passed (%s)\n", at.Attempt, at.Elapsed.Round(time.Millisecond))
			continue
		}
		fmt.Fprintf(&b, "- attempt %d: %s (%s)\n", at.Attempt, at.Failure.Describe(), at.Elapsed.Round(time.Millisecond))
	}
	if d := a.Debugger; d != nil {
		fmt.Fprintf(&b, "\n## Debugger\n\nAfter attempt %d: ", d.AfterAttempt)
		if d.Found {
			fmt.Fprintf(&b, "root cause %q, fix %q.\n", d.RootCause, d.Fix)
		} else {
			b.WriteString("no root cause.\n")
			for i, w := range d.FiveWhys {
				fmt.Fprintf(&b, "%d. %s\n", i+1, w)
			}
		}
	}
	b.WriteString("\n## Options\n\n" +
		"- Fix the cause by hand, then `harnish resume`.\n" +
		"- Change the task (objective, acceptance, budget) in the plan, then `harnish resume --plan FILE`.\n" +
		"- Split the task into smaller ones.\n")
	return b.String()
}

// completionSummary is written once when a run completes.
func completionSummary(st *policy.RunState, hs []*Handoff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Run %s of plan %s completed\n\n", st.Run, st.Plan)
	fmt.Fprintf(&b, "%d tasks in %d attempts, %s of attempt time, %d tokens, $%.2f.\n\n",
		len(hs), st.Cycles, st.Elapsed.Round(time.Second), st.Tokens, st.CostUSD)
	var files, open []string
	seen := map[string]bool{} // of files; a search of the list would be O(n²) in a big run
	b.WriteString("## Tasks\n\n")
	for _, h := range hs {
		fmt.Fprintf(&b, "- %s: %s\n", h.Task, cmp.Or(h.Summary, string(h.Status)))
		for _, f := range h.FilesChanged {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
		open = append(open, h.Findings...)
	}
	if len(files) > 0 {
		fmt.Fprintf(&b, "\n## Files changed\n\n%s\n", "- "+strings.Join(files, "\n- "))
	}
	b.WriteString("\n## Suggested next step\n\n")
	if len(open) > 0 {
		fmt.Fprintf(&b, "Address the %d open review findings:\n- %s\n", len(open), strings.Join(open, "\n- "))
	} else {
		b.WriteString("Review the changes and merge them.\n")
	}
	return b.String()
}
