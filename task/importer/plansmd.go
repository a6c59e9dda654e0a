package importer

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// PlansMD converts a Plans.md task list, in the format of claude-code-harness,
// into a plan. name names the file in errors and, when the file has no title,
// gives the plan its name. See the package documentation for what is read.
func PlansMD(name string, data []byte) (*task.Plan, error) {
	if len(data) > task.MaxPlanSize {
		return nil, tooLarge(name, strconv.Itoa(len(data))+" bytes")
	}
	m := &mdParser{file: name}
	if err := m.parse(data); err != nil {
		return nil, err
	}
	b := newBuilder(name)
	b.dropUnknownDeps = true // Plans.md moves finished phases to archive files
	b.name = slug(m.project)
	if b.name == "" {
		b.name = slug(m.title)
	}
	if b.name == "" {
		base := filepath.Base(name)
		b.name = slug(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	level := m.phaseLevel()
	for _, e := range m.entries {
		h := -1
		for k := e.heading; k >= 0; k-- {
			if m.headings[k].level <= level {
				h = k
				break
			}
		}
		var ph *phaseDraft
		if h < 0 {
			ph = b.phase("-1", "tasks", m.title, pos{1, 1}, "")
		} else {
			hd := m.headings[h]
			ph = b.phase(strconv.Itoa(h), headingID(hd.text), cleanHeading(hd.text), hd.at, "heading")
		}
		b.add(ph, e.draft, ph.id+"-"+strconv.Itoa(len(ph.tasks)+1))
	}
	return b.plan()
}

type mdHeadingInfo struct {
	level    int
	text     string
	at       pos
	hasTasks bool
	parent   int // the nearest earlier heading of a lower level; -1 for none
}

type mdEntry struct {
	heading int // the latest heading before the task; -1 for none
	indent  int // for a list item, its indentation; -1 for a table row
	draft   *taskDraft
}

type mdParser struct {
	file     string
	title    string // the first level-1 heading
	project  string // a "Project: name" line
	headings []mdHeadingInfo
	entries  []*mdEntry
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
	mdMarker = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`((?i:cc|pm|cursor):[^`\\s]+|(?i:blocked))`")
	})
	mdBareMark = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?i)(?:^|[^a-z])((?:cc|pm|cursor):[^\\s|,()（）\\[\\]`*]+|blocked)")
	})
	mdTaskID = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([A-Za-z]*[0-9][A-Za-z0-9._-]*):\s+`)
	})
	mdDepends = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bdepends:\s*([A-Za-z0-9._,-]+)`)
	})
	mdParallel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[P\]`)
	})
	mdLabel = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:dod|ac|acceptance(?: criteria)?|done when|完了条件|受入条件|受け入れ条件)\s*[:：]\s*(.+)$`)
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
)

// markers maps the status markers (in lower case) to statuses. A blocked task
// is not done, so it is to do.
var markers = map[string]task.Status{
	"cc:todo":      task.StatusTodo,
	"cc:wip":       task.StatusDoing,
	"cc:done":      task.StatusDone,
	"cc:完了":        task.StatusDone,
	"cc:blocked":   task.StatusTodo,
	"blocked":      task.StatusTodo,
	"pm:requested": task.StatusTodo,
	"pm:依頼中":       task.StatusTodo,
	"pm:approved":  task.StatusDone,
	"pm:確認済":       task.StatusDone,
	"cursor:依頼中":   task.StatusTodo,
	"cursor:確認済":   task.StatusDone,
}

const markerList = "cc:TODO, cc:WIP, cc:done, cc:完了, cc:blocked, pm:requested, pm:依頼中, pm:approved, pm:確認済, cursor:依頼中, cursor:確認済"

