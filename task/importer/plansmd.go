package importer

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// PlansMD converts a Plans.md task list, in the format of claude-code-harness,
// into a plan. name names the file in errors and, when the file has no title,
// gives the plan its name. See the package documentation for what is read.
// Use [Import] to see the warnings too.
func PlansMD(name string, data []byte) (*task.Plan, error) {
	p, _, err := plansMD(name, data, &warnings{})
	return p, err
}

func plansMD(name string, data []byte, w *warnings) (*task.Plan, map[string]source, error) {
	if len(data) > task.MaxPlanSize {
		return nil, nil, tooLarge(name, strconv.Itoa(len(data))+" bytes")
	}
	if !utf8.Valid(data) {
		return nil, nil, errorf(name, pos{}, "", "not UTF-8 text")
	}
	m := &mdParser{file: name, w: w, current: -1}
	m.parse(data)
	b := newBuilder(name, w)
	b.archived = true // Plans.md moves finished phases to archive files
	b.name = slug(m.project)
	if b.name == "" {
		b.name = slug(m.title)
	}
	if b.name == "" {
		base := filepath.Base(name)
		b.name = slug(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	level := m.phaseLevel()
	// phaseHeading is the heading of the phase of a task under heading:
	// the nearest heading named "Phase ..." above it, so "### Phase 17.1"
	// under "## Phase 17" is the task's phase; else the nearest at the
	// phases' level; -1 for none.
	phaseHeading := func(heading int) int {
		for k := heading; k >= 0 && level < 7; k = m.headings[k].parent {
			if hd := m.headings[k]; hd.section == "" && !hd.task && mdPhaseName().MatchString(cleanHeading(hd.text)) {
				return k
			}
		}
		for k := heading; k >= 0; k = m.headings[k].parent {
			if hd := m.headings[k]; hd.level <= level && hd.section == "" && !hd.task {
				return k
			}
		}
		return -1
	}
	phaseOf := func(heading int) *phaseDraft {
		h := phaseHeading(heading)
		if h < 0 {
			return b.phase("-1", "tasks", m.title, pos{1, 1}, "")
		}
		hd := m.headings[h]
		return b.phase(strconv.Itoa(h), headingID(hd.text), cleanHeading(hd.text), hd.at, "heading")
	}
	for _, e := range m.entries {
		if e.dropped {
			continue
		}
		ph := phaseOf(e.heading)
		b.add(ph, e.draft, ph.id+"-"+strconv.Itoa(len(ph.tasks)+1))
	}
	for _, c := range m.phaseCrit {
		ph := b.byKey[strconv.Itoa(phaseHeading(c.heading))]
		if ph == nil || len(ph.tasks) == 0 {
			// The criteria of "## Phase 25", whose tasks are in "### Phase
			// 25.0" ... "### Phase 25.5": the gate after the last of them.
			ph = nil
			h := phaseHeading(c.heading)
			for _, cand := range b.phases {
				if k, err := strconv.Atoi(cand.key); err == nil && k >= 0 && len(cand.tasks) > 0 && m.descends(k, h) {
					ph = cand
				}
			}
		}
		if ph == nil {
			// Criteria outside any phase ("## 完了基準" at the end): the
			// gate after the last phase before them.
			for _, cand := range b.phases {
				if k, err := strconv.Atoi(cand.key); err == nil && k < c.heading && len(cand.tasks) > 0 {
					ph = cand
				}
			}
		}
		if ph == nil {
			w.add(name, c.at, "criteria", "completion criteria of a part without tasks; not imported")
			continue
		}
		if ph.milestone == nil {
			ph.milestone = &task.Milestone{}
		}
		ph.milestone.Manual = append(ph.milestone.Manual, c.text)
	}
	return b.result()
}

type mdHeadingInfo struct {
	level    int
	text     string
	at       pos
	hasTasks bool
	parent   int         // the nearest earlier heading of a lower level; -1 for none
	section  task.Status // the status a section heading implies for its unmarked tasks
	task     bool        // the heading is itself a task
	criteria bool        // the heading introduces completion criteria
	legend   bool        // the heading introduces the markers' legend
}

type mdEntry struct {
	heading int // the latest heading before the task; -1 for none
	indent  int // for a list item, its indentation; -1 for a table row, -2 for a heading
	draft   *taskDraft
	dropped bool // a heading taken for a task that turned out to group tasks
	crit    int  // criteria taken from the checklist under a heading task
}

// phaseCrit is a completion criterion of a phase, not of one task.
type phaseCrit struct {
	heading int
	at      pos
	text    string
}

type mdParser struct {
	file      string
	w         *warnings
	title     string // the first level-1 heading
	project   string // a "Project: name" line
	headings  []mdHeadingInfo
	entries   []*mdEntry
	phaseCrit []phaseCrit
	lines     []string // the file's lines, without their ends
	current   int      // the heading we are under; -1 for none
	headTask  *mdEntry // the heading task we are under, if any
	// critIndent is the indentation below which list items are criteria,
	// after a "DoD:" label line; -1 when not after one.
	critIndent int
	critFor    *mdEntry // the task a label's criteria belong to; nil for the phase
	// taskCols are the columns of the last task table, and taskColsLine
	// its header's line, for rows that lost their header.
	taskCols     *mdColumns
	taskColsLine int
}

var (
	mdDelimRow = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
	})
	mdListItem = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\s*)([-*+]|\d+[.)])(\s+|$)(.*)$`)
	})
	mdCheckbox = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[([ xX])\](\s+|$)`)
	})
	// mdMarker finds a status marker: in a code span, or a bracketed word.
	mdMarker = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`\\s*((?i:cc|pm|cursor):[^`\\s]+|(?i:blocked))\\s*`|\\[((?i:in[_ -]progress|blocked|done|todo|wip|pending|completed|skipped|cancell?ed))\\]")
	})
	mdStruck = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`~~[^~]*~~`)
	})
	mdBareMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[^a-z])((?:cc|pm|cursor):[^\s|,()（）\[\]` + "`" + `*]+|blocked)`)
	})
	mdTaskID = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\*\*)?(?:(?i:task)\s+|タスク\s*)?([A-Za-z]*[0-9][A-Za-z0-9._-]*?)(?:\*\*)?[:：.]?(?:\*\*)?\s+`)
	})
	mdDepends = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdepends(?:_on)?:\s*([A-Za-z0-9._,-]+)`)
	})
	mdTag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`?\\[([A-Za-z][A-Za-z0-9_-]*):([^\\]\\s]*)\\]`?|\\[P\\]")
	})
	mdLabel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:\*\*)?(?:dod|ac|acceptance(?: criteria)?|done when|definition of done|完了条件|受入条件|受け入れ条件|受入基準|成功基準|exit criteria|検証)(?:\*\*)?\s*[:：]\s*(?:\*\*)?\s*(.*)$`)
	})
	mdCritHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:dod|acceptance(?: criteria)?|done when|definition of done|completion criteria|done criteria|完了条件|完了基準|完了の定義|受入条件|受け入れ条件|受入基準|受け入れ基準|成功基準|成功条件|exit criteria|検証(?:項目|手順)?)\s*[:：]?\s*(?:\(.*\)|（.*）)?$`)
	})
	mdLegend = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)凡例|legend|マーカー(?:一覧|の意味)$`)
	})
	mdProject = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^\s*(?:#+|>)?\s*\**(?:project|プロジェクト)\**\s*[:：]\s*\**\s*(.*?)\s*$`)
	})
	mdPhaseName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:phase|フェーズ)\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)
	})
	mdEnum = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\(([a-z])\)\s*`)
	})
	mdBreak = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<br\s*/?>`)
	})
	mdDepSplit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[,、\s]+`)
	})
	// mdStamp is a date or a commit written after a status marker.
	mdStamp = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[(（]\d{4}-\d{2}-\d{2}[^)）]*[)）]|\[[0-9a-f]{7,40}\]`)
	})
	// mdTail is what may follow a status marker at the end of an item: a
	// date, a commit, a note in brackets or after a dash, dependencies.
	mdTail = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^(?:\\s+|\\([^)]*\\)|（[^）]*）|\\[[^\\]]*\\]|`[^`]*`|(?i:depends(?:_on)?):\\S+|\\d{4}-\\d{2}-\\d{2}\\S*|[0-9a-f]{7,40}\\b|[—–→-]+\\s.*|[:：]\\s.*|[,.;、。]|←.*)")
	})
)

// The section headings (after any emoji) whose unmarked tasks take a
// status, as the peer's own reader sees them.
var mdSections = []struct {
	re     *regexp.Regexp
	status task.Status
}{
	{regexp.MustCompile(`(?i)^(?:plan\b|計画|未着手|次に着手|todo\b|backlog|予定)`), task.StatusTodo},
	{regexp.MustCompile(`(?i)^(?:work\b|作業中|in\s*progress|進行中|doing\b|wip\b)`), task.StatusDoing},
	{regexp.MustCompile(`(?i)^(?:review\b|レビュー|確認待ち|done\b|完了|completed\b|直近完了|archive|アーカイブ)`), task.StatusDone},
}

func sectionStatus(level int, text string) task.Status {
	if level < 2 || level > 3 {
		return ""
	}
	text = strings.TrimLeftFunc(cleanHeading(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, s := range mdSections {
		if s.re.MatchString(text) {
			return s.status
		}
	}
	return ""
}

// markerStatus reads a status marker the way the peer does: by the words
// it holds, so its many spellings (cc:TODO, cc:未着手, pm:pending,
// cursor:WIP, cc:完了, pm:confirmed, ...) all read. A task marked as not
// needed (cc:不要, cc:withdrawn) is done, so it does not run; blocked is not
// done. ok is false for a marker with none of the words.
func markerStatus(raw string) (status task.Status, note string, ok bool) {
	v := strings.ToLower(raw)
	if _, after, found := strings.Cut(v, ":"); found {
		v = after
	}
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(v, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("不要", "withdraw", "cancel", "中止", "skip", "見送", "取り下げ", "取下げ", "obsolete", "wontfix", "won't", "dropped", "n/a",
		"retire", "supersede", "廃止"):
		return task.StatusDone, "marked " + raw + ": not to be done; imported as done so it does not run", true
	case has("defer", "postpone", "延期", "後回し", "later"):
		// The peer picks up only what is to do or in progress.
		return task.StatusDone, "marked " + raw + ": deferred, not to be done now; imported as done so it does not run", true
	case has("blocked", "ブロック", "保留", "hold"):
		return task.StatusTodo, "", true
	case has("todo", "未着手", "依頼中", "request", "pending", "予定", "plan", "open", "new", "backlog"):
		return task.StatusTodo, "", true
	case has("wip", "作業中", "work", "progress", "doing", "進行中", "着手", "active", "started", "review", "レビュー"):
		return task.StatusDoing, "", true
	case has("完了", "done", "確認済", "承認", "approv", "confirm", "complete", "finish", "merged", "済"):
		return task.StatusDone, "", true
	}
	return task.StatusTodo, "", false
}

func (m *mdParser) warnf(at pos, field, format string, args ...any) {
	m.w.add(m.file, at, field, format, args...)
}

func (m *mdParser) parse(data []byte) {
	lines := strings.Split(string(blankComments(data)), "\n")
	orig := strings.Split(string(data), "\n")
	for k := range orig {
		orig[k] = strings.TrimRight(orig[k], "\r")
	}
	m.lines = orig
	i := 0
	if strings.TrimSpace(strings.TrimPrefix(lines[0], "\ufeff")) == "---" { // front matter
		for i = 1; i < len(lines) && strings.TrimSpace(lines[i]) != "---"; i++ {
		}
		i++
	}
	var fence string
	var item *mdEntry // the list task whose details follow
	m.critIndent = -1
	for ; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r")
		lineNo := i + 1
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := mdFence().FindStringSubmatch(line); f != nil {
			fence = f[1]
			continue
		}
		if p := mdProject().FindStringSubmatch(line); p != nil && m.project == "" {
			m.project = p[1]
		}
		if h := mdHeading().FindStringSubmatch(line); h != nil {
			item = nil
			m.critIndent = -1
			m.heading(len(h[1]), h[2], pos{lineNo, 1})
			continue
		}
		if strings.HasPrefix(trimmed, "|") && i+1 < len(lines) && mdDelimRow().MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-") {
			item = nil
			m.critIndent = -1
			i = m.table(lines, i) - 1
			continue
		}
		if strings.HasPrefix(trimmed, "|") && m.taskCols != nil {
			i = m.headless(lines, i) - 1
			continue
		}
		if li := mdListItem().FindStringSubmatch(line); li != nil && m.inLegend() {
			continue // "- `cc:TODO`: not started" explains a marker
		}
		if li := mdListItem().FindStringSubmatch(line); li != nil {
			indent := indentWidth(li[1])
			text := li[4]
			at := pos{lineNo, len(li[1]) + 1}
			if m.critIndent >= 0 && indent < m.critIndent {
				m.critIndent = -1
			}
			_, marked := m.statusMarker(stripCheckbox(text))
			switch {
			case m.critIndent >= 0 && !marked:
				m.criterion(at, text)
				continue
			case item != nil && indent > item.indent && !marked:
				if l := mdLabel().FindStringSubmatch(stripCheckbox(text)); l != nil && strings.TrimSpace(l[1]) == "" {
					m.critIndent, m.critFor = indent+1, item
					continue
				}
				m.detail(item, text)
				continue
			case !marked && m.labelLine(at, text, indent, item):
				continue
			case m.inCriteria() && !marked:
				m.criterion(at, text)
				continue
			case m.headTask != nil && !marked && mdCheckbox().MatchString(text):
				// A heading task's checklist says when it is done.
				m.criterion(at, text)
				continue
			case m.headTask != nil && !marked:
				m.detail(m.headTask, text)
				continue
			}
			if e := m.listItem(text, indent, at, line); e != nil {
				item = e
			}
			continue
		}
		if trimmed == "" {
			continue
		}
		if m.labelLine(pos{lineNo, len(line) - len(strings.TrimLeft(line, " \t")) + 1}, trimmed, indentWidth(line[:len(line)-len(strings.TrimLeft(line, " \t"))]), item) {
			continue
		}
		switch {
		case item != nil && indentWidth(line[:len(line)-len(strings.TrimLeft(line, " \t"))]) > item.indent:
			m.detail(item, trimmed)
		case m.headTask != nil:
			m.detail(m.headTask, trimmed)
			item = nil
		default:
			item = nil
			m.critIndent = -1
		}
	}
}

// labelLine takes a line "DoD:" (or 完了条件: ...) that introduces the
// criteria below it, or holds one; it reports whether it did.
func (m *mdParser) labelLine(at pos, text string, indent int, item *mdEntry) bool {
	l := mdLabel().FindStringSubmatch(strings.TrimSpace(stripCheckbox(text)))
	if l == nil {
		return false
	}
	target := m.headTask
	if item != nil && indent > item.indent {
		target = item
	}
	if rest := strings.TrimSpace(l[1]); rest != "" {
		if target != nil {
			target.draft.Acceptance = addCriterion(target.draft.Acceptance, rest)
		} else {
			m.phaseCrit = append(m.phaseCrit, phaseCrit{heading: m.current, at: at, text: rest})
		}
		return true
	}
	m.critIndent, m.critFor = indent, target
	return true
}

// inLegend reports whether we are under the markers' legend.
func (m *mdParser) inLegend() bool {
	for k := m.current; k >= 0; k = m.headings[k].parent {
		if m.headings[k].legend {
			return true
		}
	}
	return false
}

// inCriteria reports whether the current heading introduces criteria.
func (m *mdParser) inCriteria() bool {
	for k := m.current; k >= 0; k = m.headings[k].parent {
		if m.headings[k].criteria {
			return true
		}
		if m.headings[k].task {
			return false
		}
	}
	return false
}

// criterion adds a checklist item under a criteria label or heading to the
// task it belongs to, or to the phase's milestone.
func (m *mdParser) criterion(at pos, text string) {
	text = strings.TrimSpace(stripCheckbox(text))
	if text == "" {
		return
	}
	target := m.critFor
	if m.critIndent < 0 || target == nil {
		target = m.headTask
	}
	if target != nil {
		target.draft.Acceptance = addCriterion(target.draft.Acceptance, text)
		target.crit++
		return
	}
	m.phaseCrit = append(m.phaseCrit, phaseCrit{heading: m.current, at: at, text: text})
}

func (m *mdParser) heading(level int, text string, at pos) {
	hd := mdHeadingInfo{level: level, text: text, at: at, parent: m.current}
	for hd.parent >= 0 && m.headings[hd.parent].level >= hd.level {
		hd.parent = m.headings[hd.parent].parent
	}
	if level == 1 && m.title == "" {
		m.title = cleanHeading(text)
	}
	hd.section = sectionStatus(level, text)
	hd.criteria = mdCritHeading().MatchString(strings.Trim(cleanHeading(text), "*_ "))
	hd.legend = level > 1 && mdLegend().MatchString(cleanHeading(text))
	if hd.criteria {
		hd.section = ""
	}
	m.headings = append(m.headings, hd)
	m.current = len(m.headings) - 1
	// Leaving a heading task's part of the file.
	if m.headTask != nil && !m.under(m.headTask.heading) {
		m.headTask = nil
	}
	if hd.criteria || hd.section != "" {
		return
	}
	status, raw, ok := headingMarker(text)
	if !ok {
		return
	}
	t := &taskDraft{at: at, field: "heading", src: source{kind: "heading", line: at.line, text: m.lines[at.line-1]}}
	t.Status = status
	title := cleanHeading(strings.Replace(text, raw, " ", 1))
	if id := mdTaskID().FindStringSubmatch(title + " "); id != nil && (strings.HasPrefix(strings.ToLower(title), "task") || strings.HasPrefix(title, "タスク") || strings.ContainsAny(id[1], ".-")) {
		t.rawID = id[1]
		title = strings.TrimSpace((title + " ")[len(id[0]):])
	}
	title, t.Tags = takeTags(title)
	t.Title = orText(strings.Trim(title, " -—:："), text)
	e := &mdEntry{heading: m.current, indent: -2, draft: t}
	if m.headTask != nil {
		// A heading task under a heading task: the outer one groups.
		m.addEntry(e)
	} else {
		m.entries = append(m.entries, e)
	}
	m.headings[m.current].task = true
	m.headTask = e
}

// descends reports whether heading k is h or below it.
func (m *mdParser) descends(k, h int) bool {
	for ; k >= 0; k = m.headings[k].parent {
		if k == h {
			return true
		}
	}
	return false
}

// under reports whether the current heading is h or below it.
func (m *mdParser) under(h int) bool {
	for k := m.current; k >= 0; k = m.headings[k].parent {
		if k == h {
			return true
		}
	}
	return false
}

// headingMarker finds a status marker in a heading, in a code span or bare.
func headingMarker(text string) (task.Status, string, bool) {
	raw := ""
	if loc := lastMarker(text); loc != nil {
		raw = text[loc[0]:loc[1]]
	} else if mk := mdBareMark().FindAllStringSubmatchIndex(text, -1); mk != nil {
		last := mk[len(mk)-1]
		raw = text[last[2]:last[3]]
	}
	if raw == "" {
		return "", "", false
	}
	st, _, ok := markerStatus(strings.Trim(raw, "`[] "))
	return st, raw, ok
}

