package agent

import (
	"bytes"
	"unicode/utf8"
)

// TailChars is how much of an agent's output an error keeps: about 4 KiB.
const TailChars = 4096

// Tail returns the last [TailChars] characters of s, starting at a character
// boundary.
func Tail(s string) string {
	if len(s) <= TailChars {
		return s
	}
	i, n := len(s), 0
	for i > 0 && n < TailChars {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n++
	}
	return s[i:]
}

// MaxLine bounds one line of an event stream; a longer line is a protocol
// error of the agent.
const MaxLine = 64 << 20

// LineWriter splits what is written to it into lines and hands each complete
// line, without its newline, to a function: the way to read a JSONL event
// stream as it comes. It is not safe for concurrent use; os/exec and
// internal/proc write stdout from one goroutine.
type LineWriter struct {
	fn   func(line []byte)
	buf  []byte
	over bool // the current line passed MaxLine and is being skipped
	// Long is set when a line longer than MaxLine was skipped.
	Long bool
}

// NewLineWriter returns a LineWriter that calls fn for every line.
func NewLineWriter(fn func(line []byte)) *LineWriter { return &LineWriter{fn: fn} }

// Write never fails.
func (w *LineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.add(p)
			break
		}
		w.add(p[:i])
		if !w.over {
			w.fn(w.buf)
		}
		w.buf, w.over = w.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}

func (w *LineWriter) add(p []byte) {
	if w.over {
		return
	}
	if len(w.buf)+len(p) > MaxLine {
		w.over, w.Long, w.buf = true, true, w.buf[:0]
		return
	}
	w.buf = append(w.buf, p...)
}

// Flush hands over a last line that has no newline.
func (w *LineWriter) Flush() {
	if len(w.buf) > 0 && !w.over {
		w.fn(w.buf)
	}
	w.buf, w.over = w.buf[:0], false
}
