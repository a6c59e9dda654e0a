package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	// working tree is a git tree (the task's commit, once it is made, else
	// the diff of its attempts), else as the executor reports them.
	FilesChanged []string `json:"files_changed,omitempty"`
	// FilesFrom says where FilesChanged was read: "commit", "diff" or
	// "executor" (the agent's word alone); empty when there were none.
	FilesFrom string `json:"files_from,omitempty"`
	// Checks are the names of the checks that passed.
	Checks []string `json:"checks,omitempty"`
	// Findings are the review findings below critical, left for later.
	Findings []string `json:"findings,omitempty"`
	Attempts int      `json:"attempts"`
	// Decisions, OpenQuestions and Blocker are what the executor reported
	// of its own: the choices it made, what it left for a person to answer,
	// and what stands in a later task's way. Empty when it reported none.
	Decisions     []string `json:"decisions,omitempty"`
	OpenQuestions []string `json:"open_questions,omitempty"`
	Blocker       string   `json:"blocker,omitempty"`
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
	for _, d := range h.Decisions {
		fmt.Fprintf(&b, "Decision: %s\n", d)
	}
	for _, q := range h.OpenQuestions {
		fmt.Fprintf(&b, "Open question: %s\n", q)
	}
	if h.Blocker != "" {
		fmt.Fprintf(&b, "Blocker: %s\n", h.Blocker)
	}
	return b.String()
}

// AuditLog is a task's record for people: every attempt and how it ended,
// the debugger's answer, the review findings, and how the task ended. The
// loop writes it to logs/<plan>/task-<id>.json after every attempt.
//
// Besides harnish's own fields it has every field of Ralph Implement's task
// log (started_at through escalated), derived from the attempts and the end
// each time the log is written, so a log repaired after a crash says the
// same as one written as the run went.
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

	// StartedAt is when the task's first attempt started, EndedAt when the
	// task ended (zero while it has not, or when a crash lost when).
	StartedAt time.Time `json:"started_at,omitzero"`
	EndedAt   time.Time `json:"ended_at,omitzero"`
	// Retries counts the attempts after the first; voided ones are not
	// counted.
	Retries int `json:"retries"`
	// Passed says the task is done: its checks passed.
	Passed bool `json:"passed"`
	// FinalCheck is the task's acceptance checks, as commands.
	FinalCheck string `json:"final_check,omitempty"`
	// FinalResult says how the last attempt ended: passed, or its failure
	// and the end of the failing output.
	FinalResult string `json:"final_result,omitempty"`
	// FailureModes are the attempts' failure modes (fingerprint, else kind),
	// each once, in the order they first appeared.
	FailureModes []string `json:"failure_modes"`
	// CodeReviewerFindings sums up Findings in a line.
	CodeReviewerFindings string `json:"code_reviewer_findings"`
	// DebuggerInvoked says the debugger was consulted; FiveWhysInvoked, that
	// it found no root cause and left a five-whys record.
	DebuggerInvoked bool `json:"debugger_invoked"`
	FiveWhysInvoked bool `json:"five_whys_invoked"`
}

// put records at, replacing the record of the same attempt: a transition
// recorded again (a repair, a resume) does not double it.
func (a *AuditLog) put(at AuditAttempt) {
	i, found := slices.BinarySearchFunc(a.Attempts, at.Attempt, func(x AuditAttempt, n int) int { return x.Attempt - n })
	if found {
		a.Attempts[i] = at
		return
	}
	a.Attempts = slices.Insert(a.Attempts, i, at)
}

// putFindings records the review findings of an attempt: the critical ones
// of its failure, and those below critical.
func (a *AuditLog) putFindings(attempt int, f *policy.Failure, minor []string) {
	prefix := fmt.Sprintf("attempt %d: ", attempt)
	a.Findings = slices.DeleteFunc(a.Findings, func(s string) bool { return strings.HasPrefix(s, prefix) })
	if f != nil {
		for _, c := range f.Findings {
			a.Findings = append(a.Findings, fmt.Sprintf("%s[%s] %s:%d %s", prefix, c.Severity, c.File, c.Line, c.Message))
		}
	}
	for _, m := range minor {
		a.Findings = append(a.Findings, prefix+m)
	}
}

// finalResultTail bounds the failing output FinalResult keeps.
const finalResultTail = 1024

// filesFromText says where a handoff's files came from, for the summary.
var filesFromText = map[string]string{"commit": " (from its commit)", "diff": " (from its diff)", "executor": " (as the agent reported them)"}

