package loop

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harnish/harnish/loop/policy"
)

// asideRun fills a state directory with a finished run that has every file
// SetAside moves: a snapshot and its previous generation, both journals, a
// torn tail, the kept plan and its decoded copy, transcripts; and the files
// it leaves: the experience store and the records.
func asideRun(t *testing.T, dir string) *policy.RunState {
	t.Helper()
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	s, err := OpenDir(dir, &DirOptions{CompactBytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	ts := []policy.Transition{{Kind: policy.TransRunStarted, Time: at, Run: "20261203-090000", Plan: "demo", PlanDigest: "sha256:x"}}
	for _, id := range []string{"T1", "T2", "T3"} {
		ts = append(ts,
			policy.Transition{Kind: policy.TransTaskStarted, Time: at, Phase: "p1", Task: id},
			policy.Transition{Kind: policy.TransAttemptStarted, Time: at, Task: id, Attempt: 1},
			policy.Transition{Kind: policy.TransAttemptFinished, Time: at, Task: id, Attempt: 1, Elapsed: time.Second, Tokens: 10},
			policy.Transition{Kind: policy.TransTaskFinished, Time: at, Task: id, Status: policy.StatusDone})
	}
	for _, tr := range ts {
		if err := s.Commit(t.Context(), tr); err != nil {
			t.Fatal(err)
		}
	}
	st, _ := s.Load(t.Context())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"plan.yaml": "version: 1\n", keptPlanCache: "{}", tornFile: "{\"seq\":\n",
		"transcripts/T1-1.jsonl": "{}\n", "harnish-assets.jsonl": "{}\n", "handoffs/T1.json": "{}",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{SnapshotFile, SnapshotFile + prevSuffix, prevJournal} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("the run should have %s: %v", name, err)
		}
	}
	return st
}

func stateJSON(t *testing.T, st *policy.RunState) string {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetAside(t *testing.T) {
	dir := t.TempDir()
	want := stateJSON(t, asideRun(t, dir))
	s, err := OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dest, err := s.SetAside()
	if err != nil {
		t.Fatal(err)
	}
	if wantDest := filepath.Join(dir, RunsDir, "20261203-090000"); dest != wantDest {
		t.Errorf("SetAside went to %s, want %s", dest, wantDest)
	}
	if _, err := ReadState(dir); !errors.Is(err, ErrNoState) {
		t.Errorf("after SetAside the directory reads as %v, want no state", err)
	}
	if _, err := s.Load(t.Context()); !errors.Is(err, ErrNoState) {
		t.Errorf("after SetAside the store loads %v, want no state", err)
	}
	got, err := ReadState(dest)
	if err != nil {
		t.Fatal(err)
	}
	if g := stateJSON(t, got); g != want {
		t.Errorf("the run set aside reads as\n%s\nwant\n%s", g, want)
	}
	for _, name := range []string{"plan.yaml", keptPlanCache, tornFile, "transcripts/T1-1.jsonl"} {
		if _, err := os.Stat(filepath.Join(dest, name)); err != nil {
			t.Errorf("%s did not go with the run: %v", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s stayed in the state directory", name)
		}
	}
	for _, name := range []string{"harnish-assets.jsonl", "handoffs/T1.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s, shared between runs, should stay: %v", name, err)
		}
	}
	// The store takes the next run at once.
	next := policy.Transition{Kind: policy.TransRunStarted, Time: time.Now(), Run: "20261203-090000", Plan: "again", PlanDigest: "sha256:y"}
	if err := s.Commit(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetAside(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RunsDir, "20261203-090000-2", SnapshotFile)); err != nil {
		t.Errorf("a second run of the same ID should go beside the first: %v", err)
	}
}

// TestSetAsideCrash cuts SetAside off before each of its moves, as a crash
// would: the directory then reads as the whole run or as none, and the
// next SetAside finishes the move with nothing lost.
func TestSetAsideCrash(t *testing.T) {
	steps := []string{prevJournal, SnapshotFile + prevSuffix, tornFile, JournalFile, "plan.yaml", "plan.json", keptPlanCache, "transcripts", SnapshotFile}
	for _, at := range steps {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			want := stateJSON(t, asideRun(t, dir))
			crash := errors.New("crash")
			testHookSetAside = func(name string) error {
				if name == at {
					return crash
				}
				return nil
			}
			s, err := OpenDir(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.SetAside(); !errors.Is(err, crash) {
				t.Fatalf("SetAside = %v, want the crash", err)
			}
			testHookSetAside = func(string) error { return nil }
			s.Close()
			st, err := ReadState(dir)
			if err != nil {
				t.Fatalf("after a crash before %s the directory reads as %v, want the whole run", at, err)
			}
			if g := stateJSON(t, st); g != want {
				t.Fatalf("after a crash before %s the run reads as\n%s\nwant\n%s", at, g, want)
			}
			s, err = OpenDir(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			dest, err := s.SetAside()
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ReadState(dest); err != nil || stateJSON(t, got) != want {
				t.Fatalf("the finished move reads as %v, %v", got, err)
			}
			for _, name := range []string{"plan.yaml", keptPlanCache, tornFile, "transcripts/T1-1.jsonl"} {
				if _, err := os.Stat(filepath.Join(dest, name)); err != nil {
					t.Errorf("%s is not in the run set aside: %v", name, err)
				}
			}
			if filepath.Base(dest) != "20261203-090000" {
				t.Errorf("the finished move went to %s, not to the directory the cut-off one began", dest)
			}
		})
	}
}

func TestMoveIntoMerges(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	for _, p := range []string{"src/a", "src/sub/b", "dst/c", "dst/sub/d"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644)
	}
	if err := moveInto(src, dst); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "sub/b", "c", "sub/d"} {
		if _, err := os.Stat(filepath.Join(dst, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(src); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("src is still there: %v", err)
	}
	if err := moveInto(filepath.Join(dir, "none"), filepath.Join(dir, "x")); err != nil {
		t.Errorf("moving what does not exist: %v", err)
	}
}
