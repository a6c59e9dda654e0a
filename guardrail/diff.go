package guardrail

import (
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// ErrDiff is the error [ParseDiff] wraps for input that is not a unified
// diff it can read: a malformed or truncated hunk, a combined diff.
var ErrDiff = errors.New("guardrail: malformed diff")

// FileDiff is the change a unified diff makes to one file.
type FileDiff struct {
	// Path is the file after the change, slash-separated and relative to the
	// working tree's root (the "b/" side, prefix removed). For a deleted file
	// it is the path the file had.
	Path string `json:"path"`
	// OldPath is the file before the change. It equals Path for a
	// modification or deletion, differs for a rename or copy, and is empty
	// for a new file.
	OldPath string     `json:"old_path,omitempty"`
	Status  FileStatus `json:"status"`
	// Binary is set when git reported a binary change ("Binary files ...
	// differ" or a "GIT binary patch"); such a file has no hunks.
	Binary bool   `json:"binary,omitempty"`
	Hunks  []Hunk `json:"hunks,omitempty"`
}

// FileStatus says what a [FileDiff] does to its file.
type FileStatus string

// The file statuses.
const (
	StatusModified FileStatus = "modified" // content or mode changed in place
	StatusAdded    FileStatus = "added"
	StatusDeleted  FileStatus = "deleted"
	StatusRenamed  FileStatus = "renamed" // possibly with content changes
	StatusCopied   FileStatus = "copied"
)

// Hunk is one "@@ -a,b +c,d @@" section of a [FileDiff].
type Hunk struct {
	OldStart int `json:"old_start"`
	OldLines int `json:"old_lines"`
	NewStart int `json:"new_start"`
	NewLines int `json:"new_lines"`
	// Section is the text after the closing "@@", often the enclosing
	// function; empty when there is none.
	Section string `json:"section,omitempty"`
	Lines   []Line `json:"lines"`
}

// Line is one line of a [Hunk].
type Line struct {
	Op LineOp `json:"op"`
	// Text is the line's content without its leading marker or line ending.
	Text string `json:"text"`
	// OldLine and NewLine are the line's 1-based numbers in the file before
	// and after the change; 0 on the side the line is not on (OldLine of an
	// added line, NewLine of a removed one).
	OldLine int `json:"old_line,omitempty"`
	NewLine int `json:"new_line,omitempty"`
	// NoNewline is set when the line is the last of its side and has no
	// line ending ("\ No newline at end of file").
	NoNewline bool `json:"no_newline,omitempty"`
}

// LineOp is the marker of a [Line]: context, added or removed.
type LineOp byte

// The line markers, as a unified diff writes them.
const (
	OpContext LineOp = ' '
	OpAdd     LineOp = '+'
	OpRemove  LineOp = '-'
)

// MarshalText writes the marker as "context", "add" or "remove".
func (op LineOp) MarshalText() ([]byte, error) {
	switch op {
	case OpContext:
		return []byte("context"), nil
	case OpAdd:
		return []byte("add"), nil
	case OpRemove:
		return []byte("remove"), nil
	}
	return nil, fmt.Errorf("guardrail: invalid line op %q", byte(op))
}

// Added returns the lines f adds, in order.
func (f *FileDiff) Added() []Line { return f.lines(OpAdd) }

// newSide yields the lines of f's new side, added and context, in order:
// the added lines with what surrounds them.
func (f *FileDiff) newSide() iter.Seq[Line] {
	return func(yield func(Line) bool) {
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				if l.Op != OpRemove && !yield(l) {
					return
				}
			}
		}
	}
}

// Removed returns the lines f removes, in order.
func (f *FileDiff) Removed() []Line { return f.lines(OpRemove) }

func (f *FileDiff) lines(op LineOp) []Line {
	n := 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op == op {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Line, 0, n)
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op == op {
				out = append(out, l)
			}
		}
	}
	return out
}

// adds reports whether f adds any line.
func (f *FileDiff) adds() bool {
	for _, h := range f.Hunks {
		if h.NewLines > 0 && slices.ContainsFunc(h.Lines, func(l Line) bool { return l.Op == OpAdd }) {
			return true
		}
	}
	return false
}

