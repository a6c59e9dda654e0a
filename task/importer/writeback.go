package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// source is where a task of a plan came from, so its status can be
// written back.
type source struct {
	rawID      string
	phase      string // the source's phase key
	phaseTitle string
	// Plans.md: the line of the task, as it read, and what it is.
	kind      string // "row", "list" or "heading"
	line      int
	text      string
	statusCol int // a row's status column, of ncols
	ncols     int
	// A step tree: the phase's directory and the step's number.
	dir, num string
	archived bool // stands for archived tasks: nothing to write
}

// Update is a change in one task's progress, for [Writer.Write].
type Update struct {
	Task   string      // the plan's task ID
	Status task.Status // StatusDoing (started) or StatusDone
	// Stopped, when set, says why the task stopped unfinished (escalated,
	// halted, blocked); Blocked says a person must act, else it failed.
	Stopped string
	Blocked bool
	Summary string    // what was done, for a done task
	Commit  string    // the commit of a done task, when the run commits
	Time    time.Time // when; the zero time means now
}

// Writer writes a run's progress back into the source its plan was
// imported from, in the source's own terms, so a team keeps its old tool's
// view while harnish drives the work: the progress file's done, doing and
// todo; the step index's completed, error or blocked with summary and
// timestamps; Plans.md's markers (cc:WIP, cc:完了 [commit]). Each write
// replaces the file atomically. A Writer is safe for concurrent use.
type Writer struct {
	format Format
	file   string // the progress file or Plans.md; for a step tree, phases/index.json
	root   string // a step tree's directory holding phases/
	mu     sync.Mutex
	tasks  map[string]source
}

// Writer returns the writer of the result's source. It fails for a result
// read from bytes that name no file.
func (r *Result) Writer() (*Writer, error) {
	if r.sources == nil {
		return nil, errors.New("importer: the result has no source to write back to")
	}
	w := &Writer{format: r.Format, file: r.Source, root: r.root, tasks: map[string]source{}}
	for id, s := range r.sources {
		w.tasks[id] = s
	}
	return w, nil
}

// Write records u in the source. A task the source does not hold (one
// that stands for archived tasks) is left alone.
func (w *Writer) Write(u Update) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	src, ok := w.tasks[u.Task]
	if !ok {
		return fmt.Errorf("importer: write back: no task %s in %s", quote.String(u.Task), w.file)
	}
	if src.archived {
		return nil
	}
	if u.Time.IsZero() {
		u.Time = time.Now()
	}
	var err error
	switch w.format {
	case FormatProgress:
		err = w.progress(src, u)
	case FormatSteps:
		err = w.step(src, u)
	case FormatPlansMD:
		src, err = w.plansMD(src, u)
		w.tasks[u.Task] = src
	default:
		err = fmt.Errorf("format %s", w.format)
	}
	if err != nil {
		return fmt.Errorf("importer: write back task %s: %w", quote.String(u.Task), err)
	}
	return nil
}

