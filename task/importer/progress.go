package importer

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// ProgressFile converts a harnish progress file (harnish-current-work.json)
// into a plan. name names the file in errors and, when the file names no PRD,
// gives the plan its name. See the package documentation for the fields read.
// It does not read the archive beside the file, nor report warnings: use
// [Import] for both.
func ProgressFile(name string, data []byte) (*task.Plan, error) {
	p, _, err := progressFile(name, data, "", nil, &warnings{})
	return p, err
}

// The fields of a progress file's task that are read, and those that are
// run state (timestamps, counters) with no place in a plan.
var (
	progressTaskKeys = []string{"id", "title", "depends_on", "files_changed", "files", "acceptance_criteria",
		"verification", "result", "summary", "guide", "context", "next_action", "blocker", "current", "last_action",
		"guardrails", "prohibitions", "estimated_effort", "status", "tags", "phase", "description", "objective",
		"started_at", "completed_at", "duration", "retry_count", "updated_at"}
	progressPhaseKeys = []string{"phase", "id", "title", "tasks", "compressed", "compressed_summary", "archive_ref",
		"milestone_approved_at", "objective", "completion_condition", "milestone", "status", "description",
		"completed_at", "started_at"}
)

func progressFile(name string, data []byte, archiveName string, archive []byte, w *warnings) (*task.Plan, map[string]source, error) {
	if len(data) > task.MaxPlanSize {
		return nil, nil, tooLarge(name, strconv.Itoa(len(data))+" bytes")
	}
	root, err := parseJSON(name, data)
	if err != nil {
		return nil, nil, err
	}
	if root.kind != jsonObject {
		return nil, nil, errorf(name, root.at, "", "expected an object, got %s", root.describe())
	}
	r := &jsonReader{file: name, w: w}
	pr := &progressReader{r: r, b: newBuilder(name, w), seen: map[string]task.Status{}}
	meta := r.object(root, "metadata", "metadata")
	project := r.object(root, "project", "project")
	prd := r.str(meta, "prd", "metadata.prd")
	if prd == "" {
		prd = r.str(project, "prd", "project.prd")
	}
	pr.b.name = progressName(prd, r.str(project, "name", "project.name"), name)
	pr.projectNotes(project)
	var statusPhase string
	if st := r.field(meta, "status"); st != nil && st.kind == jsonObject {
		statusPhase = r.key(st, "phase", "metadata.status.phase")
	}
	pr.archive = readArchive(archiveName, archive, w)

	done := r.object(root, "done", "done")
	doing := r.object(root, "doing", "doing")
	todo := r.object(root, "todo", "todo")
	phases := r.list(root, "phases", "phases") // the task schema's own form
	if done == nil && doing == nil && todo == nil && phases == nil {
		return nil, nil, errorf(name, root.at, "", "neither done, doing and todo nor phases: not a progress file")
	}
	if h := historyKeys(root); len(h) > 0 {
		w.add(name, root.at, strings.Join(h, ", "), "the run's history (issues, violations, escalations) is not part of a plan; not imported")
	}
	pr.section(done, "done", task.StatusDone)
	todoKeys := slices.Clone(pr.keys)
	quiet := &jsonReader{file: name}
	for _, v := range quiet.list(todo, "phases", "") {
		if v.kind == jsonObject {
			todoKeys = append(todoKeys, orText(quiet.key(v, "phase", ""), quiet.key(v, "id", "")))
		}
	}
	var current *jsonValue
	if doing != nil {
		current = r.object(doing, "task", "doing.task")
	}
	if current != nil {
		key := r.key(current, "phase", "doing.task.phase")
		if key == "" {
			key = statusPhase
		}
		if key == "" {
			key = idPhase(quiet.key(current, "id", ""), todoKeys)
		}
		title := ""
		if key == "" {
			key, title = "doing", "In progress"
		}
		ph := &progressPhase{key: key, title: title, at: current.at, field: "doing.task"}
		pr.addPhase(ph, nil)
		pr.task(ph, current, "doing.task", task.StatusDoing)
	}
	pr.section(todo, "todo", task.StatusTodo)
	for i, v := range phases {
		pr.phase(v, fmt.Sprintf("phases[%d]", i), task.StatusTodo)
	}
	return pr.b.result()
}

