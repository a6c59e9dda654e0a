// Package transcript writes an attempt's transcript: JSON lines, the
// agent's own stream line by line, bounded in size, ending with the
// process's exit code and the end of its stderr. Every line reaches the file
// in one write, so a transcript cut off by a crash of harnish or of the
// agent is still JSON lines, every one whole.
//
// The lines harnish adds are objects with a "harnish" key:
//
//	{"harnish":"attempt","agent":"codex","task":"T1","attempt":2,"time":"…"}  first
//	{"harnish":"stdout","line":"…"}            a line of the stream that is not JSON
//	{"harnish":"truncated","dropped_bytes":N,"max_bytes":M}  the stream passed MaxBytes
//	{"harnish":"exit","exit_code":N,"stderr":"…","error":"…"}  last, when the attempt ended
package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// MaxBytes bounds what a transcript keeps of the agent's stream: 16 MiB.
// Past it the stream's lines are dropped and counted; the header and the
// last lines are written whatever the bound.
const MaxBytes = 16 << 20

// Header is the transcript's first line.
type Header struct {
	Agent   string    `json:"agent,omitempty"`
	Task    string    `json:"task"`
	Attempt int       `json:"attempt"`
	Time    time.Time `json:"time"`
}

// End is how the attempt ended: the transcript's last line.
type End struct {
	// ExitCode is the process's exit status; nil when not known (an agent
	// whose process the executor does not report on), -1 when it did not
	// exit on its own.
	ExitCode *int
	// Stderr is the end of the process's stderr.
	Stderr string
	// Err says why the attempt failed, when it did.
	Err string
}

// Writer writes a transcript. Its Write never fails, so the agent's stream
// it tees never stops for the transcript's sake: once writing the file
// fails (a full disk, say), the transcript ends there. It is not safe for
// concurrent use.
type Writer struct {
	f       *os.File
	max     int64
	size    int64 // of the stream's lines written
	line    []byte
	full    bool // the bound was reached: the rest of the stream is dropped
	dropped int64
	failed  bool
}

// Create starts a transcript at path, replacing what was there, with h
// as its first line; max bounds the stream kept (MaxBytes when zero or
// less). The file is private to its owner: a stream holds what the agent
// read and ran.
func Create(path string, h Header, max int64) (*Writer, error) {
	if max <= 0 {
		max = MaxBytes
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, max: max}
	if h.Time.IsZero() {
		h.Time = time.Now().UTC()
	}
	w.record(struct {
		Kind string `json:"harnish"`
		Header
	}{"attempt", h})
	if w.failed {
		f.Close()
		return nil, fmt.Errorf("transcript: write %s", path)
	}
	return w, nil
}

// Path is the transcript's file.
func (w *Writer) Path() string { return w.f.Name() }

// Write takes the next bytes of the agent's stream.
func (w *Writer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		w.add(chunk)
		if i < 0 {
			break
		}
		w.endLine()
		p = p[i+1:]
	}
	return n, nil
}

func (w *Writer) add(p []byte) {
	if w.full {
		w.dropped += int64(len(p))
		return
	}
	// A line that will not fit is dropped whole, not cut (a cut line is
	// not JSON), and so is the rest: the transcript is a prefix of the
	// stream.
	if w.size+int64(len(w.line)+len(p))+1 > w.max {
		w.dropped += int64(len(w.line) + len(p))
		w.line, w.full = w.line[:0], true
		return
	}
	w.line = append(w.line, p...)
}

func (w *Writer) endLine() {
	if w.full {
		w.dropped++ // its newline
		return
	}
	line := bytes.TrimSuffix(w.line, []byte("\r"))
	w.line = w.line[:0]
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if !json.Valid(line) {
		before := w.size
		w.record(struct {
			Kind string `json:"harnish"`
			Line string `json:"line"`
		}{"stdout", string(line)})
		w.size = before + int64(len(line)) + 1 // the bound is on the stream, not on its quoting
		return
	}
	w.writeLine(append(line, '\n'))
	w.size += int64(len(line)) + 1
}

// Close ends the transcript with how the attempt ended, after a last
// line of the stream that had no newline, and closes the file.
func (w *Writer) Close(end End) error {
	if len(w.line) > 0 {
		w.endLine()
	}
	if w.dropped > 0 {
		w.record(struct {
			Kind    string `json:"harnish"`
			Dropped int64  `json:"dropped_bytes"`
			Max     int64  `json:"max_bytes"`
		}{"truncated", w.dropped, w.max})
	}
	w.record(struct {
		Kind     string `json:"harnish"`
		ExitCode *int   `json:"exit_code,omitempty"`
		Stderr   string `json:"stderr,omitempty"`
		Err      string `json:"error,omitempty"`
	}{"exit", end.ExitCode, end.Stderr, end.Err})
	return w.f.Close()
}

// record writes one line of harnish's own.
func (w *Writer) record(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	w.writeLine(append(data, '\n'))
}

// writeLine writes a whole line in one write.
func (w *Writer) writeLine(line []byte) {
	if w.failed {
		return
	}
	if _, err := w.f.Write(line); err != nil {
		w.failed = true
	}
}

// SafeName is a task ID made safe for a file name: path separators, ':',
// '*' and control characters become '_'.
func SafeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == '*' || r < ' ' {
			return '_'
		}
		return r
	}, id)
}
