package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/schema"
)

// StateDir is the directory, in the working tree, that holds a run's state;
// see [schema.StateDir].
const StateDir = schema.StateDir

// The files of a state directory.
const (
	// SnapshotFile is the state file of record: the whole state as of a
	// sequence number, checksummed.
	SnapshotFile = "state.json"
	// JournalFile holds the transitions after the snapshot, one per line.
	JournalFile = "journal.jsonl"

	prevSuffix  = ".prev"
	prevJournal = "journal.prev.jsonl"
	tornFile    = "journal.torn"
	lockFile    = "lock"
)

// stateSchema is the schema this package writes and reads.
const stateSchema = 1

// minCompactBytes is the smallest journal worth folding into a snapshot.
const minCompactBytes = 64 << 10

// castagnoli is the CRC-32C table, made at first use rather than at the
// start of every program that links loop (the agents' hook among them).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// DirOptions configures [OpenDir]. The zero value is ready to use.
type DirOptions struct {
	// Logger receives warnings, such as a torn journal tail set aside at
	// open. Nil means silence.
	Logger *slog.Logger
	// CompactBytes is the journal size at which the store writes a new
	// snapshot and starts an empty journal. Zero means the size of the last
	// snapshot, and at least 64 KiB: a snapshot costs O(plan) but comes only
	// after O(plan) bytes of journal, so each transition costs O(1) amortized.
	CompactBytes int64
}

// DirStore is the on-disk [Store]: an append-only journal of transitions
// (journal.jsonl, one checksummed line each, fsync'd before Commit returns)
// and a snapshot (state.json) written crash-safely whenever the journal has
// grown as large as the snapshot. The previous snapshot and journal are kept
// as state.json.prev and journal.prev.jsonl. A lock file keeps a second loop
// out while the store is open.
type DirStore struct {
	dir        string
	log        *slog.Logger
	compactAt  int64 // fixed threshold, or 0 for "as large as the snapshot"
	lock       *fsx.Lock
	journal    *os.File
	jsize      int64
	snapSize   int64
	generation uint64
	state      *policy.RunState
	buf        []byte
	err        error // sticky: the store's disk state is unknown after it
	closed     bool
}

var _ Store = (*DirStore)(nil)

// OpenDir opens the state directory dir (typically <worktree>/.harnish),
// creating it if needed, locks it, and loads what it holds. A state that
// does not decode, has a newer schema or fails a checksum is an error
// (a *StateError) and nothing is written. A torn last line of the journal,
// a write cut off by a crash before it was acknowledged, is moved to
// journal.torn and reported to the logger.
func OpenDir(dir string, opts *DirOptions) (*DirStore, error) {
	if opts == nil {
		opts = &DirOptions{}
	}
	s := &DirStore{dir: dir, log: opts.Logger, compactAt: opts.CompactBytes}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("loop: %w", err)
	}
	lock, err := fsx.TryLock(filepath.Join(dir, lockFile))
	if err != nil {
		if held := (*fsx.HeldError)(nil); errors.As(err, &held) && held.PID != 0 {
			return nil, fmt.Errorf("%w: %s (process %d)", ErrLocked, dir, held.PID)
		}
		if errors.Is(err, fsx.ErrLocked) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, dir)
		}
		return nil, fmt.Errorf("loop: lock %s: %w", dir, err)
	}
	s.lock = lock
	if err := s.open(); err != nil {
		lock.Unlock()
		return nil, err
	}
	return s, nil
}

func (s *DirStore) open() error {
	l, err := load(s.dir)
	if err != nil {
		return err
	}
	s.state, s.generation, s.snapSize, s.jsize = l.state, l.generation, l.snapSize, l.jsize
	path := filepath.Join(s.dir, JournalFile)
	if len(l.torn) > 0 {
		if err := s.setAsideTorn(path, l.torn); err != nil {
			return fmt.Errorf("loop: set aside the torn tail of %s: %w", path, err)
		}
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("loop: %w", err)
	}
	s.journal = f
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := fsx.SyncDir(s.dir); err != nil {
			f.Close()
			return fmt.Errorf("loop: %w", err)
		}
	}
	return nil
}