func lastMarker(s string) []int {
	all := mdMarker().FindAllStringSubmatchIndex(s, -1)
	if all == nil {
		return nil
	}
	return all[len(all)-1]
}

// statusMarker finds the marker that gives an item its status: the last
// one, when only a note, a date or dependencies follow it; else one that
// opens the item. A marker inside the title is only mentioned.
func (m *mdParser) statusMarker(text string) ([]int, bool) {
	all := mdMarker().FindAllStringSubmatchIndex(text, -1)
	if all == nil {
		return nil, false
	}
	last := all[len(all)-1]
	if tailOnly(text[last[1]:]) {
		return last, true
	}
	if strings.TrimSpace(text[:all[0][0]]) == "" || mdTaskID().MatchString(strings.TrimSpace(text[:all[0][0]])+" ") && !strings.Contains(strings.TrimSpace(text[:all[0][0]]), " ") {
		return all[0], true
	}
	return nil, false
}

func tailOnly(s string) bool {
	for s != "" {
		loc := mdTail().FindStringIndex(s)
		if loc == nil || loc[1] == 0 {
			return false
		}
		s = s[loc[1]:]
	}
	return true
}

func stripCheckbox(text string) string {
	if c := mdCheckbox().FindStringSubmatch(text); c != nil {
		return text[len(c[0]):]
	}
	return text
}