// derive sets the fields that follow from the attempts, the debugger's
// answer and the status.
func (a *AuditLog) derive() {
	a.Passed = a.Status == policy.StatusDone
	a.FailureModes = []string{}
	counted, critical, rounds := 0, 0, 0
	seen := map[string]bool{}
	var last *AuditAttempt
	for i := range a.Attempts {
		at := &a.Attempts[i]
		if at.Voided != "" {
			continue
		}
		counted++
		last = at
		if a.StartedAt.IsZero() && !at.Ended.IsZero() {
			a.StartedAt = at.Ended.Add(-at.Elapsed)
		}
		f := at.Failure
		if f == nil {
			continue
		}
		if f.Kind == policy.FailReview {
			rounds++
			critical += len(f.Findings)
		}
		mode := f.Fingerprint
		if mode == "" {
			mode = strings.TrimSuffix(string(f.Kind)+":"+f.Class, ":")
		}
		if !seen[mode] {
			seen[mode] = true
			a.FailureModes = append(a.FailureModes, mode)
		}
	}
	a.Retries = max(0, counted-1)
	switch {
	case last == nil:
		a.FinalResult = ""
	case last.Failure == nil:
		a.FinalResult = fmt.Sprintf("passed at attempt %d", last.Attempt)
	default:
		a.FinalResult = fmt.Sprintf("attempt %d: %s", last.Attempt, last.Failure.Describe())
		if tail := strings.TrimSpace(last.Failure.OutputTail); tail != "" {
			if len(tail) > finalResultTail {
				tail = "…" + strings.ToValidUTF8(tail[len(tail)-finalResultTail:], "")
			}
			a.FinalResult += "\n" + tail
		}
	}
	a.CodeReviewerFindings = "none"
	if n := len(a.Findings); n > 0 {
		a.CodeReviewerFindings = fmt.Sprintf("%d finding(s), %d critical, %d review round(s) sent back; see findings", n, critical, rounds)
	}
	a.DebuggerInvoked = a.Debugger != nil
	a.FiveWhysInvoked = a.Debugger != nil && !a.Debugger.Found && len(a.Debugger.FiveWhys) > 0
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
		a.put(at)
		if at.Failure != nil && len(at.Failure.Findings) > 0 {
			a.putFindings(n, at.Failure, nil)
		}
		changed = true
	}
	if a.Debugger == nil && ts.DebuggedAt > 0 && !ts.NoDebugger {
		a.Debugger = debuggerOf(ts)
		changed = true
	}
	if ts.Status.Terminal() && a.Status != ts.Status {
		a.Status, a.Reason, a.Escalated = ts.Status, ts.Reason, ts.Status != policy.StatusDone
		changed = true
	}
	return changed
}