// setAsideTorn keeps the bytes of an unacknowledged write in journal.torn,
// then cuts them from the journal so the next append starts on a clean line.
func (s *DirStore) setAsideTorn(path string, torn []byte) error {
	tf, err := os.OpenFile(filepath.Join(s.dir, tornFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = tf.Write(append(torn, '\n'))
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Truncate(path, s.jsize); err != nil {
		return err
	}
	jf, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = jf.Sync()
	if cerr := jf.Close(); err == nil {
		err = cerr
	}
	s.log.Warn("loop: set aside a torn journal tail (a write cut off before it was acknowledged)",
		"file", path, "bytes", len(torn), "kept_in", filepath.Join(s.dir, tornFile))
	return err
}

// Load returns a copy of the state, or ErrNoState before the first run.started.
func (s *DirStore) Load(ctx context.Context) (*policy.RunState, error) {
	if s.closed {
		return nil, ErrStoreClosed
	}
	if s.state.Run == "" {
		return nil, fmt.Errorf("%w in %s", ErrNoState, s.dir)
	}
	return s.state.Clone(), nil
}

// Commit applies ts, appends them to the journal in one write and fsyncs it.
// It returns once they are durable. See [Store.Commit].
func (s *DirStore) Commit(ctx context.Context, ts ...policy.Transition) error {
	switch {
	case s.closed:
		return ErrStoreClosed
	case s.err != nil:
		return fmt.Errorf("%w: %w", ErrStoreFailed, s.err)
	case len(ts) == 0:
		return nil
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	// The batch is checked whole first: a rejected one records nothing.
	if err := s.state.Check(ts...); err != nil {
		return err
	}
	s.buf = s.buf[:0]
	for _, t := range ts {
		body, err := json.Marshal(t)
		if err != nil {
			s.err = fmt.Errorf("encode transition: %w", err) // the state is ahead of the journal
			return fmt.Errorf("loop: %w", s.err)
		}
		if err := s.state.Apply(t); err != nil {
			s.err = err // Check let through what Apply refuses: a bug
			return fmt.Errorf("loop: %w", err)
		}
		s.buf = appendLine(s.buf, s.state.Seq, body)
	}
	n, err := s.journal.Write(s.buf)
	if err == nil {
		err = s.journal.Sync()
	}
	if err != nil {
		s.err = fmt.Errorf("append to %s: %w", filepath.Join(s.dir, JournalFile), err)
		return fmt.Errorf("loop: %w", s.err)
	}
	s.jsize += int64(n)
	if s.jsize >= s.threshold() {
		if err := s.compact(); err != nil {
			// The transitions are durable; only the snapshot failed.
			s.log.Warn("loop: state snapshot failed", "dir", s.dir, "err", err)
		}
	}
	return nil
}

func (s *DirStore) threshold() int64 {
	if s.compactAt > 0 {
		return s.compactAt
	}
	return max(minCompactBytes, s.snapSize)
}

// appendLine writes one journal line: {"seq":N,"crc32c":C,"t":{...}}.
func appendLine(buf []byte, seq uint64, body []byte) []byte {
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendUint(buf, seq, 10)
	buf = append(buf, `,"crc32c":`...)
	buf = strconv.AppendUint(buf, uint64(crc32.Checksum(body, castagnoli())), 10)
	buf = append(buf, `,"t":`...)
	buf = append(buf, body...)
	return append(buf, "}\n"...)
}

// compact writes a snapshot of the current state and starts a new journal.
// Every step leaves a loadable directory behind: state.json always exists
// once written, and a journal line is skipped when the snapshot covers it.
func (s *DirStore) compact() error {
	body, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	gen := s.generation + 1
	data := encodeSnapshot(gen, s.state.Seq, body)
	snap := filepath.Join(s.dir, SnapshotFile)
	tmp := snap + ".tmp"
	if err := writeSynced(tmp, data); err != nil {
		return err
	}
	if err := keepPrevious(snap); err != nil {
		return err
	}
	if err := os.Rename(tmp, snap); err != nil {
		return err
	}
	// From here the open journal is about to move: a failure leaves the
	// store unable to append, so it is sticky.
	journal := filepath.Join(s.dir, JournalFile)
	if err := os.Rename(journal, filepath.Join(s.dir, prevJournal)); err != nil {
		s.err = fmt.Errorf("rotate %s: %w", journal, err)
		return s.err
	}
	s.journal.Close()
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		s.journal = f
		err = fsx.SyncDir(s.dir)
	}
	if err != nil {
		s.err = fmt.Errorf("start a new %s: %w", journal, err)
		return s.err
	}
	s.generation, s.snapSize, s.jsize = gen, int64(len(data)), 0
	return nil
}

// keepPrevious makes the current snapshot, if any, the previous generation
// without a moment in which state.json is missing.
func keepPrevious(snap string) error {
	prev, tmp := snap+prevSuffix, snap+prevSuffix+".tmp"
	os.Remove(tmp)
	err := os.Link(snap, tmp)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // first snapshot
	case err != nil:
		// No hard links on this file system: copy instead.
		data, rerr := os.ReadFile(snap)
		if rerr != nil {
			return rerr
		}
		if err := writeSynced(tmp, data); err != nil {
			return err
		}
	}
	return os.Rename(tmp, prev)
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the journal and releases the lock. It is safe to call twice.
func (s *DirStore) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.journal != nil { // nil after a SetAside that failed
		err = s.journal.Close()
	}
	if uerr := s.lock.Unlock(); err == nil {
		err = uerr
	}
	return err
}

// ReadState loads the state of dir without locking it, for a reader such as
// `harnish status` while a loop runs. A torn journal tail is ignored: it is a
// write in progress. The error wraps ErrNoState when dir holds no run.
func ReadState(dir string) (*policy.RunState, error) {
	l, err := load(dir)
	// A snapshot written while we read can show us files of two
	// generations; a second look sees one.
	for try := 0; try < 2 && errors.Is(err, ErrCorruptState); try++ {
		l, err = load(dir)
	}
	if err != nil {
		return nil, err
	}
	if l.state.Run == "" {
		return nil, fmt.Errorf("%w in %s", ErrNoState, dir)
	}
	return l.state, nil
}

// loaded is what a state directory holds.
type loaded struct {
	state      *policy.RunState
	generation uint64
	snapSize   int64
	jsize      int64  // bytes of journal.jsonl up to its last complete line
	torn       []byte // what follows the last complete line
}

func load(dir string) (*loaded, error) {
	l := &loaded{state: &policy.RunState{}}
	snap := filepath.Join(dir, SnapshotFile)
	data, err := os.ReadFile(snap)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("loop: %w", err)
	default:
		gen, st, err := decodeSnapshot(snap, data)
		if err != nil {
			if _, perr := os.Stat(snap + prevSuffix); perr == nil {
				err.Prev = snap + prevSuffix
			}
			return nil, err
		}
		l.state, l.generation, l.snapSize = st, gen, int64(len(data))
	}
	for _, name := range []string{prevJournal, JournalFile} {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("loop: %w", err)
		}
		valid, err := replay(path, data, l.state, name == JournalFile)
		if err != nil {
			return nil, err
		}
		if name == JournalFile {
			l.jsize, l.torn = int64(valid), data[valid:]
		}
	}
	return l, nil
}