func (m *mdParser) parse(data []byte) error {
	if !utf8.Valid(data) {
		return errorf(m.file, pos{}, "", "not UTF-8 text")
	}
	lines := strings.Split(string(blankComments(data)), "\n")
	i := 0
	if strings.TrimSpace(strings.TrimPrefix(lines[0], "\ufeff")) == "---" { // front matter
		for i = 1; i < len(lines) && strings.TrimSpace(lines[i]) != "---"; i++ {
		}
		i++
	}
	var fence string
	var item *mdEntry // the list task whose details follow
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
			hd := mdHeadingInfo{level: len(h[1]), text: h[2], at: pos{lineNo, 1}, parent: len(m.headings) - 1}
			for hd.parent >= 0 && m.headings[hd.parent].level >= hd.level {
				hd.parent = m.headings[hd.parent].parent
			}
			if hd.level == 1 && m.title == "" {
				m.title = cleanHeading(hd.text)
			}
			m.headings = append(m.headings, hd)
			continue
		}
		if strings.HasPrefix(trimmed, "|") && i+1 < len(lines) && mdDelimRow().MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-") {
			item = nil
			next, err := m.table(lines, i)
			if err != nil {
				return err
			}
			i = next - 1
			continue
		}
		if li := mdListItem().FindStringSubmatch(line); li != nil {
			indent := indentWidth(li[1])
			if item != nil && indent > item.indent {
				if _, ok := findMarker(li[4]); !ok {
					m.detail(item, li[4])
					continue
				}
			}
			e, err := m.listItem(li[4], indent, pos{lineNo, len(li[1]) + 1}, line)
			if err != nil {
				return err
			}
			item = e
			continue
		}
		if item != nil && trimmed != "" {
			if indentWidth(line[:len(line)-len(strings.TrimLeft(line, " \t"))]) > item.indent {
				m.detail(item, trimmed)
			} else {
				item = nil
			}
		}
	}
	return nil
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

// findMarker finds the first status marker in a code span of a list item.
// It returns the marker and its byte range (backticks included).
func findMarker(s string) ([]int, bool) {
	loc := mdMarker().FindStringSubmatchIndex(s)
	return loc, loc != nil
}

// listItem makes a task of a list item that has a status marker or a
// checkbox; it returns nil for any other item.
func (m *mdParser) listItem(text string, indent int, at pos, line string) (*mdEntry, error) {
	t := &taskDraft{at: at, field: "task"}
	checkbox := mdCheckbox().FindStringSubmatch(text)
	if checkbox != nil {
		text = text[len(checkbox[0]):]
	}
	loc, marked := findMarker(text)
	switch {
	case marked:
		raw := text[loc[2]:loc[3]]
		status, ok := markers[strings.ToLower(raw)]
		if !ok {
			col := at.col + strings.Index(line[at.col-1:], raw)
			return nil, errorf(m.file, pos{at.line, col}, "status", "unknown status marker %s: want one of %s", quote.String(raw), markerList)
		}
		t.Status = status
		text = text[:loc[0]] + " " + text[loc[1]:]
	case checkbox == nil:
		return nil, nil
	case checkbox[1] == " ":
		t.Status = task.StatusTodo
	default:
		t.Status = task.StatusDone
	}
	text = strings.TrimSpace(text)
	if id := mdTaskID().FindStringSubmatch(text); id != nil {
		t.rawID = id[1]
		text = text[len(id[0]):]
	}
	if d := mdDepends().FindStringSubmatchIndex(text); d != nil {
		t.deps = splitDeps(text[d[2]:d[3]])
		t.depAt, t.depF = at, "depends"
		text = text[:d[0]] + text[d[1]:]
	}
	text = mdParallel().ReplaceAllString(text, "")
	t.Title = strings.Join(strings.Fields(text), " ")
	if t.Title == "" {
		return nil, errorf(m.file, at, "task", "a task needs a title")
	}
	e := &mdEntry{heading: len(m.headings) - 1, indent: indent, draft: t}
	m.entries = append(m.entries, e)
	return e, nil
}

