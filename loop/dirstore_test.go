package loop_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

// history returns n transitions of a plausible run: a run start, then tasks
// that each take one failed and one passing attempt.
func history(n int) []policy.Transition {
	ts := make([]policy.Transition, n)
	for i := range ts {
		ts[i] = transitionAt(i)
	}
	return ts
}

// transitionAt returns transition i of history.
func transitionAt(i int) policy.Transition {
	if i == 0 {
		return policy.Transition{Kind: policy.TransRunStarted, Time: t0, Run: "r1", Plan: "demo", PlanDigest: "sha256:x"}
	}
	task, step := (i-1)/6, (i-1)%6
	id := "T" + strconv.Itoa(task)
	at := t0.Add(time.Duration(task) * time.Second)
	switch step {
	case 0:
		return policy.Transition{Kind: policy.TransTaskStarted, Time: at, Phase: "p1", Task: id}
	case 1:
		return policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 1}
	case 2:
		return policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 1, Elapsed: time.Second,
			Tokens: 100, CostUSD: 0.25, Failure: &policy.Failure{Attempt: 1, Fingerprint: "fp-" + id, Class: "test"}}
	case 3:
		return policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 2}
	case 4:
		return policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 2, Elapsed: 2 * time.Second, Tokens: 50}
	}
	return policy.Transition{Kind: policy.TransTaskFinished, Time: at, Task: id, Status: policy.StatusDone}
}

// applied is the state a sequence of transitions yields in memory.
func applied(t testing.TB, ts []policy.Transition) *policy.RunState {
	t.Helper()
	st, err := policy.Replay(ts...)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func open(t testing.TB, dir string, opts *loop.DirOptions) *loop.DirStore {
	t.Helper()
	s, err := loop.OpenDir(dir, opts)
	if err != nil {
		t.Fatalf("OpenDir: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDirStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		n       int
		batch   int
		compact int64
	}{
		{"one transition", 1, 1, 0},
		{"no snapshot yet", 40, 1, 0},
		{"batched", 40, 7, 0},
		{"many snapshots", 400, 1, 512},
		{"snapshot at every commit", 50, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), loop.StateDir)
			ts := history(tc.n)
			s := open(t, dir, &loop.DirOptions{CompactBytes: tc.compact})
			for i := 0; i < len(ts); i += tc.batch {
				if err := s.Commit(ctx, ts[i:min(i+tc.batch, len(ts))]...); err != nil {
					t.Fatalf("Commit %d: %v", i, err)
				}
			}
			want := applied(t, ts)
			got, err := s.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Load before reopen (-want +got):\n%s", diff)
			}
			s.Close()
			if got, err = loop.ReadState(dir); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("ReadState (-want +got):\n%s", diff)
			}
			s2 := open(t, dir, nil)
			if got, err = s2.Load(ctx); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Load after reopen (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDirStoreNoState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, nil)
	if _, err := s.Load(context.Background()); !errors.Is(err, loop.ErrNoState) {
		t.Fatalf("Load of an empty store: %v, want ErrNoState", err)
	}
	if _, err := loop.ReadState(t.TempDir()); !errors.Is(err, loop.ErrNoState) {
		t.Fatalf("ReadState of an empty directory: %v, want ErrNoState", err)
	}
}

func TestDirStoreLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, nil)
	_, err := loop.OpenDir(dir, nil)
	if !errors.Is(err, loop.ErrLocked) {
		t.Fatalf("second OpenDir: %v, want ErrLocked", err)
	}
	want := fmt.Sprintf("loop: state directory in use by another loop: %s (process %d)", dir, os.Getpid())
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	s.Close()
	open(t, dir, nil) // free again once closed
}