// historyKeys lists the non-empty run history lists of a progress file.
func historyKeys(root *jsonValue) []string {
	var out []string
	for _, k := range []string{"issues", "violations", "escalations"} {
		if v := root.get(k); v != nil && v.kind == jsonArray && len(v.elems) > 0 {
			out = append(out, k)
		}
	}
	return out
}

type progressReader struct {
	r       *jsonReader
	b       *builder
	archive map[string][]archiveRecord
	keys    []string               // phase keys, in order
	seen    map[string]task.Status // task IDs added, and how
	notes   []string               // the project's guardrails and prohibitions, for every task to do
}

type progressPhase struct {
	key, title string
	at         pos
	field      string
	draft      *phaseDraft
	notes      []string // the phase's objective, for its tasks
}

func (pr *progressReader) projectNotes(project *jsonValue) {
	r := pr.r
	if project == nil {
		return
	}
	if g := r.field(project, "guardrails"); g != nil {
		pr.notes = append(pr.notes, guardrailNotes(r, g, "project.guardrails")...)
	}
	for _, p := range prohibitions(r, project, "project.prohibitions") {
		pr.notes = append(pr.notes, "Prohibited: "+p)
	}
	r.unknown(project, "project", "name", "prd", "created", "guardrails", "prohibitions", "description")
}

// guardrailNotes reads guardrails given as a list of rules or as lists by
// kind ({architecture: [...], scope: [...]}).
func guardrailNotes(r *jsonReader, g *jsonValue, field string) []string {
	var out []string
	if g.kind != jsonObject {
		for _, s := range r.strings(&jsonValue{kind: jsonObject, keys: []string{"g"}, vals: []*jsonValue{g}}, "g", field) {
			out = append(out, "Guardrail: "+s)
		}
		return out
	}
	for _, k := range g.keys {
		label := strings.ReplaceAll(k, "_", " ")
		for _, s := range r.strings(g, k, field+"."+k) {
			out = append(out, "Guardrail ("+label+"): "+s)
		}
	}
	return out
}

// prohibitions reads a list of rules, each a string or {id, rule, on_violation}.
func prohibitions(r *jsonReader, parent *jsonValue, field string) []string {
	var out []string
	for i, v := range r.list(parent, "prohibitions", field) {
		f := fmt.Sprintf("%s[%d]", field, i)
		if v.kind != jsonObject {
			if s := strings.TrimSpace(r.text(v, f)); s != "" {
				out = append(out, s)
			}
			continue
		}
		rule := r.str(v, "rule", f+".rule")
		if rule == "" {
			rule = r.str(v, "id", f+".id")
		}
		if rule == "" {
			r.warnf(v, f, "a prohibition without a rule; not imported")
			continue
		}
		if id := r.str(v, "id", f+".id"); id != "" && id != rule {
			rule = id + ": " + rule
		}
		if on := r.str(v, "on_violation", f+".on_violation"); on != "" {
			rule += " (on violation: " + on + ")"
		}
		out = append(out, rule)
	}
	return out
}

func (pr *progressReader) section(sec *jsonValue, name string, status task.Status) {
	for i, v := range pr.r.list(sec, "phases", name+".phases") {
		pr.phase(v, fmt.Sprintf("%s.phases[%d]", name, i), status)
	}
	pr.r.unknown(sec, name, "phases", "task")
}