// detail adds a line under a list task: an acceptance criterion when it is
// labelled so ("DoD: ..."), part of the objective otherwise.
func (m *mdParser) detail(e *mdEntry, text string) {
	text = strings.TrimSpace(text)
	if c := mdCheckbox().FindStringSubmatch(text); c != nil {
		text = strings.TrimSpace(text[len(c[0]):])
	}
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

// splitRow splits a table row into cells; "\|" is a literal bar.
func splitRow(line string) []mdCell {
	var cells []mdCell
	var b strings.Builder
	start := 0
	i := len(line) - len(strings.TrimLeft(line, " \t"))
	if i < len(line) && line[i] == '|' {
		i++
	}
	start = i
	end := len(strings.TrimRight(line, " \t\r"))
	for ; i < end; i++ {
		switch {
		case line[i] == '\\' && i+1 < end && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, newCell(b.String(), start))
			b.Reset()
			start = i + 1
		default:
			b.WriteByte(line[i])
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
	id, title, dod, deps, status int
	names                        []string
}

func columnsOf(header []mdCell) mdColumns {
	c := mdColumns{id: -1, title: -1, dod: -1, deps: -1, status: -1}
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
		case "内容", "content", "description", "title", "name", "task name", "summary", "タスク名", "説明", "概要":
			set(&c.title)
		case "dod", "acceptance", "acceptance criteria", "done when", "完了条件", "受入条件", "受け入れ条件":
			set(&c.dod)
		case "depends", "depends on", "dependencies", "deps", "依存", "依存関係":
			set(&c.deps)
		case "status", "state", "状態", "ステータス":
			set(&c.status)
		}
	}
	return c
}

// table reads the table whose header is lines[i]; it returns the index of the
// first line after it. Only a table with a status column and a task or
// content column holds tasks.
func (m *mdParser) table(lines []string, i int) (int, error) {
	cols := columnsOf(splitRow(lines[i]))
	isTasks := cols.status >= 0 && (cols.id >= 0 || cols.title >= 0)
	j := i + 2
	for ; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
		if !isTasks {
			continue
		}
		if err := m.row(splitRow(strings.TrimRight(lines[j], "\r")), cols, j+1); err != nil {
			return 0, err
		}
	}
	return j, nil
}

func (m *mdParser) row(cells []mdCell, cols mdColumns, lineNo int) error {
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
	t := &taskDraft{at: pos{lineNo, cell(first).col}, field: name(first)}
	st := cell(cols.status)
	status, err := m.cellStatus(st, name(cols.status), lineNo)
	if err != nil {
		return err
	}
	t.Status = status
	content := cell(cols.title).text
	if cols.id >= 0 {
		t.rawID = strings.Trim(cell(cols.id).text, "*`")
		if content == "" {
			content = cell(cols.id).text
		}
	}
	t.Title, t.Objective = titleOf(content)
	if t.Title == "" {
		return errorf(m.file, t.at, name(first), "a task needs a title")
	}
	for _, item := range dodItems(cell(cols.dod).text) {
		t.Acceptance = addCriterion(t.Acceptance, item)
	}
	if cols.deps >= 0 {
		t.deps = splitDeps(cell(cols.deps).text)
		t.depAt, t.depF = pos{lineNo, cell(cols.deps).col}, name(cols.deps)
	}
	m.entries = append(m.entries, &mdEntry{heading: len(m.headings) - 1, indent: -1, draft: t})
	return nil
}

func (m *mdParser) cellStatus(c mdCell, field string, lineNo int) (task.Status, error) {
	var raw string
	if mk := mdBareMark().FindStringSubmatch(c.text); mk != nil {
		raw = mk[1]
	}
	if raw == "" {
		return "", errorf(m.file, pos{lineNo, c.col}, field, "no status marker in %s: want one of %s", quote.String(c.text), markerList)
	}
	status, ok := markers[strings.ToLower(raw)]
	if !ok {
		return "", errorf(m.file, pos{lineNo, c.col}, field, "unknown status marker %s: want one of %s", quote.String(raw), markerList)
	}
	return status, nil
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
			out = append(out, trimItem(part))
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

func splitDeps(s string) []string {
	var out []string
	for _, d := range mdDepSplit().Split(strings.TrimSpace(s), -1) {
		d = strings.Trim(d, "`*")
		switch strings.ToLower(d) {
		case "", "-", "—", "–", "なし", "none", "n/a":
			continue
		}
		out = append(out, d)
	}
	return out
}

// phaseLevel is the heading level phases are at: that of the shallowest
// heading named "Phase ..." with tasks under it, or any level when none is.
func (m *mdParser) phaseLevel() int {
	for _, e := range m.entries {
		for k := e.heading; k >= 0; k = m.headings[k].parent {
			m.headings[k].hasTasks = true
		}
	}
	level := 7
	for _, h := range m.headings {
		if h.hasTasks && mdPhaseName().MatchString(cleanHeading(h.text)) {
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