func TestDirStoreRejectsInvalidTransition(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, nil)
	ts := history(3)
	if err := s.Commit(ctx, ts...); err != nil {
		t.Fatal(err)
	}
	// Attempt 5 out of sequence: rejected, nothing written, store still usable.
	bad := policy.Transition{Kind: policy.TransAttemptStarted, Time: t0, Task: "T0", Attempt: 5}
	err := s.Commit(ctx, bad)
	want := "loop: transition 4 (attempt.started): task T0: attempt 5 out of sequence (want 2)"
	if err == nil || err.Error() != want {
		t.Fatalf("Commit(bad) = %v, want %q", err, want)
	}
	next := history(4)[3]
	if err := s.Commit(ctx, next); err != nil {
		t.Fatalf("Commit after a rejected transition: %v", err)
	}
	// A batch rejected after its first transition records none of it, and
	// the store goes on.
	if err := s.Commit(ctx, history(5)[4], bad); err == nil {
		t.Fatal("Commit(batch with a bad transition) succeeded")
	}
	if st, err := s.Load(ctx); err != nil || st.Seq != 4 {
		t.Fatalf("after a rejected batch: seq %d, %v; want 4", st.Seq, err)
	}
	if err := s.Commit(ctx, history(5)[4]); err != nil {
		t.Fatalf("Commit after a rejected batch: %v", err)
	}
	s.Close()
	got, err := loop.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(applied(t, history(5)), got); diff != "" {
		t.Fatalf("state on disk (-want +got):\n%s", diff)
	}
}

func TestDirStoreCancelled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("budget spent")
	cancel(cause)
	if err := s.Commit(ctx, history(1)...); !errors.Is(err, cause) {
		t.Fatalf("Commit on a cancelled context: %v, want the cause", err)
	}
}

func TestDirStoreTornTail(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, nil)
	ts := history(10)
	if err := s.Commit(ctx, ts[:9]...); err != nil {
		t.Fatal(err)
	}
	s.Close()
	journal := filepath.Join(dir, loop.JournalFile)
	torn := `{"seq":10,"crc32c":12,"t":{"kind":"attem`
	appendFile(t, journal, torn)

	if got, err := loop.ReadState(dir); err != nil {
		t.Fatalf("ReadState with a torn tail: %v", err)
	} else if got.Seq != 9 {
		t.Fatalf("ReadState seq = %d, want 9", got.Seq)
	}
	s = open(t, dir, nil)
	if err := s.Commit(ctx, ts[9]); err != nil {
		t.Fatal(err)
	}
	s.Close()
	kept, err := os.ReadFile(filepath.Join(dir, "journal.torn"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(torn+"\n", string(kept)); diff != "" {
		t.Errorf("journal.torn (-want +got):\n%s", diff)
	}
	got, err := loop.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(applied(t, ts), got); diff != "" {
		t.Fatalf("state (-want +got):\n%s", diff)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestDirStoreBadState damages a state directory in each way and checks the
// error names the file and the problem, and that nothing is overwritten.
func TestDirStoreBadState(t *testing.T) {
	ctx := context.Background()
	const snapshotted = 30 // transitions in the snapshot; 5 more in the journal
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, dir string)
		want    string // message, with DIR for the directory
		wantErr error
	}{
		{
			name: "snapshot not JSON",
			damage: func(t *testing.T, dir string) {
				write(t, dir, "state.json", "{\"schema\":1,")
			},
			want:    "loop: state file DIR/state.json: does not decode: unexpected end of JSON input; it was left as it is (the previous generation is DIR/state.json.prev)",
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "snapshot of a newer schema",
			damage: func(t *testing.T, dir string) {
				write(t, dir, "state.json", `{"schema":2,"future":true}`)
			},
			want:    "loop: state file DIR/state.json: schema 2 is newer than this harnish reads (1); upgrade harnish; it was left as it is (the previous generation is DIR/state.json.prev)",
			wantErr: loop.ErrNewerState,
		},
		{
			name: "snapshot checksum mismatch",
			damage: func(t *testing.T, dir string) {
				edit(t, dir, "state.json", `"cycles":`, `"cycles":1`)
			},
			want:    "loop: state file DIR/state.json: checksum mismatch (recorded CRC, computed CRC); it was left as it is (the previous generation is DIR/state.json.prev)",
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "snapshot with an unknown field",
			damage: func(t *testing.T, dir string) {
				edit(t, dir, "state.json", `"generation"`, `"extra":1,"generation"`)
			},
			want:    `loop: state file DIR/state.json: does not decode: json: unknown field "extra"; it was left as it is (the previous generation is DIR/state.json.prev)`,
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "journal line checksum mismatch",
			damage: func(t *testing.T, dir string) {
				edit(t, dir, "journal.jsonl", `"attempt":2`, `"attempt":3`)
			},
			want:    "loop: state file DIR/journal.jsonl:5: checksum mismatch (recorded CRC, computed CRC); it was left as it is",
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "journal line garbled",
			damage: func(t *testing.T, dir string) {
				edit(t, dir, "journal.jsonl", `{"seq":33`, `{"seq":33x`)
			},
			want:    "loop: state file DIR/journal.jsonl:3: does not decode: invalid character 'x' after object key:value pair; it was left as it is",
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "journal with a gap",
			damage: func(t *testing.T, dir string) {
				drop(t, dir, "journal.jsonl", 2)
			},
			want:    "loop: state file DIR/journal.jsonl:2: sequence jumps from 31 to 33: transitions are missing; it was left as it is",
			wantErr: loop.ErrCorruptState,
		},
		{
			name: "previous journal cut short",
			damage: func(t *testing.T, dir string) {
				if err := os.Truncate(filepath.Join(dir, "journal.prev.jsonl"), 40); err != nil {
					t.Fatal(err)
				}
			},
			want:    "loop: state file DIR/journal.prev.jsonl:1: incomplete last line; it was left as it is",
			wantErr: loop.ErrCorruptState,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), loop.StateDir)
			s := open(t, dir, nil)
			ts := history(snapshotted + 5)
			// Two snapshots (so a .prev exists), then five journal lines.
			if err := s.Commit(ctx, ts[:10]...); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s = open(t, dir, &loop.DirOptions{CompactBytes: 1})
			if err := s.Commit(ctx, ts[10:20]...); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, ts[20:snapshotted]...); err != nil {
				t.Fatal(err)
			}
			s.Close()
			s = open(t, dir, nil)
			for _, tr := range ts[snapshotted:] {
				if err := s.Commit(ctx, tr); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()

			tc.damage(t, dir)
			before := snapshotDir(t, dir)
			for _, load := range []func() error{
				func() error { _, err := loop.ReadState(dir); return err },
				func() error {
					s, err := loop.OpenDir(dir, nil)
					if err == nil {
						s.Close()
					}
					return err
				},
			} {
				err := load()
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("error %v, want %v", err, tc.wantErr)
				}
				var se *loop.StateError
				if !errors.As(err, &se) {
					t.Fatalf("error %T, want *loop.StateError", err)
				}
				got := crcPattern(strings.ReplaceAll(err.Error(), dir, "DIR"))
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(before, snapshotDir(t, dir)); diff != "" {
				t.Errorf("state directory changed (-before +after):\n%s", diff)
			}
		})
	}
}

