package loop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/transcript"
	"github.com/harnish/harnish/loop/policy"
)

// RunsDir is the directory of a state directory that holds the runs set
// aside by [DirStore.SetAside], one directory per run.
const RunsDir = "runs"

// SetAside moves the run the store holds, with its kept plan and
// transcripts, to runs/<run>/ in the state directory, and leaves the store
// empty and open, ready for a new run. What the state directory shares
// between runs stays: the experience store, the records (handoffs, audit
// logs, summary), the hooks' socket. It returns the directory the run went
// to, or an error wrapping ErrNoState when the store holds no run.
//
// A crash at any point leaves either the whole run where it was (a second
// SetAside finishes the move) or no run at all: the journals are first
// folded into one snapshot, which moves last, in one rename.
func (s *DirStore) SetAside() (string, error) {
	switch {
	case s.closed:
		return "", ErrStoreClosed
	case s.err != nil:
		return "", fmt.Errorf("%w: %w", ErrStoreFailed, s.err)
	case s.state.Run == "":
		return "", fmt.Errorf("%w in %s", ErrNoState, s.dir)
	}
	dest, err := s.asideDir()
	if err != nil {
		return "", err
	}
	if err := s.compact(); err != nil {
		return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
	}
	// The journal compact started is empty: the snapshot holds the run.
	if err := s.journal.Close(); err != nil {
		s.err = err
		return "", err
	}
	s.journal = nil
	s.err = errors.New("the run is being set aside") // until the store is empty again
	for _, name := range []string{prevJournal, SnapshotFile + prevSuffix, tornFile, JournalFile,
		"plan.yaml", "plan.json", keptPlanCache, filepath.Base(TranscriptsDir)} {
		if err := testHookSetAside(name); err != nil {
			return "", err
		}
		if err := moveInto(filepath.Join(s.dir, name), filepath.Join(dest, name)); err != nil {
			return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
		}
	}
	if err := fsx.SyncDir(dest); err != nil {
		return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
	}
	if err := testHookSetAside(SnapshotFile); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(s.dir, SnapshotFile), filepath.Join(dest, SnapshotFile)); err != nil {
		return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
	}
	if err := fsx.SyncDir(s.dir); err != nil {
		return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
	}
	s.state, s.generation, s.snapSize, s.jsize = &policy.RunState{}, 0, 0, 0
	if err := s.open(); err != nil {
		s.err = err
		return dest, err
	}
	s.err = nil
	return dest, nil
}

// testHookSetAside is called before each move of SetAside; a test cuts
// the move off there, as a crash would.
var testHookSetAside = func(name string) error { return nil }

// asideDir makes the directory the run goes to: runs/<run>, or, when a
// run of that ID was set aside before, runs/<run>-2 and so on. A
// directory without a snapshot is the remains of a move a crash cut off,
// and is taken up again.
func (s *DirStore) asideDir() (string, error) {
	base := filepath.Join(s.dir, RunsDir, transcript.SafeName(s.state.Run))
	for i := 1; i <= 1000; i++ {
		dest := base
		if i > 1 {
			dest += "-" + strconv.Itoa(i)
		}
		if _, err := os.Stat(filepath.Join(dest, SnapshotFile)); err == nil {
			continue
		}
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return "", fmt.Errorf("loop: set aside run %s: %w", s.state.Run, err)
		}
		return dest, nil
	}
	return "", fmt.Errorf("loop: set aside run %s: %s holds too many runs of that ID", s.state.Run, filepath.Join(s.dir, RunsDir))
}

// moveInto renames src to dst; a directory dst left by an earlier move
// takes src's entries one by one. A src that does not exist is no error.
func moveInto(src, dst string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if _, serr := os.Lstat(src); errors.Is(serr, fs.ErrNotExist) {
		return nil
	}
	info, serr := os.Lstat(src)
	dinfo, derr := os.Lstat(dst)
	if serr != nil || derr != nil || !info.IsDir() || !dinfo.IsDir() {
		return err
	}
	entries, rerr := os.ReadDir(src)
	if rerr != nil {
		return rerr
	}
	for _, e := range entries {
		if err := moveInto(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(src)
}
