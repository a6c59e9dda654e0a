package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// builder collects the phases and tasks of one source and turns them into a
// plan that validates, or an error that points back into the source.
type builder struct {
	file     string
	name     string
	phases   []*phaseDraft
	byKey    map[string]*phaseDraft
	phaseIDs idSet
	taskIDs  idSet
	rawIDs   map[string]string // the source's task ID -> the plan's
	// dropUnknownDeps drops a dependency on a task the source does not hold
	// (it was archived, so it is done) instead of reporting it.
	dropUnknownDeps bool
}

type phaseDraft struct {
	key   string
	id    string
	title string
	at    pos
	field string
	tasks []*taskDraft
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
}

func newBuilder(file string) *builder {
	return &builder{
		file:     file,
		byKey:    map[string]*phaseDraft{},
		phaseIDs: idSet{},
		taskIDs:  idSet{},
		rawIDs:   map[string]string{},
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
		}
	}
	t.Title = strings.TrimSpace(t.Title)
	t.Objective = strings.TrimSpace(t.Objective)
	ph.tasks = append(ph.tasks, t)
}

// plan resolves dependencies, assembles the plan and validates it.
func (b *builder) plan() (*task.Plan, error) {
	p := &task.Plan{Version: "1", Name: b.name}
	if p.Name == "" {
		p.Name = "imported"
	}
	phaseOf := map[string]int{}
	var drafts [][]*taskDraft
	for _, ph := range b.phases {
		if len(ph.tasks) == 0 {
			continue
		}
		for _, t := range ph.tasks {
			phaseOf[t.ID] = len(p.Phases)
		}
		p.Phases = append(p.Phases, task.Phase{ID: ph.id, Title: ph.title})
		drafts = append(drafts, ph.tasks)
	}
	if len(p.Phases) == 0 {
		return nil, errorf(b.file, pos{}, "", "no tasks to import")
	}
	for i, ts := range drafts {
		for _, t := range ts {
			if err := b.resolve(t, i, phaseOf); err != nil {
				return nil, err
			}
			p.Phases[i].Tasks = append(p.Phases[i].Tasks, t.Task)
		}
	}
	for _, prob := range p.Validate().Errors() {
		return nil, b.locate(prob, drafts)
	}
	return p, nil
}

func (b *builder) resolve(t *taskDraft, phase int, phaseOf map[string]int) error {
	file := b.fileOf(t)
	t.DependsOn = nil
	seen := map[string]bool{}
	for _, raw := range t.deps {
		id, ok := b.rawIDs[raw]
		switch {
		case !ok && b.dropUnknownDeps:
			continue
		case !ok:
			return errorf(file, t.depAt, t.depF, "no task %s in the file", quote.String(raw))
		case id == t.ID:
			return errorf(file, t.depAt, t.depF, "task %s depends on itself", quote.String(raw))
		case phaseOf[id] > phase:
			return errorf(file, t.depAt, t.depF,
				"task %s is in a later phase; a task may depend only on tasks of its own or earlier phases", quote.String(raw))
		case seen[id]:
			continue
		}
		seen[id] = true
		t.DependsOn = append(t.DependsOn, id)
	}
	return nil
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

// idSet hands out IDs unique within one namespace.
type idSet map[string]bool

func (s idSet) unique(id, fallback string) string {
	if id == "" {
		id = fallback
	}
	if id == "" {
		id = "task"
	}
	cand := id
	for n := 2; s[cand]; n++ {
		suffix := "-" + strconv.Itoa(n)
		cand = trimID(id[:min(len(id), 64-len(suffix))]) + suffix
	}
	s[cand] = true
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
	return task.Check{Manual: text}, true
}

func addCriterion(checks []task.Check, text string) []task.Check {
	if c, ok := criterion(text); ok {
		return append(checks, c)
	}
	return checks
}