func crcPattern(s string) string {
	for _, word := range []string{"recorded ", "computed "} {
		for i := strings.Index(s, word); i >= 0; {
			j := i + len(word)
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			s = s[:j] + "CRC" + s[k:]
			next := strings.Index(s[j:], word)
			if next < 0 {
				break
			}
			i = j + next
		}
	}
	return s
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, dir, name, old, new string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q:\n%s", name, old, b)
	}
	write(t, dir, name, strings.Replace(string(b), old, new, 1))
}

func drop(t *testing.T, dir, name string, line int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	write(t, dir, name, strings.Join(append(lines[:line-1], lines[line:]...), ""))
}

// snapshotDir returns the contents of every file in dir but the lock.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if e.Name() == "lock" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// TestDirStorePrevRestores shows the previous generation is usable: moving
// state.json.prev over a damaged state.json loads the same state.
func TestDirStorePrevRestores(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	s := open(t, dir, &loop.DirOptions{CompactBytes: 2000})
	ts := history(120)
	for _, tr := range ts {
		if err := s.Commit(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	write(t, dir, "state.json", "garbage")
	if err := os.Rename(filepath.Join(dir, "state.json.prev"), filepath.Join(dir, "state.json")); err != nil {
		t.Fatal(err)
	}
	got, err := loop.ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(applied(t, ts), got); diff != "" {
		t.Fatalf("state from the previous generation (-want +got):\n%s", diff)
	}
}