func (pr *progressReader) phase(v *jsonValue, field string, status task.Status) {
	r := pr.r
	if v.kind != jsonObject {
		r.warnf(v, field, "expected a phase object, got %s; not imported", v.describe())
		return
	}
	r.unknown(v, field, progressPhaseKeys...)
	key := r.key(v, "phase", field+".phase")
	if key == "" {
		key = r.key(v, "id", field+".id")
	}
	if key == "" {
		key = strconv.Itoa(len(pr.keys) + 1)
		r.warnf(v, field+".phase", "a phase without a number; taken as phase %s", key)
	}
	ph := &progressPhase{key: key, title: r.str(v, "title", field+".title"), at: v.at, field: field}
	if obj := r.str(v, "objective", field+".objective"); obj != "" {
		ph.notes = append(ph.notes, "Phase objective: "+obj)
	}
	pr.addPhase(ph, v)
	compressed := false
	if c := r.field(v, "compressed"); c != nil {
		if c.kind == jsonBool {
			compressed = c.b
		} else {
			r.warnf(c, field+".compressed", "expected true or false, got %s; taken as false", c.describe())
		}
	}
	if compressed {
		pr.compressed(ph, v, field)
		return
	}
	for j, tv := range r.list(v, "tasks", field+".tasks") {
		pr.task(ph, tv, fmt.Sprintf("%s.tasks[%d]", field, j), status)
	}
}

// addPhase finds or adds the phase, and reads its milestone from v.
func (pr *progressReader) addPhase(ph *progressPhase, v *jsonValue) {
	r := pr.r
	if pr.b.byKey[ph.key] == nil {
		pr.keys = append(pr.keys, ph.key)
	}
	ph.draft = pr.b.phase(ph.key, progressPhaseID(ph.key), ph.title, ph.at, ph.field)
	if v == nil {
		return
	}
	m := ph.draft.milestone
	if m == nil {
		m = &task.Milestone{}
	}
	if c := r.str(v, "completion_condition", ph.field+".completion_condition"); c != "" && !slices.Contains(m.Manual, c) {
		m.Manual = append(m.Manual, c)
	}
	if mv := r.object(v, "milestone", ph.field+".milestone"); mv != nil {
		r.unknown(mv, ph.field+".milestone", "gate", "requires_approval", "report_includes", "manual")
		if g := r.field(mv, "gate"); g != nil && g.kind == jsonBool {
			m.Gate = &g.b
		} else if s := r.text(g, ph.field+".milestone.gate"); s != "" && !slices.Contains(m.Manual, s) {
			m.Manual = append(m.Manual, s)
		}
		for _, s := range r.strings(mv, "manual", ph.field+".milestone.manual") {
			m.Manual = append(m.Manual, s)
		}
		if a := r.field(mv, "requires_approval"); a != nil {
			if a.kind == jsonBool {
				m.Gate = &a.b
			} else {
				r.warnf(a, ph.field+".milestone.requires_approval", "expected true or false, got %s; not imported", a.describe())
			}
		}
		if rep := r.field(mv, "report_includes"); rep != nil {
			r.warnf(rep, ph.field+".milestone.report_includes", "harnish writes its own milestone report; not imported")
		}
	}
	if at := r.str(v, "milestone_approved_at", ph.field+".milestone_approved_at"); at != "" {
		// The gate after this phase was passed already: do not ask again.
		no := false
		m.Gate = &no
	}
	if m.Gate != nil || len(m.Manual) > 0 {
		ph.draft.milestone = m
	}
}