// writeAtomic replaces name with data: a temporary file beside it, synced,
// renamed over it, the directory synced; the file keeps its mode.
func writeAtomic(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// The progress file: done, doing and todo, as the engine moves tasks.

func (w *Writer) progress(src source, u Update) error {
	data, err := os.ReadFile(w.file)
	if err != nil {
		return err
	}
	root, err := parseJSON(w.file, data)
	if err != nil {
		return err
	}
	if root.kind != jsonObject {
		return errors.New("the progress file is not an object")
	}
	stamp := newString(u.Time.Format("2006-01-02T15:04:05-07:00"))
	doing := objectAt(root, "doing")
	var obj *jsonValue
	inDoing := false
	if cur := doing.get("task"); cur != nil && cur.kind == jsonObject && idOf(cur) == src.rawID {
		obj, inDoing = cur, true
	}
	todoPhase, todoIdx := findTask(objectAt(root, "todo"), src.rawID)
	if obj == nil && todoPhase != nil {
		obj = todoPhase.get("tasks").elems[todoIdx]
	}
	if obj == nil {
		if p, i := findTask(objectAt(root, "done"), src.rawID); p != nil {
			if u.Status != task.StatusDone || u.Commit == "" {
				return nil // done already
			}
			p.get("tasks").elems[i].set("commit", newString(u.Commit))
			return writeAtomic(w.file, encodeJSON(root))
		}
		return fmt.Errorf("no task %s in %s", quote.String(src.rawID), w.file)
	}
	meta := objectAt(root, "metadata")
	switch {
	case u.Stopped != "":
		if !inDoing {
			return nil // only the doing task carries a blocker
		}
		obj.set("blocker", newString(u.Stopped))
	case u.Status == task.StatusDoing:
		if cur := doing.get("task"); inDoing || cur != nil && cur.kind == jsonObject {
			return nil // the engine has one doing task; another holds it
		}
		removeAt(todoPhase.get("tasks"), todoIdx)
		obj.set("started_at", stamp)
		obj.set("blocker", &jsonValue{kind: jsonNull})
		doing.set("task", obj)
		if st := meta.get("status"); st != nil && st.kind == jsonObject {
			st.set("task", newString(src.rawID))
		}
	case u.Status == task.StatusDone:
		if inDoing {
			doing.set("task", &jsonValue{kind: jsonNull})
		} else {
			removeAt(todoPhase.get("tasks"), todoIdx)
		}
		for _, k := range []string{"started_at", "current", "last_action", "next_action", "blocker", "retry_count", "context"} {
			obj.del(k)
		}
		if u.Summary != "" {
			obj.set("result", newString(u.Summary))
		}
		if u.Commit != "" {
			obj.set("commit", newString(u.Commit))
		}
		obj.set("completed_at", stamp)
		w.donePhase(root, src).get("tasks").elems = append(w.donePhase(root, src).get("tasks").elems, obj)
		if stats := root.get("stats"); stats != nil && stats.kind == jsonObject {
			if n := stats.get("completed_tasks"); n != nil && n.kind == jsonNumber {
				var c int64
				fmt.Sscan(n.str, &c)
				n.str = fmt.Sprint(c + 1)
			}
		}
	default:
		return nil
	}
	if meta != nil {
		meta.set("last_session", stamp)
	}
	return writeAtomic(w.file, encodeJSON(root))
}

// donePhase finds or adds the done phase of src's phase.
func (w *Writer) donePhase(root *jsonValue, src source) *jsonValue {
	done := objectAt(root, "done")
	phases := done.get("phases")
	if phases == nil || phases.kind != jsonArray {
		phases = &jsonValue{kind: jsonArray}
		done.set("phases", phases)
	}
	for _, p := range phases.elems {
		if p.kind == jsonObject && phaseKey(p) == src.phase && !boolAt(p, "compressed") {
			if t := p.get("tasks"); t == nil || t.kind != jsonArray {
				p.set("tasks", &jsonValue{kind: jsonArray})
			}
			return p
		}
	}
	key := newString(src.phase)
	if strings.Trim(src.phase, "0123456789") == "" && src.phase != "" {
		key = &jsonValue{kind: jsonNumber, str: src.phase}
	}
	p := &jsonValue{kind: jsonObject}
	p.set("phase", key)
	p.set("title", newString(src.phaseTitle))
	p.set("compressed", &jsonValue{kind: jsonBool})
	p.set("tasks", &jsonValue{kind: jsonArray})
	phases.elems = append(phases.elems, p)
	return p
}

func idOf(v *jsonValue) string { return (&jsonReader{}).key(v, "id", "") }

func phaseKey(p *jsonValue) string {
	r := &jsonReader{}
	return orText(r.key(p, "phase", ""), r.key(p, "id", ""))
}

func boolAt(v *jsonValue, key string) bool {
	b := v.get(key)
	return b != nil && b.kind == jsonBool && b.b
}

// findTask finds the task with the raw ID in a section's phases.
func findTask(section *jsonValue, id string) (*jsonValue, int) {
	ps := section.get("phases")
	if ps == nil || ps.kind != jsonArray {
		return nil, 0
	}
	for _, p := range ps.elems {
		ts := p.get("tasks")
		if p.kind != jsonObject || ts == nil || ts.kind != jsonArray {
			continue
		}
		for i, t := range ts.elems {
			if t.kind == jsonObject && idOf(t) == id {
				return p, i
			}
		}
	}
	return nil, 0
}

// objectAt returns the object at key, adding an empty one when missing.
func objectAt(parent *jsonValue, key string) *jsonValue {
	v := parent.get(key)
	if v == nil || v.kind != jsonObject {
		v = &jsonValue{kind: jsonObject}
		parent.set(key, v)
	}
	return v
}

func removeAt(list *jsonValue, i int) {
	list.elems = append(list.elems[:i:i], list.elems[i+1:]...)
}

func newString(s string) *jsonValue { return &jsonValue{kind: jsonString, str: s} }

func (v *jsonValue) set(key string, val *jsonValue) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = val
			return
		}
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