// Changed returns the number of lines f adds plus the number it removes.
func (f *FileDiff) Changed() int {
	n := 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			if l.Op != OpContext {
				n++
			}
		}
	}
	return n
}

// ParseDiff reads a unified diff as git diff prints it (with or without
// color-free extended headers: modes, renames, copies, new and deleted
// files, binary markers) or as diff -u prints it, into one [FileDiff] per
// file, in input order. The "a/" and "b/" prefixes are removed and quoted
// paths unquoted. Text before the first file header (a commit message from
// git format-patch, say) and between files is ignored.
//
// A hunk whose header does not parse, or that ends before the line counts in
// its header are met, is an error wrapping [ErrDiff]; so is a combined diff
// (diff --cc), which this parser does not read. Empty input yields no files
// and no error.
func ParseDiff(diff string) ([]FileDiff, error) {
	p := diffParser{rest: diff}
	return p.parse()
}

type diffParser struct {
	rest  string
	line  int // number of the line last read, for errors
	files []FileDiff
	cur   *FileDiff
	// gitPaths are the paths of the current "diff --git" header, used when
	// no ---/+++ or rename lines name the file.
	gitOld, gitNew string
	// oldSet and newSet record whether a header ("---" and "+++", or rename
	// and copy lines) named the sides; minus and plus whether the current
	// file had its "---" and "+++" lines.
	oldSet, newSet bool
	minus, plus    bool
}

// next returns the next line without its line ending, and false at the end.
func (p *diffParser) next() (string, bool) {
	if p.rest == "" {
		return "", false
	}
	line, rest, found := strings.Cut(p.rest, "\n")
	if !found {
		rest = ""
	}
	p.rest = rest
	p.line++
	return strings.TrimSuffix(line, "\r"), true
}

// peek returns the next line without consuming it.
func (p *diffParser) peek() (string, bool) {
	if p.rest == "" {
		return "", false
	}
	line, _, _ := strings.Cut(p.rest, "\n")
	return strings.TrimSuffix(line, "\r"), true
}

func (p *diffParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", ErrDiff, p.line, fmt.Sprintf(format, args...))
}

func (p *diffParser) parse() ([]FileDiff, error) {
	for {
		line, ok := p.next()
		if !ok {
			break
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p.start()
			p.gitOld, p.gitNew = splitGitHeader(line[len("diff --git "):])
		case strings.HasPrefix(line, "diff --cc "), strings.HasPrefix(line, "diff --combined "):
			return nil, p.errorf("combined diffs (merge conflicts) are not supported")
		case strings.HasPrefix(line, "--- ") && p.plainHeaderFollows():
			if p.cur == nil || p.minus || p.cur.Hunks != nil {
				// diff -u output, or a second file without a git header.
				p.start()
			}
			p.cur.OldPath, p.oldSet, p.minus = headerPath(line[len("--- "):]), true, true
		case strings.HasPrefix(line, "+++ ") && p.cur != nil && p.minus && !p.plus:
			p.cur.Path, p.newSet, p.plus = headerPath(line[len("+++ "):]), true, true
		case strings.HasPrefix(line, "@@ "):
			if p.cur == nil {
				return nil, p.errorf("hunk before any file header")
			}
			if err := p.hunk(line); err != nil {
				return nil, err
			}
		case p.cur != nil && p.cur.Hunks == nil:
			p.extended(line)
		}
	}
	p.finish()
	for i := range p.files {
		if p.files[i].Path == "" {
			return nil, fmt.Errorf("%w: file %d of %d: its header names no path", ErrDiff, i+1, len(p.files))
		}
	}
	return p.files, nil
}

// plainHeaderFollows reports whether the line after a "--- " line is a
// "+++ " line, which makes the pair a file header rather than stray text.
func (p *diffParser) plainHeaderFollows() bool {
	next, ok := p.peek()
	return ok && strings.HasPrefix(next, "+++ ")
}