// compressed adds the tasks of a phase whose tasks were moved to the
// archive: one done task per ID the archive records, or one standing for
// them all when it has no record.
func (pr *progressReader) compressed(ph *progressPhase, v *jsonValue, field string) {
	r := pr.r
	summary := joinLines(r.str(v, "compressed_summary", field+".compressed_summary"),
		prefixed("Archive: ", r.str(v, "archive_ref", field+".archive_ref")))
	recs := pr.archive[ph.key]
	var ids []string
	var files []string
	for _, rec := range recs {
		ids = append(ids, rec.taskIDs...)
		files = append(files, rec.files...)
		if rec.approved {
			no := false
			if ph.draft.milestone == nil {
				ph.draft.milestone = &task.Milestone{}
			}
			ph.draft.milestone.Gate = &no
		}
	}
	if len(ids) == 0 {
		t := &taskDraft{at: v.at, field: field}
		t.Title = orText(ph.title, "Phase "+ph.key) + " (archived)"
		t.Objective = summary
		t.Status = task.StatusDone
		t.src.archived = true
		pr.b.add(ph.draft, t, ph.draft.id+"-archived")
		pr.b.archived = true
		return
	}
	for _, id := range ids {
		if _, dup := pr.seen[id]; dup {
			continue
		}
		pr.seen[id] = task.StatusDone
		t := &taskDraft{rawID: id, at: v.at, field: field}
		t.Title = "Task " + id + " (archived)"
		t.src.archived = true
		t.Objective = joinLines(summary, prefixed("Files changed in the phase: ", strings.Join(files, ", ")))
		t.Status = task.StatusDone
		pr.b.add(ph.draft, t, ph.draft.id+"-task")
	}
}

func orText(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}

var rank = map[task.Status]int{task.StatusTodo: 0, task.StatusDoing: 1, task.StatusDone: 2}

func (pr *progressReader) task(ph *progressPhase, v *jsonValue, field string, status task.Status) {
	r := pr.r
	if v.kind != jsonObject {
		r.warnf(v, field, "expected a task object, got %s; not imported", v.describe())
		return
	}
	r.unknown(v, field, progressTaskKeys...)
	t := &taskDraft{at: v.at, field: field}
	t.rawID = r.key(v, "id", field+".id")
	if s := r.str(v, "status", field+".status"); s != "" {
		if st, ok := stepStatus(s); ok {
			status = st
		} else {
			r.warnf(v.get("status"), field+".status", "unknown status %s; taken as %s", quote.String(s), status)
		}
	}
	t.Status = status
	if t.rawID != "" {
		if prev, dup := pr.seen[t.rawID]; dup {
			kept := prev
			if rank[status] > rank[prev] {
				kept = status // cannot happen in file order done, doing, todo; kept for the task schema's form
			}
			r.warnf(v, field+".id", "task %s is listed again (as %s, before as %s); imported once, as %s",
				quote.String(t.rawID), status, prev, kept)
			return
		}
		pr.seen[t.rawID] = status
	}
	t.Title = strings.TrimSpace(r.str(v, "title", field+".title"))
	if t.Title == "" {
		t.Title = r.str(v, "description", field+".description")
	}
	if t.Title == "" {
		t.Title = orText(t.rawID, "Untitled task")
		r.warnf(v, field+".title", "missing; the task is titled %s", quote.String(t.Title))
	}
	t.deps = r.strings(v, "depends_on", field+".depends_on")
	t.depAt, t.depF = v.at, field+".depends_on"
	if d := v.get("depends_on"); d != nil {
		t.depAt = d.at
	}
	t.Files = append(r.strings(v, "files", field+".files"), r.strings(v, "files_changed", field+".files_changed")...)
	t.Tags = r.strings(v, "tags", field+".tags")
	for _, c := range r.strings(v, "acceptance_criteria", field+".acceptance_criteria") {
		t.Acceptance = addCriterion(t.Acceptance, c)
	}
	t.Acceptance = addCriterion(t.Acceptance, r.str(v, "verification", field+".verification"))

	var lines []string
	add := func(prefix, s string) { lines = append(lines, prefixed(prefix, s)) }
	add("", r.str(v, "objective", field+".objective"))
	add("", r.str(v, "result", field+".result"))
	add("Summary: ", r.str(v, "summary", field+".summary"))
	if g := r.field(v, "guide"); g != nil {
		if g.kind != jsonObject {
			add("", r.text(g, field+".guide"))
		} else {
			gf := field + ".guide"
			r.unknown(g, gf, "objective", "strategy", "target_files", "reference", "context")
			add("", r.str(g, "objective", gf+".objective"))
			add("Strategy: ", r.str(g, "strategy", gf+".strategy"))
			for i, tf := range r.list(g, "target_files", gf+".target_files") {
				f := fmt.Sprintf("%s.target_files[%d]", gf, i)
				var p, action string
				if tf.kind == jsonObject {
					p, action = r.str(tf, "path", f+".path"), r.str(tf, "action", f+".action")
				} else {
					p = r.text(tf, f)
				}
				if p != "" {
					t.Files = append(t.Files, p)
				}
				if action != "" && p != "" {
					add("File: ", p+" ("+action+")")
				}
			}
			add("Reference: ", r.str(g, "reference", gf+".reference"))
			add("Context: ", r.str(g, "context", gf+".context"))
		}
	}
	if ctx := r.object(v, "context", field+".context"); ctx != nil {
		r.unknown(ctx, field+".context", "guide", "scope", "prd_reference")
		add("", r.str(ctx, "guide", field+".context.guide"))
		add("Scope: ", r.str(ctx, "scope", field+".context.scope"))
		add("Reference: ", r.str(ctx, "prd_reference", field+".context.prd_reference"))
	}
	if g := r.field(v, "guardrails"); g != nil {
		lines = append(lines, guardrailNotes(r, g, field+".guardrails")...)
	}
	for _, p := range prohibitions(r, v, field+".prohibitions") {
		add("Prohibited: ", p)
	}
	add("Current: ", r.str(v, "current", field+".current"))
	add("Last action: ", r.str(v, "last_action", field+".last_action"))
	add("Next action: ", r.str(v, "next_action", field+".next_action"))
	add("Blocker: ", r.str(v, "blocker", field+".blocker"))
	if status != task.StatusDone {
		lines = append(lines, ph.notes...)
		lines = append(lines, pr.notes...)
	}
	t.Objective = joinLines(lines...)
	switch effort := strings.ToLower(r.str(v, "estimated_effort", field+".estimated_effort")); effort {
	case "":
	case "small", "medium", "large":
		t.Tags = append(t.Tags, "effort:"+effort)
		if effort == "large" { // about an hour, over the default task time
			t.Budget.TaskTimeout = task.Duration(time.Hour)
		}
	default:
		r.warnf(v.get("estimated_effort"), field+".estimated_effort", "%s is not small, medium or large; not imported", quote.String(effort))
	}
	pr.b.add(ph.draft, t, ph.draft.id+"-task")
}

