package hook

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail"
)

// Codex edits files with patches in a format of its own (apply_patch):
//
//	*** Begin Patch
//	*** Add File: a.go          then the file's lines, each led by +
//	*** Update File: b.go       then chunks: "@@ [context]", lines led by
//	*** Move to: c.go             ' ', - or +, "*** End of File"
//	*** Delete File: d.go
//	*** End Patch
//
// either through its apply_patch tool (the patch is tool_input.command), or
// as a shell command "apply_patch <<'PATCH' ... PATCH".

var applyPatchFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$`)
})

// applyPatchPaths returns the files an apply_patch command (Codex's way of
// editing files through its shell tool) adds, updates, deletes or moves.
func applyPatchPaths(command string) []string {
	if !strings.Contains(command, "apply_patch") {
		return nil
	}
	return patchFilePaths(command)
}

// patchFilePaths returns the files a patch in apply_patch's format adds,
// updates, deletes or moves, in order.
func patchFilePaths(patch string) []string {
	var out []string
	for _, op := range parsePatch(patch) {
		out = append(out, op.path)
		if op.moveTo != "" {
			out = append(out, op.moveTo)
		}
	}
	return out
}

// patchOp is what a patch does to one file.
type patchOp struct {
	verb   string // "Add File", "Update File", "Delete File"; "Move to" alone: a move of no file known
	path   string
	moveTo string       // Update File: the new path, or ""
	lines  []string     // Add File: the file's lines
	chunks []patchChunk // Update File
}

// patchChunk is one "@@" section of an Update File.
type patchChunk struct {
	context string // the text after "@@ ", a line to seek first
	lines   []patchLine
	eof     bool // *** End of File: the chunk ends the file
}

type patchLine struct {
	op   byte // ' ', '-', '+'
	text string
}

// parsePatch reads the file operations of a patch in apply_patch's format,
// leniently: a header line (trimmed) starts an operation wherever it is,
// and a line an operation cannot hold ends it.
func parsePatch(patch string) []patchOp {
	var ops []patchOp
	var cur *patchOp
	for raw := range strings.Lines(patch) {
		line := strings.TrimRight(raw, "\r\n")
		trimmed := strings.TrimSpace(line)
		if m := applyPatchFile().FindStringSubmatch(trimmed); m != nil {
			verb, p := m[1], strings.TrimSpace(m[2])
			if verb == "Move to" && cur != nil && cur.verb == "Update File" && cur.moveTo == "" && cur.chunks == nil {
				cur.moveTo = p
				continue
			}
			ops = append(ops, patchOp{verb: verb, path: p})
			cur = &ops[len(ops)-1]
			if verb == "Move to" || verb == "Delete File" {
				cur = nil
			}
			continue
		}
		if cur == nil {
			continue
		}
		switch cur.verb {
		case "Add File":
			text, ok := strings.CutPrefix(line, "+")
			if !ok {
				cur = nil
				continue
			}
			cur.lines = append(cur.lines, text)
		case "Update File":
			switch {
			case trimmed == "*** End of File":
				if n := len(cur.chunks); n > 0 {
					cur.chunks[n-1].eof = true
				}
			case line == "@@" || strings.HasPrefix(line, "@@ "):
				cur.chunks = append(cur.chunks, patchChunk{context: strings.TrimSpace(strings.TrimPrefix(line, "@@"))})
			case line == "" || line[0] == ' ' || line[0] == '-' || line[0] == '+':
				if cur.chunks == nil {
					cur.chunks = []patchChunk{{}}
				}
				op, text := byte(' '), ""
				if line != "" {
					op, text = line[0], line[1:]
				}
				ch := &cur.chunks[len(cur.chunks)-1]
				ch.lines = append(ch.lines, patchLine{op: op, text: text})
			default:
				cur = nil
			}
		}
	}
	return ops
}

// patchEdits returns an edit action per file the patch changes inside the
// tree, its paths resolved from dir, each with its part of the patch as a
// unified diff, and for a file outside it the write it amounts to.
func (t tree) patchEdits(dir, patch string) []guardrail.Action {
	var acts []guardrail.Action
	edit := func(rel, diff string) {
		acts = append(acts, guardrail.Action{Kind: guardrail.KindEdit, Path: rel, Diff: diff})
	}
	realRoot := t.realRoot() // for the symbolic links of every operation
	for _, op := range parsePatch(patch) {
		rel, in := relativeTo(t.root, resolve(dir, op.path))
		newRel, newIn := rel, in
		if op.moveTo != "" {
			newRel, newIn = relativeTo(t.root, resolve(dir, op.moveTo))
		}
		// Added, deleted, updated or moved, a file outside the tree is
		// written: judged as that write (see outsideWrite).
		if !in {
			acts = append(acts, outsideWrite(resolve(dir, op.path), op.added())...)
		}
		if op.moveTo != "" && !newIn {
			acts = append(acts, outsideWrite(resolve(dir, op.moveTo), op.added())...)
		}
		// Through a symbolic link, the file written is the one it leads
		// to: judged after the operation's own edit.
		links := t.throughLinks(realRoot, resolve(dir, op.path), op.added())
		if op.moveTo != "" {
			links = append(links, t.throughLinks(realRoot, resolve(dir, op.moveTo), op.added())...)
		}
		switch op.verb {
		case "Add File":
			if in {
				edit(rel, addedDiff(rel, terminated(op.lines)))
			}
		case "Delete File":
			if in {
				var d diffWriter
				d.header(rel, "")
				edit(rel, d.String())
			}
		case "Update File":
			switch {
			case in && newIn:
				edit(newRel, t.updateDiff(rel, newRel, op.chunks))
			case in: // moved out of the tree: gone from it
				var d diffWriter
				d.header(rel, "")
				edit(rel, d.String())
			case newIn: // moved in from outside: what it holds is not known
				edit(newRel, "")
			}
		default: // a move of no file known
			if in {
				edit(rel, "")
			}
		}
		acts = append(acts, links...)
	}
	return acts
}

// added returns the lines the operation adds, a line each: an added
// file's, an update's + lines.
func (op *patchOp) added() string {
	lines := op.lines
	for _, c := range op.chunks {
		for _, l := range c.lines {
			if l.op == '+' {
				lines = append(lines[:len(lines):len(lines)], l.text)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// terminated returns lines each ending in "\n".
func terminated(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l + "\n"
	}
	return out
}

// updateDiff is the diff of an Update File from oldRel to newRel: a hunk
// per chunk, numbered where the chunk's old lines are in the tree's file
// (after the last chunk, when they are not found there).
func (t tree) updateDiff(oldRel, newRel string, chunks []patchChunk) string {
	content, exists, _ := t.read(oldRel)
	var file []string
	if exists {
		for _, l := range splitLines(content) {
			file = append(file, strings.TrimSuffix(l, "\n"))
		}
	}
	var d diffWriter
	d.header(oldRel, newRel)
	pos, delta, end := 0, 0, 0 // end: where the last chunk's lines end
	for _, ch := range chunks {
		var old []string
		oldN, newN := 0, 0
		for _, l := range ch.lines {
			if l.op != '+' {
				old = append(old, l.text)
				oldN++
			}
			if l.op != '-' {
				newN++
			}
		}
		if ch.context != "" {
			if i := seek(file, []string{ch.context}, pos); i >= 0 {
				pos = i + 1
			}
		}
		at, found := pos, false
		switch {
		case ch.eof && len(file)-oldN >= pos:
			at, found = len(file)-oldN, exists
		case oldN == 0 && exists:
			at, found = len(file), true
		case oldN > 0:
			if i := seek(file, old, pos); i >= 0 {
				at, found = i, true
			}
		}
		// Where the chunk is found, up to three of the file's lines before
		// it (after the last chunk) are its context, as git's diffs have:
		// they say what the lines it adds are (the key whose value it
		// replaces alone).
		var before []string
		if found {
			before = file[max(at-3, end, 0):at]
		}
		oldN, newN = oldN+len(before), newN+len(before)
		oldStart, newStart := at+1-len(before), at+1+delta-len(before)
		if oldN == 0 {
			oldStart--
		}
		if newN == 0 {
			newStart--
		}
		fmt.Fprintf(&d, "@@ -%d,%d +%d,%d @@\n", oldStart, oldN, newStart, newN)
		for _, l := range before {
			d.WriteString(" " + l + "\n")
		}
		oldN, newN = oldN-len(before), newN-len(before)
		for _, l := range ch.lines {
			d.WriteByte(l.op)
			d.WriteString(l.text)
			d.WriteByte('\n')
		}
		pos, delta = at+oldN, delta+newN-oldN
		if found {
			end = pos
		}
	}
	return d.String()
}

// seek returns where want starts in file at or after from, as Codex looks
// for a chunk: exactly, then ignoring trailing space, then surrounding
// space; -1 when it is not there.
func seek(file, want []string, from int) int {
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t\r") },
		strings.TrimSpace,
	} {
	next:
		for i := from; i+len(want) <= len(file); i++ {
			for j, w := range want {
				if norm(file[i+j]) != norm(w) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}