// start ends the current file, if any, and begins a new one.
func (p *diffParser) start() {
	p.finish()
	p.files = append(p.files, FileDiff{Status: StatusModified})
	p.cur = &p.files[len(p.files)-1]
	p.gitOld, p.gitNew = "", ""
	p.oldSet, p.newSet, p.minus, p.plus = false, false, false, false
}

// finish settles the current file's paths and status.
func (p *diffParser) finish() {
	f := p.cur
	if f == nil {
		return
	}
	p.cur = nil
	if !p.oldSet && f.OldPath == "" && f.Status != StatusAdded {
		f.OldPath = p.gitOld
	}
	if !p.newSet && f.Path == "" && f.Status != StatusDeleted {
		f.Path = p.gitNew
	}
	switch {
	case f.OldPath == "" && f.Path != "":
		f.Status = StatusAdded
	case f.Path == "" && f.OldPath != "":
		f.Status, f.Path = StatusDeleted, f.OldPath
	case f.Status == StatusDeleted:
		// "deleted file mode" with a "+++ b/x" side: keep the path.
	case f.Status == StatusModified && f.OldPath != f.Path:
		f.Status = StatusRenamed
	}
	if f.Status == StatusAdded {
		f.OldPath = ""
	}
}

// extended reads one git extended header line of the current file.
func (p *diffParser) extended(line string) {
	f := p.cur
	switch {
	case strings.HasPrefix(line, "new file mode "):
		f.Status = StatusAdded
	case strings.HasPrefix(line, "deleted file mode "):
		f.Status = StatusDeleted
	case strings.HasPrefix(line, "rename from "):
		f.Status, f.OldPath, p.oldSet = StatusRenamed, unquote(line[len("rename from "):]), true
	case strings.HasPrefix(line, "rename to "):
		f.Status, f.Path, p.newSet = StatusRenamed, unquote(line[len("rename to "):]), true
	case strings.HasPrefix(line, "copy from "):
		f.Status, f.OldPath, p.oldSet = StatusCopied, unquote(line[len("copy from "):]), true
	case strings.HasPrefix(line, "copy to "):
		f.Status, f.Path, p.newSet = StatusCopied, unquote(line[len("copy to "):]), true
	case strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
		f.Binary = true
	case line == "GIT binary patch":
		f.Binary = true
		// Skip the base85 data up to the blank line after the last block.
		for {
			l, ok := p.peek()
			if !ok || strings.HasPrefix(l, "diff --git ") {
				return
			}
			p.next()
			if l == "" {
				if nx, _ := p.peek(); !strings.HasPrefix(nx, "literal ") && !strings.HasPrefix(nx, "delta ") {
					return
				}
			}
		}
	}
}

