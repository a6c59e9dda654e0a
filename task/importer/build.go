package importer

import (
	"container/heap"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// builder collects the phases and tasks of one source and turns them into a
// plan that validates, or an error that points back into the source. What
// the plan cannot hold as the source says it, it repairs and reports as a
// warning: a dependency on a task that is not there, one that closes a
// cycle, a path outside the working tree.
type builder struct {
	file     string
	name     string
	phases   []*phaseDraft
	byKey    map[string]*phaseDraft
	phaseIDs *idSet
	taskIDs  *idSet
	rawIDs   map[string]string // the source's task ID -> the plan's
	// archived says a dependency on a task the source does not hold names
	// one that was archived, so it is done: it is dropped, and the warning
	// says so.
	archived bool
	warn     *warnings
	// built maps the plan's task IDs to where they came from, once plan
	// has run.
	built map[string]source
}

type phaseDraft struct {
	key       string
	id        string
	title     string
	at        pos
	field     string
	milestone *task.Milestone
	tasks     []*taskDraft
}

type taskDraft struct {
	task.Task
	rawID string
	deps  []string // as the source spells them
	file  string   // the file the task is in, when not the builder's
	at    pos      // where the task is
	field string   // its path in the source
	depAt pos      // where its dependencies are
	depF  string
	src   source // where to write its status back
}

func newBuilder(file string, w *warnings) *builder {
	return &builder{
		file:     file,
		byKey:    map[string]*phaseDraft{},
		phaseIDs: newIDSet(),
		taskIDs:  newIDSet(),
		rawIDs:   map[string]string{},
		warn:     w,
	}
}

// phase returns the phase with the given key, adding it when new. id is the
// preferred ID; title an empty title falls back to the ID.
func (b *builder) phase(key, id, title string, at pos, field string) *phaseDraft {
	if ph := b.byKey[key]; ph != nil {
		if ph.title == ph.id && strings.TrimSpace(title) != "" {
			ph.title = strings.TrimSpace(title)
		}
		return ph
	}
	ph := &phaseDraft{key: key, at: at, field: field}
	ph.id = b.phaseIDs.unique(slug(id), fmt.Sprintf("phase-%d", len(b.phases)+1))
	ph.title = strings.TrimSpace(title)
	if ph.title == "" {
		ph.title = ph.id
	}
	b.phases = append(b.phases, ph)
	b.byKey[key] = ph
	return ph
}

// add puts t into ph. t.rawID is the source's ID (may be empty); fallback is
// used when it sanitizes to nothing.
func (b *builder) add(ph *phaseDraft, t *taskDraft, fallback string) {
	t.ID = b.taskIDs.unique(slug(t.rawID), slug(fallback))
	if t.rawID != "" {
		if _, dup := b.rawIDs[t.rawID]; !dup {
			b.rawIDs[t.rawID] = t.ID
		} else {
			b.warn.add(b.fileOf(t), t.at, t.field, "task ID %s is used twice; this one is %s in the plan, and dependencies name the first",
				quote.String(t.rawID), quote.String(t.ID))
		}
	}
	t.Title = strings.TrimSpace(t.Title)
	t.Objective = strings.TrimSpace(t.Objective)
	t.Files = b.paths(t, t.Files)
	ph.tasks = append(ph.tasks, t)
}

// paths keeps the paths a plan can hold: relative, inside the working tree.
// A leading "/" means the repository's root, as the peers write it.
func (b *builder) paths(t *taskDraft, in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range in {
		p = strings.TrimSpace(p)
		clean := path.Clean(strings.TrimLeft(filepath.ToSlash(p), "/"))
		switch {
		case p == "":
			continue
		case clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || (len(p) > 1 && p[1] == ':') || strings.HasPrefix(p, `\`):
			b.warn.add(b.fileOf(t), t.at, t.field, "file %s is not inside the working tree; left out of the task's scope", quote.String(p))
			continue
		case seen[clean]:
			continue
		case strings.HasPrefix(p, "/"):
			b.warn.add(b.fileOf(t), t.at, t.field, "file %s read as %s, relative to the working tree's root", quote.String(p), quote.String(clean))
		}
		seen[clean] = true
		out = append(out, clean)
	}
	return out
}

// result is plan with the sources of the tasks.
func (b *builder) result() (*task.Plan, map[string]source, error) {
	p, err := b.plan()
	return p, b.built, err
}

// plan resolves dependencies, assembles the plan and validates it.
func (b *builder) plan() (*task.Plan, error) {
	p := &task.Plan{Version: "1", Name: b.name}
	if p.Name == "" {
		p.Name = "imported"
	}
	var phases []*phaseDraft
	for _, ph := range b.phases {
		if len(ph.tasks) > 0 {
			phases = append(phases, ph)
		}
	}
	if len(phases) == 0 {
		if w := b.warn; w != nil && len(w.list) > 0 {
			return nil, errorf(b.file, pos{}, "", "no tasks to import; first problem: %s", w.list[0])
		}
		return nil, errorf(b.file, pos{}, "", "no tasks to import")
	}
	byID := map[string]*taskDraft{}
	phaseOf := map[string]int{}
	for i, ph := range phases {
		for _, t := range ph.tasks {
			byID[t.ID] = t
			phaseOf[t.ID] = i
		}
	}
	for _, ph := range phases {
		for _, t := range ph.tasks {
			b.resolve(t)
		}
	}
	b.breakCycles(phases, byID)
	phases = b.order(phases, phaseOf)
	var drafts [][]*taskDraft
	for _, ph := range phases {
		p.Phases = append(p.Phases, task.Phase{ID: ph.id, Title: ph.title, Milestone: ph.milestone})
		var ts []task.Task
		for _, t := range ph.tasks {
			ts = append(ts, t.Task)
		}
		p.Phases[len(p.Phases)-1].Tasks = ts
		drafts = append(drafts, ph.tasks)
	}
	for _, prob := range p.Validate().Errors() {
		return nil, b.locate(prob, drafts)
	}
	b.built = map[string]source{}
	for _, ph := range phases {
		for _, t := range ph.tasks {
			src := t.src
			src.rawID, src.phase, src.phaseTitle = t.rawID, ph.key, ph.title
			b.built[t.ID] = src
		}
	}
	return p, nil
}

// resolve turns the source's dependencies into the plan's task IDs, dropping
// with a warning those that cannot be.
func (b *builder) resolve(t *taskDraft) {
	file := b.fileOf(t)
	t.DependsOn = nil
	seen := map[string]bool{}
	for _, raw := range t.deps {
		id, ok := b.rawIDs[raw]
		switch {
		case !ok && b.archived:
			b.warn.add(file, t.depAt, t.depF, "task %s is not in the file (archived, so taken as done); dependency dropped", quote.String(raw))
			continue
		case !ok:
			b.warn.add(file, t.depAt, t.depF, "no task %s in the file; dependency dropped", quote.String(raw))
			continue
		case id == t.ID:
			b.warn.add(file, t.depAt, t.depF, "task %s depends on itself; dependency dropped", quote.String(raw))
			continue
		case seen[id]:
			continue
		}
		seen[id] = true
		t.DependsOn = append(t.DependsOn, id)
	}
}

// order puts phases after the phases their tasks depend on, keeping the
// source's order otherwise. When phases depend on each other both ways
// (a task of phase 2 needs one of phase 5, which needs another of phase 2),
// the source's order is kept and the tasks that need a later phase move
// into it (see moveForward).
func (b *builder) order(phases []*phaseDraft, phaseOf map[string]int) []*phaseDraft {
	n := len(phases)
	after := make([][]int, n) // after[j]: phases that need phase j first
	need := make([]int, n)
	for i, ph := range phases {
		seen := map[int]bool{}
		for _, t := range ph.tasks {
			for _, d := range t.DependsOn {
				if j := phaseOf[d]; j != i && !seen[j] {
					seen[j] = true
					after[j] = append(after[j], i)
					need[i]++
				}
			}
		}
	}
	var out []int
	ready := &intHeap{}
	for i := range n {
		if need[i] == 0 {
			heap.Push(ready, i)
		}
	}
	for ready.Len() > 0 {
		next := heap.Pop(ready).(int)
		out = append(out, next)
		for _, i := range after[next] {
			if need[i]--; need[i] == 0 {
				heap.Push(ready, i)
			}
		}
	}
	if len(out) < n {
		return b.moveForward(phases)
	}
	sorted := make([]*phaseDraft, n)
	for k, i := range out {
		sorted[k] = phases[i]
	}
	return sorted
}

// moveForward moves each task that depends on a task of a later phase to
// the end of that phase, with a warning, until no task does; the source's
// order of the phases is kept. Tasks only move later and there is no cycle
// among tasks (breakCycles ran), so it ends; a pass bound keeps it linear
// in the phases, and what is left after it is dropped with a warning.
func (b *builder) moveForward(phases []*phaseDraft) []*phaseDraft {
	index := map[string]int{}
	for i, ph := range phases {
		for _, t := range ph.tasks {
			index[t.ID] = i
		}
	}
	for pass := 0; pass <= len(phases); pass++ {
		moved := false
		for i, ph := range phases {
			kept := ph.tasks[:0]
			for _, t := range ph.tasks {
				j, dep := i, ""
				for _, d := range t.DependsOn {
					if index[d] > j {
						j, dep = index[d], d
					}
				}
				if j == i {
					kept = append(kept, t)
					continue
				}
				if pass == len(phases) {
					t.DependsOn = slices.DeleteFunc(t.DependsOn, func(d string) bool { return index[d] > i })
					b.warn.add(b.fileOf(t), t.depAt, t.depF, "dependencies on later phases dropped")
					kept = append(kept, t)
					continue
				}
				b.warn.add(b.fileOf(t), t.at, t.field, "task %s needs %s of the later phase %s; moved into that phase (phases that need each other keep their order)",
					quote.String(t.ID), quote.String(dep), quote.String(phases[j].id))
				phases[j].tasks = append(phases[j].tasks, t)
				index[t.ID] = j
				moved = true
			}
			ph.tasks = kept
		}
		if !moved {
			break
		}
	}
	return slices.DeleteFunc(phases, func(ph *phaseDraft) bool { return len(ph.tasks) == 0 })
}

// intHeap is a min-heap of phase indexes: of the phases ready, the one
// listed first goes first.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// breakCycles drops, with a warning, each dependency that closes a cycle
// within a phase.
func (b *builder) breakCycles(phases []*phaseDraft, byID map[string]*taskDraft) {
	const (
		unseen = iota
		active
		finished
	)
	state := map[string]int{}
	var visit func(t *taskDraft)
	visit = func(t *taskDraft) {
		state[t.ID] = active
		t.DependsOn = slices.DeleteFunc(t.DependsOn, func(d string) bool {
			switch state[d] {
			case active:
				b.warn.add(b.fileOf(t), t.depAt, t.depF, "dependency on %s closes a cycle; dropped", quote.String(d))
				return true
			case unseen:
				visit(byID[d])
			}
			return false
		})
		state[t.ID] = finished
	}
	for _, ph := range phases {
		for _, t := range ph.tasks {
			if state[t.ID] == unseen {
				visit(t)
			}
		}
	}
}

var problemTask = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^phases\[(\d+)\]\.tasks\[(\d+)\]\.?`) })

// locate turns a validation problem of the built plan into an error at the
// task it concerns.
func (b *builder) locate(prob task.Problem, drafts [][]*taskDraft) error {
	msg := prob.Message
	if m := problemTask().FindStringSubmatch(prob.Field); m != nil {
		i, _ := strconv.Atoi(m[1])
		j, _ := strconv.Atoi(m[2])
		t := drafts[i][j]
		if rest := prob.Field[len(m[0]):]; rest != "" {
			msg = rest + ": " + msg
		}
		return errorf(b.fileOf(t), t.at, t.field, "%s", msg)
	}
	if prob.Field != "" {
		msg = prob.Field + ": " + msg
	}
	return errorf(b.file, pos{}, "", "%s", msg)
}

func (b *builder) fileOf(t *taskDraft) string {
	if t.file != "" {
		return t.file
	}
	return b.file
}

// idSet hands out IDs unique within one namespace. next remembers, for an ID
// asked for more than once, the suffix to try next, so that many tasks with
// one ID cost linear time.
type idSet struct {
	used map[string]bool
	next map[string]int
}

func newIDSet() *idSet { return &idSet{used: map[string]bool{}, next: map[string]int{}} }

func (s *idSet) unique(id, fallback string) string {
	if id == "" {
		id = fallback
	}
	if id == "" {
		id = "task"
	}
	cand := id
	n := max(s.next[id], 2)
	for ; s.used[cand]; n++ {
		suffix := "-" + strconv.Itoa(n)
		cand = trimID(id[:min(len(id), 64-len(suffix))]) + suffix
	}
	s.next[id] = n
	s.used[cand] = true
	return cand
}

// slug turns text into an ID: letters, digits, '.', '_' and '-', starting
// with a letter or digit, at most 64 characters; other characters become '-'.
// It returns "" when nothing usable is left.
func slug(s string) string {
	var b []byte
	for _, r := range s {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_'):
			b = append(b, byte(r))
		case len(b) > 0 && b[len(b)-1] != '-':
			b = append(b, '-')
		}
	}
	out := strings.TrimLeft(string(b), "._-")
	if len(out) > 64 {
		out = out[:64]
	}
	return trimID(out)
}

func trimID(s string) string { return strings.TrimRight(s, "._-") }

// Checks: a source's acceptance text becomes a check that runs when it is
// plainly a command, and a manual check otherwise.

var passes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?i)^`([^`]+)`\\s*(?:が|で|を実行して|runs? and)?\\s*(?:全\\s*)?(?:pass(?:es)?|succeeds?|exits? 0|is green|green|通過|成功|ok)(?:[\\s。.、,]*|\\s*\\(.*\\))$")
})

// shellChars are those that need a shell to mean what they say.
const shellChars = "|&;<>()$`\\\"'*?[]#~{}!\n"