// replay applies the journal lines of data that the state does not yet
// hold. It returns the length of data up to its last complete line; an
// incomplete last line is allowed only where tornOK.
func replay(path string, data []byte, st *policy.RunState, tornOK bool) (int, error) {
	corrupt := func(line int, format string, args ...any) error {
		return &StateError{File: path, Line: line, Problem: fmt.Sprintf(format, args...), Err: ErrCorruptState}
	}
	off := 0
	for line := 1; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			if tornOK {
				return off, nil
			}
			return 0, corrupt(line, "incomplete last line")
		}
		if seq, ok := leadingSeq(data[off : off+end]); ok && seq <= st.Seq {
			off += end + 1
			continue // the snapshot holds it: no need to decode what is not applied
		}
		seq, t, err := decodeLine(data[off : off+end])
		if err != nil {
			return 0, corrupt(line, "%v", err)
		}
		off += end + 1
		if seq <= st.Seq {
			continue // the snapshot holds it
		}
		if seq != st.Seq+1 {
			return 0, corrupt(line, "sequence jumps from %d to %d: transitions are missing", st.Seq, seq)
		}
		if err := st.Apply(t); err != nil {
			return 0, corrupt(line, "transition %d does not apply: %v", seq, err)
		}
	}
	return off, nil
}

// leadingSeq reads the sequence number of a journal line as appendLine
// writes it, {"seq":N,...; ok is false for a line in any other form, which
// is then decoded in full.
func leadingSeq(b []byte) (uint64, bool) {
	const prefix = `{"seq":`
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return 0, false
	}
	b = b[len(prefix):]
	end := bytes.IndexByte(b, ',')
	if end <= 0 || end > 20 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:end]), 10, 64)
	return n, err == nil
}