func (v *jsonValue) del(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i:i], v.keys[i+1:]...)
			v.vals = append(v.vals[:i:i], v.vals[i+1:]...)
			return
		}
	}
}

// encodeJSON writes v as the peers' Python writes it: indented by two,
// non-ASCII as is, keys in their order.
func encodeJSON(v *jsonValue) []byte {
	var b bytes.Buffer
	v.encode(&b, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func (v *jsonValue) encode(b *bytes.Buffer, indent int) {
	pad := func(n int) { b.WriteString(strings.Repeat(" ", n)) }
	switch v.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool:
		fmt.Fprint(b, v.b)
	case jsonNumber:
		b.WriteString(v.str)
	case jsonString:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		enc.Encode(v.str)
		b.Truncate(b.Len() - 1) // Encode's newline
	case jsonArray:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range v.elems {
			pad(indent + 2)
			e.encode(b, indent+2)
			if i < len(v.elems)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(indent)
		b.WriteByte(']')
	case jsonObject:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			pad(indent + 2)
			newString(k).encode(b, 0)
			b.WriteString(": ")
			v.vals[i].encode(b, indent+2)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		pad(indent)
		b.WriteByte('}')
	}
}

// The step tree: the step's status and its timestamps, as the executor
// writes them, and the phase's when its steps are all completed.

func (w *Writer) step(src source, u Update) error {
	name := filepath.Join(w.root, "phases", filepath.FromSlash(src.dir), "index.json")
	idx, err := readJSONPath(name)
	if err != nil {
		return err
	}
	stamp := newString(u.Time.Format("2006-01-02T15:04:05-0700"))
	steps := idx.get("steps")
	if steps == nil || steps.kind != jsonArray {
		return fmt.Errorf("%s has no steps", name)
	}
	var st *jsonValue
	for _, s := range steps.elems {
		if s.kind == jsonObject && (&jsonReader{}).key(s, "step", "") == src.num {
			st = s
		}
	}
	if st == nil {
		return fmt.Errorf("%s has no step %s", name, src.num)
	}
	phaseStatus := ""
	switch {
	case u.Stopped != "" && u.Blocked:
		st.set("status", newString("blocked"))
		st.set("blocked_reason", newString(u.Stopped))
		st.set("blocked_at", stamp)
		phaseStatus = "blocked"
	case u.Stopped != "":
		st.set("status", newString("error"))
		st.set("error_message", newString(u.Stopped))
		st.set("failed_at", stamp)
		phaseStatus = "error"
	case u.Status == task.StatusDoing:
		if st.get("started_at") == nil {
			st.set("started_at", stamp)
		}
	case u.Status == task.StatusDone:
		st.set("status", newString("completed"))
		st.del("error_message")
		if u.Summary != "" {
			st.set("summary", newString(u.Summary))
		}
		if u.Commit != "" {
			st.set("commit", newString(u.Commit))
		}
		st.set("completed_at", stamp)
		all := true
		for _, s := range steps.elems {
			if s.kind == jsonObject && (&jsonReader{}).str(s, "status", "") != "completed" {
				all = false
			}
		}
		if all {
			idx.set("completed_at", stamp)
			phaseStatus = "completed"
		}
	default:
		return nil
	}
	if err := writeAtomic(name, encodeJSON(idx)); err != nil || phaseStatus == "" {
		return err
	}
	topName := filepath.Join(w.root, filepath.FromSlash(stepIndex))
	top, err := readJSONPath(topName)
	if err != nil {
		return err
	}
	if ps := top.get("phases"); ps != nil && ps.kind == jsonArray {
		for _, p := range ps.elems {
			if p.kind == jsonObject && (&jsonReader{}).str(p, "dir", "") == src.dir {
				p.set("status", newString(phaseStatus))
				p.set(map[string]string{"completed": "completed_at", "error": "failed_at", "blocked": "blocked_at"}[phaseStatus], stamp)
			}
		}
	}
	return writeAtomic(topName, encodeJSON(top))
}

func readJSONPath(name string) (*jsonValue, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	v, err := parseJSON(name, data)
	if err != nil {
		return nil, err
	}
	if v.kind != jsonObject {
		return nil, fmt.Errorf("%s is not a JSON object", name)
	}
	return v, nil
}

// Plans.md: the task's marker, in its own line.

func (w *Writer) plansMD(src source, u Update) (source, error) {
	data, err := os.ReadFile(w.file)
	if err != nil {
		return src, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	if src.line < 1 || src.line > len(lines) {
		return src, fmt.Errorf("%s has no line %d", w.file, src.line)
	}
	raw := lines[src.line-1]
	body := strings.TrimRight(raw, "\r\n")
	if body != src.text {
		return src, fmt.Errorf("%s:%d changed since the import; not written", w.file, src.line)
	}
	marker, suffix := "", ""
	switch {
	case u.Stopped != "":
		marker = "cc:blocked"
	case u.Status == task.StatusDoing:
		marker = "cc:WIP"
	case u.Status == task.StatusDone:
		marker = "cc:完了"
		if c := u.Commit; c != "" {
			suffix = " [" + c[:min(len(c), 7)] + "]"
		}
	default:
		return src, nil
	}
	var out string
	switch src.kind {
	case "row":
		out, err = replaceCell(body, src, marker+suffix)
	case "list":
		out = replaceListMarker(body, marker, suffix, u.Status == task.StatusDone && u.Stopped == "")
	case "heading":
		out = replaceHeadingMarker(body, marker, suffix)
	default:
		return src, fmt.Errorf("unknown kind %q", src.kind)
	}
	if err != nil {
		return src, err
	}
	lines[src.line-1] = out + raw[len(body):]
	if err := writeAtomic(w.file, []byte(strings.Join(lines, ""))); err != nil {
		return src, err
	}
	src.text = out
	return src, nil
}

func replaceCell(line string, src source, marker string) (string, error) {
	cells := splitRow(line)
	k := src.statusCol
	if len(cells) > src.ncols {
		k = len(cells) - 1
	}
	if k < 0 || k >= len(cells) {
		if k == len(cells) { // an empty last cell: write into it
			end := strings.LastIndex(line, "|")
			if end > 0 {
				return line[:end] + " " + marker + " " + line[end:], nil
			}
		}
		return "", fmt.Errorf("row has no status cell")
	}
	c := cells[k]
	start := c.col - 1
	if start < 0 || !strings.HasPrefix(line[start:], c.text) {
		return "", fmt.Errorf("cannot find the status cell")
	}
	return line[:start] + marker + line[start+len(c.text):], nil
}

func replaceListMarker(line, marker, suffix string, done bool) string {
	li := mdListItem().FindStringSubmatchIndex(line)
	if li == nil {
		return line
	}
	off := li[8]
	text := line[off:]
	if c := mdCheckbox().FindStringSubmatchIndex(text); c != nil {
		if done {
			text = text[:c[2]] + "x" + text[c[3]:]
		} else {
			text = text[:c[2]] + " " + text[c[3]:]
		}
	}
	skip := 0
	if c := mdCheckbox().FindStringIndex(text); c != nil {
		skip = c[1]
	}
	p := &mdParser{}
	if loc, ok := p.statusMarker(text[skip:]); ok {
		rest := mdStampAt().ReplaceAllString(text[skip+loc[1]:], "")
		return line[:off] + text[:skip+loc[0]] + "`" + marker + "`" + suffix + rest
	}
	return line[:off] + strings.TrimRight(text, " \t") + " `" + marker + "`" + suffix
}

func replaceHeadingMarker(line, marker, suffix string) string {
	if loc := lastMarker(line); loc != nil {
		return line[:loc[0]] + "`" + marker + "`" + suffix + mdStampAt().ReplaceAllString(line[loc[1]:], "")
	}
	if mk := mdBareMark().FindAllStringSubmatchIndex(line, -1); mk != nil {
		last := mk[len(mk)-1]
		return line[:last[2]] + marker + suffix + mdStampAt().ReplaceAllString(line[last[3]:], "")
	}
	return line
}

// mdStampAt is a commit written right after a marker, replaced by the new one.
var mdStampAt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ \[[0-9a-f]{7,40}\]`) })