// debuggerOf is the debugger's answer as the task's state holds it.
func debuggerOf(ts *policy.TaskState) *AuditDebugger {
	d := &AuditDebugger{AfterAttempt: ts.DebuggedAt, Found: ts.RootCause}
	if diag := ts.Diagnosis; diag != nil && ts.RootCause {
		d.RootCause, d.Fix = diag.RootCause, diag.Fix
	} else if diag != nil {
		d.FiveWhys = diag.FiveWhys
	}
	return d
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
	// Ended is when the attempt ended; zero when a crash lost it.
	Ended time.Time `json:"ended_at,omitzero"`
	// Transcript is the attempt's transcript (the agent's stream, its exit
	// code and stderr), relative to the records directory when it lies
	// within; empty when none was kept.
	Transcript string `json:"transcript,omitempty"`
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
	// listed is what the record directories held when a repair first
	// looked; nil until then.
	listed map[string]bool
	// notes is the session notes the run's completion saved, relative to
	// the working tree's root: its records commit takes them in.
	notes string
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

// present reports whether a task's audit log, and with handoff its
// handoff, are on disk, without reading them: from one listing of each
// directory, not a stat a file.
func (r *records) present(plan, id string, handoff bool) bool {
	if r.listed == nil {
		r.listed = map[string]bool{}
		for _, sub := range []string{filepath.Join(logsDir, plan), handoffsDir} {
			names, _ := os.ReadDir(filepath.Join(r.dir, sub))
			for _, n := range names {
				if n.Type().IsRegular() {
					r.listed[filepath.Join(sub, n.Name())] = true
				}
			}
		}
	}
	return r.listed[filepath.Join(logsDir, plan, "task-"+id+".json")] &&
		(!handoff || r.listed[filepath.Join(handoffsDir, id+".json")])
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
		a.derive()
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

// completionSummary is the run's completion summary: what each task did
// and changed, the decisions made, and what to do next. It is linear in the
// plan's size. title names a task.
func completionSummary(st *policy.RunState, hs []*Handoff, title func(id string) string, decisions []string) string {
	var b strings.Builder
	b.Grow(256 * (len(hs) + 1)) // what a task takes, about: growing by doubling would copy the text over and over
	fmt.Fprintf(&b, "# Run %s of plan %s completed\n\n", st.Run, st.Plan)
	fmt.Fprintf(&b, "%d tasks in %d attempts, %s of attempt time, %d tokens, $%.2f.\n\n",
		len(hs), st.Cycles, st.Elapsed.Round(time.Second), st.Tokens, st.CostUSD)
	var files, open, questions, blockers []string
	seen := map[string]bool{} // of files; a search of the list would be O(n²) in a big run
	b.WriteString("## Tasks\n")
	for _, h := range hs {
		fmt.Fprintf(&b, "\n### %s: %s\n\n", h.Task, title(h.Task))
		fmt.Fprintf(&b, "%s after %d attempt(s).", cmp.Or(string(h.Status), "done"), h.Attempts)
		if h.Summary != "" {
			fmt.Fprintf(&b, " %s", oneLine(h.Summary))
		}
		b.WriteString("\n")
		if len(h.FilesChanged) > 0 {
			from := filesFromText[h.FilesFrom]
			fmt.Fprintf(&b, "Files%s: %s\n", from, strings.Join(h.FilesChanged, ", "))
		}
		for _, f := range h.FilesChanged {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
		for _, d := range h.Decisions {
			decisions = append(decisions, h.Task+": "+oneLine(d))
		}
		for _, q := range h.OpenQuestions {
			questions = append(questions, h.Task+": "+oneLine(q))
		}
		if h.Blocker != "" {
			blockers = append(blockers, h.Task+": "+oneLine(h.Blocker))
		}
		for _, f := range h.Findings {
			open = append(open, h.Task+": "+f)
		}
	}
	list := func(items []string) {
		for _, it := range items {
			b.WriteString("- " + it + "\n")
		}
	}
	for _, sec := range []struct {
		heading string
		items   []string
	}{{"Files changed", files}, {"Key decisions", decisions}, {"Open questions", questions}} {
		if len(sec.items) > 0 {
			fmt.Fprintf(&b, "\n## %s\n\n", sec.heading)
			list(sec.items)
		}
	}
	b.WriteString("\n## Suggested next step\n\n")
	switch {
	case len(blockers) > 0:
		b.WriteString("Clear what the tasks left in the way of later work:\n")
		list(blockers)
	case len(questions) > 0:
		fmt.Fprintf(&b, "Answer the %d open question(s) above before building on this run.\n", len(questions))
	case len(open) > 0:
		fmt.Fprintf(&b, "Address the %d open review findings:\n", len(open))
		list(open)
	case st.Branch != "":
		fmt.Fprintf(&b, "Review the changes on branch %s and merge them (or open a pull request).\n", st.Branch)
	default:
		b.WriteString("Review the changes and merge them.\n")
	}
	return b.String()
}

// oneLine is s's first line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// SessionNotes is asked, once when a run completes, whether to save the
// run's completion summary into the working tree as session notes, and
// where: it returns the path (relative to the working tree's root, or
// absolute within it), usually req.Path, or "" to save nothing. An error,
// or a path outside the tree, saves nothing and is logged. It is a host's
// chance to ask a person first; [SaveSessionNotes] saves without asking.
type SessionNotes func(ctx context.Context, req *SessionNotesRequest) (path string, err error)

// SessionNotesRequest is what a [SessionNotes] is asked about.
type SessionNotesRequest struct {
	Run  string
	Plan string
	// Text is the completion summary, as the records' summary.md holds it.
	Text string
	// Path is where the loop suggests saving it: docs/session-DATE.md, DATE
	// the day the run completed (UTC), or docs/session-DATE-N.md when
	// another run's notes hold that name.
	Path string
}

// SaveSessionNotes saves the notes where the loop suggests.
func SaveSessionNotes(_ context.Context, req *SessionNotesRequest) (string, error) {
	return req.Path, nil
}

// notesLine is the line summary.md ends with when the notes were saved:
// how a resume after a crash finds them for the records commit.
const notesLine = "Session notes: "

// sessionNotesPath suggests where the notes of a run completed at day go:
// the first name that is free or already holds text (a resume after a
// crash writes it again).
func sessionNotesPath(root string, day time.Time, text string) string {
	base := "docs/session-" + day.UTC().Format("2006-01-02")
	for n := 1; n < 100; n++ {
		name := base + ".md"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.md", base, n)
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(data) == text {
			return name
		}
	}
	return base + "-" + strconv.FormatInt(day.Unix(), 10) + ".md"
}

// summaryOf reports whether path is the summary of run, and the session
// notes it names.
func summaryOf(path, run string) (ok bool, notes string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, ""
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if !strings.HasPrefix(first, "# Run "+run+" ") {
		return false, ""
	}
	if i := strings.LastIndex(string(data), "\n"+notesLine); i >= 0 {
		notes, _, _ = strings.Cut(string(data[i+1+len(notesLine):]), "\n")
	}
	return true, strings.TrimSpace(notes)
}