// archiveRecord is one line of harnish-progress-archive.jsonl: a phase whose
// tasks were compressed out of the progress file.
type archiveRecord struct {
	taskIDs  []string
	files    []string
	approved bool // the phase's milestone was approved
}

// readArchive reads the archive's records by phase; a line it cannot read
// is a warning.
func readArchive(name string, data []byte, w *warnings) map[string][]archiveRecord {
	out := map[string][]archiveRecord{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := parseJSON(name, line)
		if err != nil || v.kind != jsonObject {
			w.add(name, pos{line: i + 1}, "", "not a JSON object; line not read")
			continue
		}
		r := &jsonReader{file: name, w: w}
		key := r.key(v, "phase", "phase")
		if key == "" {
			continue
		}
		out[key] = append(out[key], archiveRecord{
			taskIDs:  r.strings(v, "task_ids", "task_ids"),
			files:    r.strings(v, "files_changed", "files_changed"),
			approved: r.str(v, "milestone_approved_at", "milestone_approved_at") != "",
		})
	}
	return out
}

// progressName derives the plan's name from the PRD path
// ("docs/prd-redis-cache.md" -> "redis-cache"), else from the project's
// name, else from the file's name.
func progressName(prd, project, file string) string {
	base := strings.TrimSuffix(path.Base(filepath.ToSlash(prd)), path.Ext(prd))
	if n := slug(strings.TrimPrefix(base, "prd-")); prd != "" && n != "" {
		return n
	}
	if n := slug(project); n != "" {
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
func idPhase(id string, keys []string) string {
	prefix, _, ok := strings.Cut(id, "-")
	if !ok {
		prefix, _, ok = strings.Cut(id, ".")
	}
	if ok && slices.Contains(keys, prefix) {
		return prefix
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