// markerText returns the marker at loc, without backticks or brackets.
func markerText(s string, loc []int) string {
	if loc[2] >= 0 {
		return s[loc[2]:loc[3]]
	}
	return s[loc[4]:loc[5]]
}

// blankComments replaces HTML comments with spaces, keeping line numbers.
func blankComments(data []byte) []byte {
	out := bytes.Clone(data)
	for off := 0; ; {
		i := bytes.Index(out[off:], []byte("<!--"))
		if i < 0 {
			return out
		}
		i += off
		j := bytes.Index(out[i+4:], []byte("-->"))
		end := len(out)
		if j >= 0 {
			end = i + 4 + j + 3
		}
		for k := i; k < end; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		off = end
	}
}

func indentWidth(ws string) int {
	n := 0
	for _, r := range ws {
		if r == '\t' {
			n += 4 - n%4
		} else {
			n++
		}
	}
	return n
}

// sectionOf returns the status the sections we are in imply, or "".
func (m *mdParser) sectionOf() task.Status {
	for k := m.current; k >= 0; k = m.headings[k].parent {
		if s := m.headings[k].section; s != "" {
			return s
		}
	}
	return ""
}

// listItem makes a task of a list item that has a status marker or a
// checkbox; it returns nil for any other item.
func (m *mdParser) listItem(text string, indent int, at pos, line string) *mdEntry {
	t := &taskDraft{at: at, field: "task", src: source{kind: "list", line: at.line, text: m.lines[at.line-1]}}
	checkbox := mdCheckbox().FindStringSubmatch(text)
	if checkbox != nil {
		text = text[len(checkbox[0]):]
	}
	loc, marked := m.statusMarker(text)
	section := m.sectionOf()
	switch {
	case marked:
		raw := markerText(text, loc)
		status, note, ok := markerStatus(raw)
		if !ok {
			status = task.StatusTodo
			if checkbox != nil && checkbox[1] != " " {
				status = task.StatusDone
			}
			col := at.col + max(0, strings.Index(line[at.col-1:], raw))
			m.warnf(pos{at.line, col}, "status", "unknown status marker %s; taken as %s", quote.String(raw), status)
		}
		if note != "" {
			m.warnf(at, "status", "%s", note)
		}
		t.Status = status
		text = text[:loc[0]] + " " + mdStamp().ReplaceAllString(text[loc[1]:], " ")
	case checkbox == nil:
		return nil
	case checkbox[1] != " ":
		t.Status = task.StatusDone
	case section != "":
		t.Status = section
	default:
		t.Status = task.StatusTodo
	}
	text = strings.TrimSpace(text)
	if id := mdTaskID().FindStringSubmatch(text); id != nil && strings.HasSuffix(strings.TrimRight(id[0], " *"), ":") || id != nil && strings.HasPrefix(strings.ToLower(text), "task") {
		t.rawID = id[1]
		text = text[len(id[0]):]
	}
	if d := mdDepends().FindStringSubmatchIndex(text); d != nil {
		t.deps = splitDeps(text[d[2]:d[3]])
		t.depAt, t.depF = at, "depends"
		text = text[:d[0]] + text[d[1]:]
	}
	text, t.Tags = takeTags(text)
	t.Title = strings.Join(strings.Fields(text), " ")
	if t.Title == "" {
		m.warnf(at, "task", "a task without a title; not imported")
		return nil
	}
	e := &mdEntry{heading: m.current, indent: indent, draft: t}
	m.addEntry(e)
	return e
}

