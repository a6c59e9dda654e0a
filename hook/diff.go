package hook

import (
	"errors"
	"fmt"
	"github.com/harnish/harnish/internal/linediff"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// tree reads the files of the working tree at root, for the diffs of the
// edits a tool call would make.
type tree struct{ root string }

// read returns the content of the file at rel (slash-separated, relative to
// the root) and whether it exists; known is false when that cannot be told:
// it does not read, is not a regular file, or is larger than [MaxInput].
func (t tree) read(rel string) (content string, exists, known bool) {
	p := filepath.Join(t.root, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, true
	case err != nil || !st.Mode().IsRegular() || st.Size() > MaxInput:
		return "", false, false
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) > MaxInput {
		return "", false, false
	}
	return string(b), true, true
}

// writeDiff is the diff of writing content to the file at rel.
func (t tree) writeDiff(rel, content string) string {
	old, exists, known := t.read(rel)
	switch {
	case !known:
		// What it replaces is unknown: all of content is added.
		var d diffWriter
		d.header(rel, rel)
		d.hunk(1, nil, 1, splitLines(content))
		return d.String()
	case !exists:
		return addedDiff(rel, splitLines(content))
	}
	return changeDiff(rel, old, content)
}

// editDiff is the diff of Claude Code's Edit or MultiEdit replacing text in
// the file at rel, edit after edit. When the file does not hold the text
// (the agent's edit will fail) or cannot be read, it is the replaced and
// the replacing text alone, a hunk per edit.
func (t tree) editDiff(rel string, edits []textEdit) string {
	old, exists, known := t.read(rel)
	if known {
		if cur, ok := applyEdits(old, exists, edits); ok {
			if !exists {
				return addedDiff(rel, splitLines(cur))
			}
			return changeDiff(rel, old, cur)
		}
	}
	var d diffWriter
	d.header(rel, rel)
	for _, e := range edits {
		d.hunk(1, fragmentLines(e.OldString), 1, fragmentLines(e.NewString))
	}
	return d.String()
}

// applyEdits applies edits to content as Claude Code does: each old string
// must be in the text (an empty one creates a file that does not exist),
// and is replaced once, or everywhere with replace_all.
func applyEdits(content string, exists bool, edits []textEdit) (string, bool) {
	for i, e := range edits {
		switch {
		case e.OldString == "" && i == 0 && !exists:
			content, exists = e.NewString, true
		case e.OldString == "" || !exists || !strings.Contains(content, e.OldString):
			return "", false
		case e.ReplaceAll || e.Expected > 1:
			content = strings.ReplaceAll(content, e.OldString, e.NewString)
		default:
			content = strings.Replace(content, e.OldString, e.NewString, 1)
		}
	}
	return content, exists
}

// addedDiff is the diff creating the file rel with lines.
func addedDiff(rel string, lines []string) string {
	var d diffWriter
	d.header("", rel)
	d.hunk(1, nil, 1, lines)
	return d.String()
}

// fragmentDiff is the diff adding text somewhere in the file rel, where
// is not known: a notebook cell's source.
func fragmentDiff(rel, text string) string {
	var d diffWriter
	d.header(rel, rel)
	d.hunk(1, nil, 1, fragmentLines(text))
	return d.String()
}

// changeDiff is the diff of the file rel from old to new, with git's three
// lines of context: they are not judged as written, but say what the
// changed lines are (the key whose value an edit replaces alone, on the
// line before).
func changeDiff(rel, old, new string) string {
	var d diffWriter
	d.header(rel, rel)
	d.WriteString(linediff.Unified(old, new, 3))
	return d.String()
}

// splitLines splits s into lines, each with its "\n" but a last one
// without.
func splitLines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		out = append(out, l)
	}
	return out
}

// fragmentLines splits a piece of a file into lines, each ending in "\n":
// where the piece ends says nothing about the end of the file.
func fragmentLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := splitLines(s)
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "\n") {
		lines[len(lines)-1] = last + "\n"
	}
	return lines
}

// diffWriter writes a unified diff, as [guardrail.ParseDiff] reads it.
type diffWriter struct{ strings.Builder }

// header starts a file: from oldPath to newPath, "" for /dev/null.
func (d *diffWriter) header(oldPath, newPath string) {
	d.WriteString("--- " + headerPath("a/", oldPath) + "\n")
	d.WriteString("+++ " + headerPath("b/", newPath) + "\n")
}

// headerPath is p with its prefix, quoted as git quotes a path when it
// needs to be.
func headerPath(prefix, p string) string {
	if p == "" {
		return "/dev/null"
	}
	if strings.HasPrefix(p, `"`) || strings.IndexFunc(p, func(r rune) bool {
		return r == '\\' || r == '"' || r == '\t' || !unicode.IsPrint(r)
	}) >= 0 {
		return strconv.Quote(prefix + p)
	}
	return prefix + p
}

// hunk writes one hunk without context, removing old from line oldStart
// and adding new from line newStart (both 1-based); an empty side is
// numbered by the line before, as diff does. Lines carry their "\n"; one
// without is the last of its file.
func (d *diffWriter) hunk(oldStart int, old []string, newStart int, new []string) {
	if len(old) == 0 && len(new) == 0 {
		return
	}
	if len(old) == 0 {
		oldStart--
	}
	if len(new) == 0 {
		newStart--
	}
	fmt.Fprintf(d, "@@ -%d,%d +%d,%d @@\n", oldStart, len(old), newStart, len(new))
	for _, l := range old {
		d.line('-', l)
	}
	for _, l := range new {
		d.line('+', l)
	}
}

// line writes one line of a hunk.
func (d *diffWriter) line(op byte, l string) {
	d.WriteByte(op)
	text, terminated := strings.CutSuffix(l, "\n")
	d.WriteString(text)
	d.WriteByte('\n')
	if !terminated {
		d.WriteString("\\ No newline at end of file\n")
	}
}