type journalLine struct {
	Seq    uint64          `json:"seq"`
	CRC32C *uint32         `json:"crc32c"`
	T      json.RawMessage `json:"t"`
}

func decodeLine(b []byte) (uint64, policy.Transition, error) {
	return decodeJournalLine(b, decodeStrict)
}

// DecodeJournalLine decodes one line of a run's journal (without its
// newline), as DirStore writes it: {"seq":N,"crc32c":C,"t":{...}}, the
// checksum over t's bytes. It is for readers beside the loop, such as a
// status page: unlike the loop's own reading, fields a newer harnish adds
// are ignored, so an older reader shows what it knows.
func DecodeJournalLine(b []byte) (seq uint64, t policy.Transition, err error) {
	return decodeJournalLine(b, json.Unmarshal)
}

func decodeJournalLine(b []byte, decode func([]byte, any) error) (uint64, policy.Transition, error) {
	var jl journalLine
	if err := decode(b, &jl); err != nil {
		return 0, policy.Transition{}, fmt.Errorf("does not decode: %v", err)
	}
	if jl.Seq == 0 || jl.CRC32C == nil || len(jl.T) == 0 {
		return 0, policy.Transition{}, errors.New("missing seq, crc32c or t")
	}
	if sum := crc32.Checksum(jl.T, castagnoli()); sum != *jl.CRC32C {
		return 0, policy.Transition{}, fmt.Errorf("checksum mismatch (recorded %d, computed %d)", *jl.CRC32C, sum)
	}
	var t policy.Transition
	if err := decode(jl.T, &t); err != nil {
		return 0, policy.Transition{}, fmt.Errorf("transition does not decode: %v", err)
	}
	return jl.Seq, t, nil
}

type snapshotFile struct {
	Schema     int             `json:"schema"`
	Generation uint64          `json:"generation"`
	Seq        uint64          `json:"seq"`
	CRC32C     *uint32         `json:"crc32c"`
	State      json.RawMessage `json:"state"`
}

func encodeSnapshot(gen, seq uint64, state []byte) []byte {
	b := fmt.Appendf(nil, `{"schema":%d,"generation":%d,"seq":%d,"crc32c":%d,"state":`,
		stateSchema, gen, seq, crc32.Checksum(state, castagnoli()))
	b = append(b, state...)
	return append(b, "}\n"...)
}

func decodeSnapshot(path string, data []byte) (uint64, *policy.RunState, *StateError) {
	bad := func(format string, args ...any) *StateError {
		return &StateError{File: path, Problem: fmt.Sprintf(format, args...), Err: ErrCorruptState}
	}
	var head struct {
		Schema int `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return 0, nil, bad("does not decode: %v", err)
	}
	switch {
	case head.Schema > stateSchema:
		return 0, nil, &StateError{File: path, Err: ErrNewerState,
			Problem: fmt.Sprintf("schema %d is newer than this harnish reads (%d); upgrade harnish", head.Schema, stateSchema)}
	case head.Schema < 1:
		return 0, nil, bad("schema %d is not a harnish state schema", head.Schema)
	}
	var f snapshotFile
	if err := decodeStrict(data, &f); err != nil {
		return 0, nil, bad("does not decode: %v", err)
	}
	if f.CRC32C == nil || len(f.State) == 0 {
		return 0, nil, bad("missing crc32c or state")
	}
	if sum := crc32.Checksum(f.State, castagnoli()); sum != *f.CRC32C {
		return 0, nil, bad("checksum mismatch (recorded %d, computed %d)", *f.CRC32C, sum)
	}
	st := &policy.RunState{}
	if err := decodeStrict(f.State, st); err != nil {
		return 0, nil, bad("state does not decode: %v", err)
	}
	if st.Seq != f.Seq {
		return 0, nil, bad("state is at transition %d but the file says %d", st.Seq, f.Seq)
	}
	if st.Tasks == nil {
		st.Tasks = map[string]*policy.TaskState{}
	}
	for id, ts := range st.Tasks {
		if ts == nil {
			return 0, nil, bad("task %q has no record", id)
		}
	}
	return f.Generation, st, nil
}

// decodeStrict decodes one JSON value, refusing unknown fields and trailing data.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the value")
	}
	return nil
}