// addEntry adds a list or table task. A heading task with tasks under it
// groups them, and is no task itself.
func (m *mdParser) addEntry(e *mdEntry) {
	if ht := m.headTask; ht != nil {
		ht.dropped = true
		m.headings[ht.heading].task = false
		if ht.crit > 0 {
			m.warnf(ht.draft.at, "heading", "heading %s holds tasks, so it is a group, not a task; its %d criteria are not imported",
				quote.String(ht.draft.Title), ht.crit)
		}
		m.headTask = nil
	}
	m.entries = append(m.entries, e)
}

// takeTags moves the [lane:...] and [tdd:...] tags, and [P], out of a title.
func takeTags(text string) (string, []string) {
	var tags []string
	text = mdTag().ReplaceAllStringFunc(text, func(s string) string {
		s = strings.Trim(s, "`")
		if s != "[P]" {
			tags = append(tags, s[1:len(s)-1])
		}
		return " "
	})
	return strings.Join(strings.Fields(text), " "), tags
}

// detail adds a line under a list task: an acceptance criterion when it is
// labelled so ("DoD: ..."), part of the objective otherwise.
func (m *mdParser) detail(e *mdEntry, text string) {
	text = strings.TrimSpace(stripCheckbox(strings.TrimSpace(text)))
	if l := mdLabel().FindStringSubmatch(text); l != nil {
		e.draft.Acceptance = addCriterion(e.draft.Acceptance, l[1])
		return
	}
	e.draft.Objective = joinLines(e.draft.Objective, text)
}

