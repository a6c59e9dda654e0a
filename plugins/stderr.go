package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/harnish/harnish/internal/proc"
)

// syncTail is a [proc.Tail] safe for concurrent use: the last of a plugin's
// stderr, for the error that reports its crash.
type syncTail struct {
	mu sync.Mutex
	t  *proc.Tail
}

func newSyncTail() *syncTail { return &syncTail{t: proc.NewTail(2000)} }

func (t *syncTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.t.Write(p)
}

func (t *syncTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.t.String()
}

// maxLogLine bounds a buffered line; a longer one is logged in pieces.
const maxLogLine = 64 << 10

// logWriter turns a plugin's output stream into records of the host's
// logger, one per line. It is ours rather than go-plugin's because
// go-plugin v1.8.0 parses JSON lines with unchecked type assertions
// ("@message" that is not a string panics its goroutine and the host).
// Anything is accepted here: hclog JSON lines with any value types, and
// plain text.
type logWriter struct {
	ctx    context.Context
	log    *slog.Logger
	plugin string
	stream string
	tail   *syncTail

	mu      sync.Mutex
	buf     []byte
	inPanic bool
}

func newLogWriter(ctx context.Context, log *slog.Logger, plugin, stream string, tail *syncTail) *logWriter {
	return &logWriter{ctx: ctx, log: log, plugin: plugin, stream: stream, tail: tail}
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tail != nil {
		_, _ = w.tail.Write(p)
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	for len(w.buf) > maxLogLine {
		w.line(w.buf[:maxLogLine])
		w.buf = w.buf[maxLogLine:]
	}
	w.buf = slices.Clip(w.buf)
	return len(p), nil
}

// Flush logs a last line that has no newline.
func (w *logWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(w.buf)
		w.buf = nil
	}
}

func (w *logWriter) line(b []byte) {
	b = bytes.TrimRight(b, "\r")
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	attrs := []slog.Attr{slog.String("plugin", w.plugin), slog.String("stream", w.stream)}
	if level, msg, extra, ok := parseJSONLine(b); ok {
		w.log.LogAttrs(w.ctx, level, msg, append(attrs, extra...)...)
		return
	}
	s := string(b)
	level := slog.LevelInfo
	switch {
	case strings.HasPrefix(s, "panic: "), strings.HasPrefix(s, "fatal error: "):
		w.inPanic = true
		level = slog.LevelError
	case w.inPanic:
		level = slog.LevelError
	default:
		level = plainLevel(s)
	}
	w.log.LogAttrs(w.ctx, level, s, attrs...)
}

func plainLevel(s string) slog.Level {
	switch {
	case strings.HasPrefix(s, "[ERROR]"):
		return slog.LevelError
	case strings.HasPrefix(s, "[WARN]"):
		return slog.LevelWarn
	case strings.HasPrefix(s, "[DEBUG]"), strings.HasPrefix(s, "[TRACE]"):
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

// parseJSONLine reads an hclog-style JSON object; any value of any type is
// accepted, and a non-string "@message" or "@level" is shown, not trusted.
func parseJSONLine(b []byte) (slog.Level, string, []slog.Attr, bool) {
	if len(b) == 0 || b[0] != '{' {
		return 0, "", nil, false
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || dec.More() {
		return 0, "", nil, false
	}
	msg, ok := m["@message"].(string)
	if !ok {
		if v, present := m["@message"]; present {
			msg = fmt.Sprint(v)
		} else {
			msg = string(b)
			m = nil
		}
	}
	level := slog.LevelInfo
	if l, ok := m["@level"].(string); ok {
		level = hclogLevel(l)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		switch k {
		case "@message", "@level", "@timestamp":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var attrs []slog.Attr
	for _, k := range keys {
		attrs = append(attrs, slog.Any(strings.TrimPrefix(k, "@"), m[k]))
	}
	return level, msg, attrs, true
}

func hclogLevel(l string) slog.Level {
	switch strings.ToLower(l) {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