// hunk reads a hunk whose header is line, and its lines.
func (p *diffParser) hunk(header string) error {
	h, ok := parseHunkHeader(header)
	if !ok {
		return p.errorf("malformed hunk header %q", header)
	}
	oldLeft, newLeft := h.OldLines, h.NewLines
	oldNo, newNo := h.OldStart, h.NewStart
	// The header says how many lines follow: at most old plus new (fewer
	// by the context lines, counted on both sides). Not empty, so a hunk
	// without lines has [] and not nil; bounded, so a header cannot make
	// a large allocation for lines that are not there.
	h.Lines = make([]Line, 0, min(h.OldLines+h.NewLines, maxPrealloc))
	for oldLeft > 0 || newLeft > 0 {
		line, ok := p.next()
		if !ok {
			return p.errorf("hunk %q ends early: %d old and %d new lines missing", header, oldLeft, newLeft)
		}
		var op LineOp
		var text string
		if line == "" {
			// Some tools strip the space of an empty context line.
			op = OpContext
		} else {
			op, text = LineOp(line[0]), line[1:]
		}
		l := Line{Op: op, Text: text}
		switch {
		case op == OpContext && oldLeft > 0 && newLeft > 0:
			l.OldLine, l.NewLine = oldNo, newNo
			oldNo, newNo, oldLeft, newLeft = oldNo+1, newNo+1, oldLeft-1, newLeft-1
		case op == OpRemove && oldLeft > 0:
			l.OldLine = oldNo
			oldNo, oldLeft = oldNo+1, oldLeft-1
		case op == OpAdd && newLeft > 0:
			l.NewLine = newNo
			newNo, newLeft = newNo+1, newLeft-1
		case op == '\\' && len(h.Lines) > 0:
			h.Lines[len(h.Lines)-1].NoNewline = true
			continue
		default:
			return p.errorf("unexpected line %q in hunk %q (%d old and %d new lines left)", trim(line, 40), header, oldLeft, newLeft)
		}
		h.Lines = append(h.Lines, l)
	}
	if next, ok := p.peek(); ok && strings.HasPrefix(next, `\`) && len(h.Lines) > 0 {
		p.next()
		h.Lines[len(h.Lines)-1].NoNewline = true
	}
	p.cur.Hunks = append(p.cur.Hunks, h)
	return nil
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@[ section]".
func parseHunkHeader(s string) (Hunk, bool) {
	rest, ok := strings.CutPrefix(s, "@@ -")
	if !ok {
		return Hunk{}, false
	}
	oldRange, rest, ok := strings.Cut(rest, " +")
	if !ok {
		return Hunk{}, false
	}
	newRange, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return Hunk{}, false
	}
	var h Hunk
	if h.OldStart, h.OldLines, ok = parseRange(oldRange); !ok {
		return Hunk{}, false
	}
	if h.NewStart, h.NewLines, ok = parseRange(newRange); !ok {
		return Hunk{}, false
	}
	h.Section = strings.TrimPrefix(section, " ")
	return h, true
}

// maxPrealloc bounds the lines a hunk header makes room for at once.
const maxPrealloc = 1024

// maxRange bounds the numbers of a hunk header, so line numbers cannot
// overflow an int on any platform.
const maxRange = 1 << 30

// parseRange parses "start[,count]"; count defaults to 1.
func parseRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 || start > maxRange || strings.HasPrefix(a, "+") {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(b)
		if err != nil || count < 0 || count > maxRange || strings.HasPrefix(b, "+") {
			return 0, 0, false
		}
	}
	return start, count, true
}

// headerPath reads the path of a "---" or "+++" line: "" for /dev/null,
// otherwise unquoted, without a trailing tab and timestamp, and without its
// a/ or b/ prefix.
func headerPath(s string) string {
	if strings.HasPrefix(s, `"`) {
		return stripPrefix(unquote(s))
	}
	s, _, _ = strings.Cut(s, "\t")
	if s == "/dev/null" {
		return ""
	}
	return stripPrefix(s)
}

// splitGitHeader splits the paths of "diff --git a/x b/y". Unquoted paths
// may contain spaces, so the line is ambiguous in general; the common case,
// the same path on both sides, is split exactly, and otherwise at " b/".
// Renames and ---/+++ lines override what this guesses.
func splitGitHeader(s string) (oldPath, newPath string) {
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", ""
		}
		oldPath = stripPrefix(unquote(s[:end+1]))
		return oldPath, stripPrefix(unquote(strings.TrimPrefix(s[end+1:], " ")))
	}
	if n := len(s); n%2 == 1 {
		half := (n - 1) / 2
		a, b := s[:half], s[half+1:]
		if s[half] == ' ' && stripPrefix(a) == stripPrefix(b) {
			return stripPrefix(a), stripPrefix(b)
		}
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return stripPrefix(s[:i]), stripPrefix(s[i+1:])
	}
	if i := strings.Index(s, ` "`); i >= 0 {
		return stripPrefix(s[:i]), stripPrefix(unquote(s[i+1:]))
	}
	return "", ""
}

// closingQuote returns the index of the quote that closes the C-style quoted
// string at the start of s, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote undoes git's C-style quoting of a path ("a/t\303\251st"); a path
// that is not quoted, or does not unquote, is returned as it is.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	if end := closingQuote(s); end > 0 {
		s = s[:end+1]
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

// stripPrefix removes git's "a/" or "b/" prefix.
func stripPrefix(s string) string {
	if len(s) > 2 && (s[0] == 'a' || s[0] == 'b') && s[1] == '/' {
		return s[2:]
	}
	return s
}

// trim shortens s to at most n bytes for a message.
func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
