package importer

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/harnish/harnish/task"
)

// ProgressFile converts a harnish progress file (harnish-current-work.json)
// into a plan. name names the file in errors and, when the file names no PRD,
// gives the plan its name. See the package documentation for the fields read.
func ProgressFile(name string, data []byte) (*task.Plan, error) {
	if len(data) > task.MaxPlanSize {
		return nil, tooLarge(name, strconv.Itoa(len(data))+" bytes")
	}
	root, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	if root.kind != jsonObject {
		return nil, errorf(name, root.at, "", "expected an object, got %s", root.describe())
	}
	r := &jsonReader{file: name}
	meta := r.object(root, "metadata", "metadata", true)
	done := r.object(root, "done", "done", true)
	doing := r.object(root, "doing", "doing", true)
	todo := r.object(root, "todo", "todo", true)
	if r.err != nil {
		return nil, r.err
	}
	b := newBuilder(name)
	b.name = progressName(r.str(meta, "prd", "metadata.prd", false), name)
	var statusPhase string
	if st := r.object(meta, "status", "metadata.status", false); st != nil {
		statusPhase, _ = r.key(st, "phase", "metadata.status.phase", false)
	}
	donePhases := readProgressPhases(r, done, "done", task.StatusDone)
	var current *taskDraft
	var currentPhase string
	if v := r.object(doing, "task", "doing.task", false); v != nil {
		current = readProgressTask(r, v, "doing.task", task.StatusDoing)
		currentPhase, _ = r.key(v, "phase", "doing.task.phase", false)
	}
	todoPhases := readProgressPhases(r, todo, "todo", task.StatusTodo)
	if r.err != nil {
		return nil, r.err
	}

	add := func(phases []progressPhase) {
		for _, ph := range phases {
			pd := b.phase(ph.key, progressPhaseID(ph.key), ph.title, ph.at, ph.field)
			fallback := pd.id + "-task"
			if ph.compressed {
				fallback = pd.id + "-archived"
			}
			for _, t := range ph.tasks {
				b.add(pd, t, fallback)
			}
			b.dropUnknownDeps = b.dropUnknownDeps || ph.compressed
		}
	}
	add(donePhases)
	if current != nil {
		key := currentPhase
		if key == "" {
			key = statusPhase
		}
		if key == "" {
			key = idPhase(current.rawID, donePhases, todoPhases)
		}
		title := ""
		if key == "" {
			key, title = "doing", "In progress"
		}
		add([]progressPhase{{key: key, title: title, at: current.at, field: "doing.task", tasks: []*taskDraft{current}}})
	}
	add(todoPhases)
	return b.plan()
}

type progressPhase struct {
	key, title string
	at         pos
	field      string
	compressed bool
	tasks      []*taskDraft
}

func readProgressPhases(r *jsonReader, section *jsonValue, name string, status task.Status) []progressPhase {
	var out []progressPhase
	for i, v := range r.list(section, "phases", name+".phases", true) {
		field := fmt.Sprintf("%s.phases[%d]", name, i)
		if v.kind != jsonObject {
			r.fail(v, field, "expected an object, got %s", v.describe())
			return nil
		}
		key, _ := r.key(v, "phase", field+".phase", true)
		ph := progressPhase{key: key, title: r.str(v, "title", field+".title", false), at: v.at, field: field}
		if c := r.field(v, "compressed", field+".compressed", false); c != nil {
			if c.kind != jsonBool {
				r.fail(c, field+".compressed", "expected true or false, got %s", c.describe())
			}
			ph.compressed = c.b
		}
		if ph.compressed {
			// The phase's tasks moved to the archive; one done task stands for them.
			t := &taskDraft{at: v.at, field: field}
			t.Title = ph.title + " (archived)"
			if ph.title == "" {
				t.Title = "Phase " + key + " (archived)"
			}
			t.Objective = joinLines(
				r.str(v, "compressed_summary", field+".compressed_summary", false),
				prefixed("Archive: ", r.str(v, "archive_ref", field+".archive_ref", false)))
			t.Status = task.StatusDone
			ph.tasks = append(ph.tasks, t)
		} else {
			for j, tv := range r.list(v, "tasks", field+".tasks", true) {
				tf := fmt.Sprintf("%s.tasks[%d]", field, j)
				if t := readProgressTask(r, tv, tf, status); t != nil {
					ph.tasks = append(ph.tasks, t)
				}
			}
		}
		out = append(out, ph)
	}
	return out
}

func readProgressTask(r *jsonReader, v *jsonValue, field string, status task.Status) *taskDraft {
	if v.kind != jsonObject {
		r.fail(v, field, "expected an object, got %s", v.describe())
		return nil
	}
	t := &taskDraft{at: v.at, field: field}
	t.Status = status
	t.rawID = r.str(v, "id", field+".id", true)
	t.Title = r.str(v, "title", field+".title", true)
	t.deps = r.strings(v, "depends_on", field+".depends_on")
	t.depAt, t.depF = v.at, field+".depends_on"
	if d := v.get("depends_on"); d != nil {
		t.depAt = d.at
	}
	t.Files = r.strings(v, "files_changed", field+".files_changed")
	for _, c := range r.strings(v, "acceptance_criteria", field+".acceptance_criteria") {
		t.Acceptance = addCriterion(t.Acceptance, c)
	}
	t.Acceptance = addCriterion(t.Acceptance, r.str(v, "verification", field+".verification", false))
	var guide string
	if ctx := r.object(v, "context", field+".context", false); ctx != nil {
		guide = r.str(ctx, "guide", field+".context.guide", false)
	}
	t.Objective = joinLines(
		r.str(v, "result", field+".result", false),
		guide,
		prefixed("Next action: ", r.str(v, "next_action", field+".next_action", false)),
		prefixed("Blocker: ", r.str(v, "blocker", field+".blocker", false)))
	return t
}

// progressName derives the plan's name from the PRD path
// ("docs/prd-redis-cache.md" -> "redis-cache"), else from the file's name.
func progressName(prd, file string) string {
	base := strings.TrimSuffix(path.Base(filepath.ToSlash(prd)), path.Ext(prd))
	if n := slug(strings.TrimPrefix(base, "prd-")); prd != "" && n != "" {
		return n
	}
	base = filepath.Base(file)
	return slug(strings.TrimSuffix(base, filepath.Ext(base)))
}

// progressPhaseID makes phase 2 "phase-2"; a phase named by a string keeps it.
func progressPhaseID(key string) string {
	if strings.Trim(key, "0123456789") == "" {
		return "phase-" + key
	}
	return key
}

// idPhase guesses the phase of a task from its ID, "2-3" being task 3 of
// phase 2, when such a phase exists; "" otherwise.
func idPhase(id string, lists ...[]progressPhase) string {
	prefix, _, ok := strings.Cut(id, "-")
	if !ok {
		prefix, _, ok = strings.Cut(id, ".")
	}
	if !ok {
		return ""
	}
	for _, phases := range lists {
		for _, ph := range phases {
			if ph.key == prefix {
				return prefix
			}
		}
	}
	return ""
}

func prefixed(prefix, s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return prefix + strings.TrimSpace(s)
}

// joinLines joins the non-empty parts, one a line.
func joinLines(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