type mdCell struct {
	text string
	col  int
}

// splitRow splits a table row into cells; "\|" is a literal bar, and so is
// a bar inside a code span, as people write them.
func splitRow(line string) []mdCell { return splitCells(line, true) }

// rowCells splits a row of a table with n columns. When the code spans
// leave fewer cells than columns, a stray backtick ("`(`") paired spans
// across cells, and the row is split at every bar, as the peer splits it;
// the extra cells are joined back by [mdParser.row].
func rowCells(line string, n int) []mdCell {
	cells := splitCells(line, true)
	if len(cells) < n {
		if plain := splitCells(line, false); len(plain) >= n {
			return plain
		}
	}
	return cells
}

func splitCells(line string, spans bool) []mdCell {
	var cells []mdCell
	var b strings.Builder
	i := len(line) - len(strings.TrimLeft(line, " \t"))
	if i < len(line) && line[i] == '|' {
		i++
	}
	start := i
	end := len(strings.TrimRight(line, " \t\r"))
	inCode := 0 // the length of the backtick run that opened a code span
	for ; i < end; i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < end && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`' && spans:
			n := 1
			for i+n < end && line[i+n] == '`' {
				n++
			}
			switch {
			case inCode == 0 && strings.Contains(line[i+n:end], strings.Repeat("`", n)):
				inCode = n
			case inCode == n:
				inCode = 0
			}
			b.WriteString(line[i : i+n])
			i += n - 1
		case c == '|' && inCode == 0:
			cells = append(cells, newCell(b.String(), start))
			b.Reset()
			start = i + 1
		default:
			b.WriteByte(c)
		}
	}
	if strings.TrimSpace(b.String()) != "" {
		cells = append(cells, newCell(b.String(), start))
	}
	return cells
}