// command returns the check that runs cmd: an argv when it is a plain list of
// words, a shell script otherwise.
func command(cmd string) (task.Check, bool) {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return task.Check{}, false
	}
	words := strings.Fields(cmd)
	if strings.ContainsAny(cmd, shellChars) || strings.Contains(words[0], "=") {
		return task.Check{Sh: cmd}, true
	}
	return task.Check{Run: words}, true
}

// criterion turns one acceptance criterion written as text into a check. It
// is a command when the whole text is one code span (`go test ./...`) or
// starts with "$ "; anything else is a manual check.
func criterion(text string) (task.Check, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return task.Check{}, false
	}
	if c, ok := strings.CutPrefix(text, "$ "); ok {
		return command(c)
	}
	if len(text) > 2 && text[0] == '`' && text[len(text)-1] == '`' && !strings.Contains(text[1:len(text)-1], "`") {
		inner := text[1 : len(text)-1]
		return command(strings.TrimPrefix(strings.TrimSpace(inner), "$ "))
	}
	// "`make e2e` passes", "`./tests/validate.sh` 全 PASS": a command and
	// the plain word that it must succeed.
	if m := passes().FindStringSubmatch(text); m != nil {
		return command(strings.TrimPrefix(strings.TrimSpace(m[1]), "$ "))
	}
	return task.Check{Manual: text}, true
}

func addCriterion(checks []task.Check, text string) []task.Check {
	if c, ok := criterion(text); ok {
		return append(checks, c)
	}
	return checks
}
