package plugins

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLogWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"hclog json", []string{`{"@level":"debug","@message":"hi","@timestamp":"x","@module":"m","n":1}` + "\n"},
			[]string{`level=DEBUG msg=hi plugin=p stream=stderr module=m n=1`}},
		{"non-string message", []string{`{"@message": 42, "@level":"info"}` + "\n"},
			[]string{`level=INFO msg=42 plugin=p stream=stderr`}},
		{"non-string level", []string{`{"@message": "m", "@level": ["error"]}` + "\n"},
			[]string{`level=INFO msg=m plugin=p stream=stderr`}},
		{"json without message", []string{`{"a": 1}` + "\n"},
			[]string{`level=INFO msg="{\"a\": 1}" plugin=p stream=stderr`}},
		{"two objects", []string{`{"@message":"a"} {"@message":"b"}` + "\n"},
			[]string{`level=INFO msg="{\"@message\":\"a\"} {\"@message\":\"b\"}" plugin=p stream=stderr`}},
		{"split writes and crlf", []string{"hel", "lo\r\nwor", "ld\n"},
			[]string{`level=INFO msg=hello plugin=p stream=stderr`, `level=INFO msg=world plugin=p stream=stderr`}},
		{"prefixes", []string{"[ERROR] e\n[WARN] w\n[DEBUG] d\n\n"}, []string{
			`level=ERROR msg="[ERROR] e" plugin=p stream=stderr`,
			`level=WARN msg="[WARN] w" plugin=p stream=stderr`,
			`level=DEBUG msg="[DEBUG] d" plugin=p stream=stderr`,
		}},
		{"panic", []string{"panic: boom\n\ngoroutine 1 [running]:\n"}, []string{
			`level=ERROR msg="panic: boom" plugin=p stream=stderr`,
			`level=ERROR msg="goroutine 1 [running]:" plugin=p stream=stderr`,
		}},
		{"unterminated", []string{"last words"}, []string{`level=INFO msg="last words" plugin=p stream=stderr`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
				Level: slog.LevelDebug,
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey {
						return slog.Attr{}
					}
					return a
				},
			}))
			tail := newSyncTail()
			w := newLogWriter(context.Background(), log, "p", "stderr", tail)
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			w.Flush()
			got := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if want := strings.Join(tt.writes, ""); !strings.HasSuffix(want, tail.String()) || tail.String() == "" {
				t.Errorf("tail %q, want the end of %q", tail.String(), want)
			}
		})
	}
}

func TestLogWriterLongLine(t *testing.T) {
	var n int
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) { n++; return len(p), nil }), nil))
	w := newLogWriter(context.Background(), log, "p", "stderr", nil)
	_, _ = w.Write(bytes.Repeat([]byte("x"), 3*maxLogLine+1))
	if n != 3 || len(w.buf) != 1 {
		t.Errorf("%d records, %d bytes buffered; want 3 and 1", n, len(w.buf))
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