// newCell makes a cell of raw text that starts at byte start of its line; the
// cell's column is that of its first non-blank character.
func newCell(raw string, start int) mdCell {
	lead := len(raw) - len(strings.TrimLeft(raw, " \t"))
	return mdCell{strings.TrimSpace(raw), start + lead + 1}
}

type mdColumns struct {
	id, title, dod, deps, status, where int
	names                               []string
}

func columnsOf(header []mdCell) mdColumns {
	c := mdColumns{id: -1, title: -1, dod: -1, deps: -1, status: -1, where: -1}
	for i, cell := range header {
		name := strings.ToLower(strings.Trim(cell.text, "*_ "))
		c.names = append(c.names, cell.text)
		set := func(p *int) {
			if *p < 0 {
				*p = i
			}
		}
		switch name {
		case "task", "id", "task id", "#", "no", "no.", "タスク":
			set(&c.id)
		case "内容", "content", "description", "title", "name", "task name", "summary", "タスク名", "説明", "概要", "作業":
			set(&c.title)
		case "dod", "acceptance", "acceptance criteria", "done when", "完了条件", "受入条件", "受け入れ条件", "ac":
			set(&c.dod)
		case "depends", "depends on", "dependencies", "deps", "依存", "依存関係", "前提":
			set(&c.deps)
		case "status", "state", "状態", "ステータス", "状況":
			set(&c.status)
		case "where", "files", "file", "対象", "対象ファイル", "ファイル", "scope":
			set(&c.where)
		}
	}
	return c
}

// headless reads rows that lost their table's header (an edit cut the
// table in two): the peer reads any row by its cells, the status last, so
// rows with as many cells as the last task table are read with its
// columns, with a warning. It returns the index of the first line after
// them.
func (m *mdParser) headless(lines []string, i int) int {
	cols := *m.taskCols
	j := i
	for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
		line := strings.TrimRight(lines[j], "\r")
		cells := rowCells(line, len(cols.names))
		if len(cells) < len(cols.names) || strings.TrimSpace(cells[len(cells)-1].text) == "" {
			continue
		}
		if j == i {
			m.warnf(pos{j + 1, 1}, "table", "table rows without a header; read with the columns of the table at line %d", m.taskColsLine)
		}
		m.row(cells, cols, j+1)
	}
	return j
}

// table reads the table whose header is lines[i]; it returns the index of the
// first line after it. Only a table with a status column and a task or
// content column holds tasks.
func (m *mdParser) table(lines []string, i int) int {
	cols := columnsOf(splitRow(lines[i]))
	isTasks := cols.status >= 0 && (cols.id >= 0 || cols.title >= 0)
	if isTasks {
		m.taskCols, m.taskColsLine = &cols, i+1
	}
	j := i + 2
	for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
		if isTasks {
			m.row(rowCells(strings.TrimRight(lines[j], "\r"), len(cols.names)), cols, j+1)
		}
	}
	return j
}

