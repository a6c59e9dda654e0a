package transcript_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/transcript"
)

var header = transcript.Header{Agent: "codex", Task: "T1", Attempt: 2, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

const headerLine = `{"harnish":"attempt","agent":"codex","task":"T1","attempt":2,"time":"2026-01-02T03:04:05Z"}`

func TestWriter(t *testing.T) {
	code := 1
	tests := []struct {
		name   string
		writes []string
		max    int64
		end    transcript.End
		want   []string // after the header
	}{
		{"json lines as they are", []string{`{"a":1}` + "\n" + `{"b"`, `:2}` + "\n"}, 0, transcript.End{ExitCode: &code, Stderr: "boom\n"},
			[]string{`{"a":1}`, `{"b":2}`, `{"harnish":"exit","exit_code":1,"stderr":"boom\n"}`}},
		{"text wrapped, blank lines dropped, CRLF", []string{"plain text\r\n\n", "  \n"}, 0, transcript.End{},
			[]string{`{"harnish":"stdout","line":"plain text"}`, `{"harnish":"exit"}`}},
		{"a last line with no newline", []string{`{"a":1}`}, 0, transcript.End{Err: "killed"},
			[]string{`{"a":1}`, `{"harnish":"exit","error":"killed"}`}},
		{"past the bound, whole lines dropped and counted", []string{`{"a":1}` + "\n", `{"b":"long line"}` + "\n", `{"c":3}` + "\n"}, 16, transcript.End{},
			[]string{`{"a":1}`, `{"harnish":"truncated","dropped_bytes":26,"max_bytes":16}`, `{"harnish":"exit"}`}},
		{"a line longer than the bound", []string{strings.Repeat("x", 40), strings.Repeat("y", 40) + "\n" + `{"z":1}` + "\n"}, 32, transcript.End{},
			[]string{`{"harnish":"truncated","dropped_bytes":89,"max_bytes":32}`, `{"harnish":"exit"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "T1-2.jsonl")
			w, err := transcript.Create(path, header, tt.max)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write: %d, %v", n, err)
				}
			}
			if err := w.Close(tt.end); err != nil {
				t.Fatal(err)
			}
			got := lines(t, path)
			if diff := cmp.Diff(append([]string{headerLine}, tt.want...), got); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

// TestWriterCutOff: a transcript whose attempt never ended (harnish was
// killed) holds whole JSON lines up to the last one written.
func TestWriterCutOff(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T1-1.jsonl")
	w, err := transcript.Create(path, header, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"a":1}` + "\n" + `{"half":`)) // never closed
	if diff := cmp.Diff([]string{headerLine, `{"a":1}`}, lines(t, path)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if !json.Valid(sc.Bytes()) {
			t.Errorf("line %d is not JSON: %q", len(out)+1, sc.Text())
		}
		out = append(out, sc.Text())
	}
	return out
}

// FuzzWriter: whatever the stream, split however, the transcript is whole
// JSON lines, within the bound, and ends with the exit line.
func FuzzWriter(f *testing.F) {
	f.Add([]byte("{\"a\":1}\nplain\r\n\n{\"b\""), uint8(3), int64(0))
	f.Add([]byte("\x00\xff\"\\\n{}\n[1,2]\n"), uint8(1), int64(8))
	f.Fuzz(func(t *testing.T, stream []byte, split uint8, max int64) {
		if max < 0 || max > 1<<16 {
			max = 0
		}
		path := filepath.Join(t.TempDir(), "t.jsonl")
		w, err := transcript.Create(path, header, max)
		if err != nil {
			t.Fatal(err)
		}
		step := int(split)%7 + 1
		for i := 0; i < len(stream); i += step {
			w.Write(stream[i:min(len(stream), i+step)])
		}
		w.Close(transcript.End{Stderr: string(stream)})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ls := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		for i, l := range ls {
			if !json.Valid([]byte(l)) {
				t.Fatalf("line %d is not JSON: %q", i+1, l)
			}
		}
		if !strings.HasPrefix(ls[len(ls)-1], `{"harnish":"exit"`) {
			t.Errorf("last line %q", ls[len(ls)-1])
		}
		bound := max
		if bound == 0 {
			bound = transcript.MaxBytes
		}
		// The stream's share: all but the header, exit and truncated lines;
		// a wrapped line may grow by its quoting, at most 6 bytes a byte.
		if int64(len(data)) > 7*bound+int64(len(headerLine))+160+7*int64(len(stream)) {
			t.Errorf("transcript of %d bytes, bound %d", len(data), bound)
		}
	})
}
