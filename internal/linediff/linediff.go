package linediff

import (
	"fmt"
	"slices"
	"strings"
)

// Op is what an edit script does with one line.
type Op byte

// The operations, written as a unified diff marks its lines.
const (
	Equal  Op = ' '
	Delete Op = '-'
	Insert Op = '+'
)

// maxCost bounds the work of one [Diff], in diagonal steps of the search;
// past it the rest is reported as replaced. It keeps a diff of two large,
// unlike files to a fraction of a second.
const maxCost = 1 << 24

// Lines splits text into lines, each with its "\n"; the last one lacks it
// when text does not end in a newline. Empty text has no lines.
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Diff returns an edit script that turns a into b: one [Op] per line kept,
// deleted or inserted, in order, deletions of a change before its
// insertions. It is minimal unless the inputs are too costly to compare
// (see the package documentation).
func Diff(a, b []string) []Op {
	// Compare integers, not strings.
	ids := make(map[string]int, len(a)+len(b))
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := differ{a: intern(a), b: intern(b), budget: maxCost}
	d.del = make([]bool, len(a))
	d.ins = make([]bool, len(b))
	off := len(a) + len(b) + 2
	d.off = off
	d.vf = make([]int, 2*off+1)
	d.vb = make([]int, 2*off+1)
	d.compare(0, len(a), 0, len(b))

	ops := make([]Op, 0, max(len(a), len(b)))
	for i, j := 0, 0; i < len(a) || j < len(b); {
		switch {
		case i < len(a) && d.del[i]:
			ops = append(ops, Delete)
			i++
		case j < len(b) && d.ins[j]:
			ops = append(ops, Insert)
			j++
		default:
			ops = append(ops, Equal)
			i++
			j++
		}
	}
	return ops
}

type differ struct {
	a, b     []int
	del, ins []bool // lines of a deleted, of b inserted
	vf, vb   []int  // furthest x per diagonal, forward and backward
	off      int    // index of diagonal 0 in vf and vb
	budget   int
}

// compare marks the changes between a[aLo:aHi] and b[bLo:bHi].
func (d *differ) compare(aLo, aHi, bLo, bHi int) {
	for aLo < aHi && bLo < bHi && d.a[aLo] == d.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && d.a[aHi-1] == d.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	x, y, ok := 0, 0, false
	if aLo < aHi && bLo < bHi {
		x, y, ok = d.middle(aLo, aHi, bLo, bHi)
		// A split at a corner would not shrink the problem; middle never
		// returns one, but the guard keeps a bug from looping.
		ok = ok && !(x == aLo && y == bLo) && !(x == aHi && y == bHi)
	}
	if !ok {
		for i := aLo; i < aHi; i++ {
			d.del[i] = true
		}
		for j := bLo; j < bHi; j++ {
			d.ins[j] = true
		}
		return
	}
	d.compare(aLo, x, bLo, y)
	d.compare(x, aHi, y, bHi)
}

// middle finds a point on a shortest edit path from (aLo, bLo) to (aHi,
// bHi), where the forward and the backward search meet (Myers' middle
// snake). Coordinates are absolute; diagonal k holds the points x-y = k.
// It reports false when the budget runs out first.
func (d *differ) middle(aLo, aHi, bLo, bHi int) (x, y int, ok bool) {
	fmid, bmid := aLo-bLo, aHi-bHi // the diagonals the searches start on
	odd := (fmid-bmid)&1 != 0
	vf, vb, off := d.vf, d.vb, d.off
	// Diagonals outside [dmin, dmax] leave the rectangle.
	dmin, dmax := aLo-bHi, aHi-bLo
	vf[off+fmid] = aLo
	vb[off+bmid] = aHi
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	for {
		if d.budget <= 0 {
			return 0, 0, false
		}
		// Widen the forward diagonals by one each side, within the rectangle.
		if fmin > dmin {
			fmin--
			vf[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			vf[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := vf[off+k-1], vf[off+k+1]
			x := hi
			if lo >= hi {
				x = lo + 1
			}
			y := x - k
			for x < aHi && y < bHi && d.a[x] == d.b[y] {
				x, y = x+1, y+1
			}
			d.budget -= x - hi + 1
			vf[off+k] = x
			if odd && bmin <= k && k <= bmax && vb[off+k] <= x {
				return x, y, true
			}
		}
		// The same backward.
		if bmin > dmin {
			bmin--
			vb[off+bmin-1] = 1 << 62
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			vb[off+bmax+1] = 1 << 62
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := vb[off+k-1], vb[off+k+1]
			x := hi - 1
			if lo < hi {
				x = lo
			}
			y := x - k
			start := x
			for x > aLo && y > bLo && d.a[x-1] == d.b[y-1] {
				x, y = x-1, y-1
			}
			d.budget -= start - x + 1
			vb[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= vf[off+k] {
				return x, y, true
			}
		}
	}
}

// Unified returns the hunks of a unified diff from old to new with context
// lines of context around each change, as git diff writes them: "@@ -a,b
// +c,d @@" headers (",1" left out), lines marked ' ', '-' and '+', and "\ No
// newline at end of file" after a last line without one. It returns ""
// when old and new are equal.
func Unified(old, new string, context int) string {
	a, b := Lines(old), Lines(new)
	ops := Diff(a, b)
	var out strings.Builder
	for lo := 0; lo < len(ops); {
		if ops[lo] == Equal {
			lo++
			continue
		}
		// A hunk runs from context lines before this change to context
		// lines after the last change that is at most 2*context lines
		// from the one before it.
		end := lo
		for {
			for end < len(ops) && ops[end] != Equal {
				end++
			}
			next := end
			for next < len(ops) && ops[next] == Equal {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				break
			}
			end = next
		}
		start, stop := max(lo-context, 0), min(end+context, len(ops))
		writeHunk(&out, a, b, ops, start, stop)
		lo = stop
	}
	return out.String()
}

// Replaced returns one hunk that removes every line of old and adds every
// line of new, without comparing them: the diff of files too large to
// compare line by line. It returns "" when both are empty.
func Replaced(old, new string) string {
	a, b := Lines(old), Lines(new)
	if len(a)+len(b) == 0 {
		return ""
	}
	ops := slices.Concat(slices.Repeat([]Op{Delete}, len(a)), slices.Repeat([]Op{Insert}, len(b)))
	var out strings.Builder
	writeHunk(&out, a, b, ops, 0, len(ops))
	return out.String()
}

// writeHunk writes the hunk of ops[start:stop].
func writeHunk(out *strings.Builder, a, b []string, ops []Op, start, stop int) {
	i, j := 0, 0 // lines of a and b before start
	for _, op := range ops[:start] {
		if op != Insert {
			i++
		}
		if op != Delete {
			j++
		}
	}
	var na, nb int
	for _, op := range ops[start:stop] {
		if op != Insert {
			na++
		}
		if op != Delete {
			nb++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(i, na), hunkRange(j, nb))
	for _, op := range ops[start:stop] {
		var line string
		switch op {
		case Equal:
			line = a[i]
			i, j = i+1, j+1
		case Delete:
			line = a[i]
			i++
		case Insert:
			line = b[j]
			j++
		}
		out.WriteByte(byte(op))
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange writes one side of a hunk header: the first line (the line
// before, for an empty side) and the count, left out when it is 1.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprintf("%d", before+1)
	}
	return fmt.Sprintf("%d,%d", before+1, n)
}