func (m *mdParser) row(cells []mdCell, cols mdColumns, lineNo int) {
	cell := func(k int) mdCell {
		if k < 0 || k >= len(cells) {
			return mdCell{col: 0}
		}
		return cells[k]
	}
	name := func(k int) string {
		if k < 0 || k >= len(cols.names) {
			return ""
		}
		return cols.names[k]
	}
	first := cols.id
	if first < 0 {
		first = cols.title
	}
	t := &taskDraft{at: pos{lineNo, cell(first).col}, field: name(first),
		src: source{kind: "row", line: lineNo, text: m.lines[lineNo-1], statusCol: cols.status, ncols: len(cols.names)}}
	if extra := len(cells) - len(cols.names); extra > 0 && len(cols.names) > 0 {
		// An unescaped bar split a cell. The peer reads the status from the
		// last cell; the columns after the split are counted from the right
		// and the split cell joined back.
		split := max(cols.title, cols.id, 0)
		if cols.dod >= 0 { // commands in a DoD hold bars more often than titles
			split = cols.dod
		}
		merged := cells[split]
		for k := split + 1; k <= split+extra; k++ {
			merged.text += " | " + cells[k].text
		}
		cells = append(append(cells[:split:split], merged), cells[split+extra+1:]...)
		m.warnf(pos{lineNo, cell(first).col}, name(first), "the row has %d cells for %d columns (a bar inside a cell?); read with the extra bars inside column %s",
			len(cells)+extra, len(cols.names), quote.String(name(split)))
	}
	st := cell(cols.status)
	t.Status = m.cellStatus(st, name(cols.status), lineNo)
	content := cell(cols.title).text
	if cols.id >= 0 {
		// "S70-007 [P]": the ID, tagged to run in parallel.
		id, idTags := takeTags(cell(cols.id).text)
		t.rawID = strings.Trim(id, "*` ")
		t.Tags = append(t.Tags, idTags...)
		if content == "" {
			content = cell(cols.id).text
		}
	}
	if cols.title < 0 && cols.id >= 0 {
		// "11.1.1 json-schema-deref 導入": the ID, then the title.
		if id, rest, ok := strings.Cut(strings.TrimSpace(content), " "); ok && mdDepID().MatchString(id) && strings.ContainsAny(id, "0123456789") {
			t.rawID, content = strings.Trim(id, "*`:："), rest
		}
	}
	if cols.where >= 0 {
		where := cell(cols.where).text
		for _, p := range codeSpans(where) {
			if strings.ContainsAny(p, "/.") && !strings.ContainsAny(p, " ()") {
				t.Files = append(t.Files, p)
			}
		}
		t.Objective = joinLines(t.Objective, prefixed("Where: ", where))
	}
	content, tags := takeTags(content)
	t.Tags = append(t.Tags, tags...)
	var long string
	t.Title, long = titleOf(content)
	t.Objective = joinLines(long, t.Objective)
	if t.Title == "" {
		m.warnf(t.at, name(first), "a task without a title; row not imported")
		return
	}
	for _, item := range dodItems(cell(cols.dod).text) {
		t.Acceptance = addCriterion(t.Acceptance, item)
	}
	if cols.deps >= 0 {
		t.deps = splitDeps(cell(cols.deps).text)
		t.depAt, t.depF = pos{lineNo, cell(cols.deps).col}, name(cols.deps)
	}
	m.addEntry(&mdEntry{heading: m.current, indent: -1, draft: t})
}

// cellStatus reads a status cell: a marker, a bracketed or plain status
// word, or nothing (the section's status, else to do).
func (m *mdParser) cellStatus(c mdCell, field string, lineNo int) task.Status {
	text := strings.TrimSpace(c.text)
	at := pos{lineNo, c.col}
	raw := openingMarker(text)
	if raw != "" {
		// the cell opens with its status; later markers are in its note
	} else if loc := lastMarker(text); loc != nil {
		raw = markerText(text, loc)
	} else if mk := mdBareMark().FindAllStringSubmatch(text, -1); mk != nil {
		raw = mk[len(mk)-1][1]
	}
	if raw == "" {
		word := strings.Trim(strings.Fields(text + " x")[0], "`*[]")
		if text == "" || text == "-" {
			if s := m.sectionOf(); s != "" {
				return s
			}
			return task.StatusTodo
		}
		if st, ok := emojiStatus(text); ok {
			return st
		}
		if st, note, ok := markerStatus(word); ok {
			if note != "" {
				m.warnf(at, field, "%s", note)
			}
			return st
		}
		if st, ok := stepStatus(word); ok {
			return st
		}
		m.warnf(at, field, "no status marker in %s; taken as to do", quote.String(text))
		return task.StatusTodo
	}
	status, note, ok := markerStatus(raw)
	if !ok {
		m.warnf(at, field, "unknown status marker %s; taken as to do", quote.String(raw))
	}
	if note != "" {
		m.warnf(at, field, "%s", note)
	}
	return status
}

// openingMarker returns the marker a status cell opens with ("cc:done
// [abc123] (WIP 9→0 …)"), as the peer reads a cell whose note mentions
// other markers: the status first, then what was done. Struck-out text
// (~~cc:WIP~~ cc:完了) and emphasis before it are skipped.
func openingMarker(text string) string {
	text = mdStruck().ReplaceAllString(text, "")
	text = strings.TrimLeftFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '*' || r == '_' || unicode.Is(unicode.So, r) || r == '\uFE0F'
	})
	if loc := mdMarker().FindStringSubmatchIndex(text); loc != nil && loc[0] == 0 {
		return markerText(text, loc)
	}
	if loc := mdBareMark().FindStringSubmatchIndex(text); loc != nil && loc[2] == 0 {
		return text[loc[2]:loc[3]]
	}
	return ""
}

// codeSpans returns the texts of the code spans in s.
func codeSpans(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+1+j])
		s = s[i+1+j+1:]
	}
}

// emojiStatus reads a status written as an emoji, as older Plans.md do.
func emojiStatus(text string) (task.Status, bool) {
	for _, e := range []struct {
		marks  string
		status task.Status
	}{
		{"✅✔☑🟢", task.StatusDone},
		{"🔄🚧⏳🏃🟡", task.StatusDoing},
		{"⬜☐🔲📝❌🔴⏸", task.StatusTodo},
	} {
		if strings.ContainsAny(text, e.marks) {
			return e.status, true
		}
	}
	return "", false
}

// titleOf makes a title of a task's text: the text itself when short, its
// first sentence otherwise, with the whole text as the objective.
func titleOf(text string) (title, objective string) {
	text = strings.Join(strings.Fields(text), " ")
	const limit = 100
	if utf8.RuneCountInString(text) <= limit {
		return text, ""
	}
	title = text
	if i := strings.IndexAny(text, "。！？"); i > 0 {
		title = text[:i]
	} else if i := strings.Index(text, ". "); i > 0 {
		title = text[:i]
	}
	if r := []rune(title); len(r) > limit {
		title = string(r[:limit-1]) + "…"
	}
	return title, text
}

// dodItems splits a DoD cell into criteria: at line breaks (<br>) and at an
// enumeration "(a) ... (b) ...".
func dodItems(text string) []string {
	var out []string
	for _, part := range mdBreak().Split(text, -1) {
		locs := mdEnum().FindAllStringSubmatchIndex(part, -1)
		// Keep only the enumeration that runs (a), (b), (c)... from the start.
		var cuts [][]int
		want := byte('a')
		for _, l := range locs {
			if part[l[2]] == want {
				cuts = append(cuts, l)
				want++
			}
		}
		if len(cuts) == 0 {
			switch item := trimItem(part); item {
			case "-", "—", "–", "n/a", "N/A", "なし", "-（なし）":
				// an empty DoD cell, written so
			default:
				out = append(out, item)
			}
			continue
		}
		if head := trimItem(part[:cuts[0][0]]); head != "" {
			out = append(out, head)
		}
		for k, l := range cuts {
			end := len(part)
			if k+1 < len(cuts) {
				end = cuts[k+1][0]
			}
			out = append(out, trimItem(part[l[1]:end]))
		}
	}
	return out
}

func trimItem(s string) string {
	return strings.TrimRight(strings.TrimSpace(s), "、,;；")
}

var (
	// mdRange is a range of task IDs: "S115-001..005", "156-001〜156-005".
	mdRange = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.*?)(\d+)(?:\.\.|〜|~|–)(.*?)(\d+)$`)
	})
	mdDepID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9§#][A-Za-z0-9._-]*`) })
)

func splitDeps(s string) []string {
	var out []string
	for _, d := range mdDepSplit().Split(strings.TrimSpace(s), -1) {
		d = strings.Trim(d, "`*()（）")
		switch strings.ToLower(d) {
		case "", "-", "—", "–", "なし", "none", "n/a", "無し":
			continue
		}
		if r := expandRange(d); r != nil {
			out = append(out, r...)
			continue
		}
		if id := mdDepID().FindString(d); id != "" && id != d {
			d = strings.TrimRight(id, ".-_") // "3.1依存→": a note after the ID
		}
		out = append(out, d)
	}
	return out
}

// expandRange expands "S115-001..005" to S115-001 ... S115-005, keeping
// the digits' width; nil when d is not a range of at most 100 IDs.
func expandRange(d string) []string {
	m := mdRange().FindStringSubmatch(d)
	if m == nil || (m[3] != "" && m[3] != m[1]) {
		return nil
	}
	lo, err1 := strconv.Atoi(m[2])
	hi, err2 := strconv.Atoi(m[4])
	if err1 != nil || err2 != nil || hi < lo || hi-lo > 100 {
		return nil
	}
	var out []string
	for n := lo; n <= hi; n++ {
		out = append(out, fmt.Sprintf("%s%0*d", m[1], len(m[2]), n))
	}
	return out
}

// phaseLevel is the heading level phases are at: that of the shallowest
// heading named "Phase ..." with tasks under it, or any level when none is.
func (m *mdParser) phaseLevel() int {
	for _, e := range m.entries {
		if e.dropped {
			continue
		}
		for k := e.heading; k >= 0; k = m.headings[k].parent {
			m.headings[k].hasTasks = true
		}
	}
	level := 7
	for _, h := range m.headings {
		if h.hasTasks && !h.task && mdPhaseName().MatchString(cleanHeading(h.text)) {
			level = min(level, h.level)
		}
	}
	return level
}

// cleanHeading drops status markers and decoration from a heading.
func cleanHeading(text string) string {
	text = mdMarker().ReplaceAllString(text, "")
	return strings.Join(strings.Fields(text), " ")
}

// headingID is "phase-2" for "Phase 2: ...", else the heading as an ID.
func headingID(text string) string {
	text = cleanHeading(text)
	if p := mdPhaseName().FindStringSubmatch(text); p != nil {
		return "phase-" + p[1]
	}
	return text
}
