package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

// Change is what a followed run did since the previous Change.
type Change struct {
	// State, when set, is the whole state as of now: on the first Change,
	// and again whenever the follower lost its place in the journal (a
	// compaction it did not see, a new run in the directory). The receiver
	// owns it.
	State *policy.RunState
	// Transitions were committed after State (or after the previous
	// Change), in order; they apply to it with [policy.RunState.Apply].
	Transitions []policy.Transition
}

// DefaultPollInterval is how often [Follow] looks at the journal's size
// when FollowOptions leaves it zero.
const DefaultPollInterval = 100 * time.Millisecond

// maxJournalLine bounds one journal line the follower holds in memory.
const maxJournalLine = 64 << 20

// FollowOptions configure [Follow]. The zero value is ready to use.
type FollowOptions struct {
	// PollInterval is how often the journal file's size is looked at (one
	// stat, and a read of what was appended). Zero: DefaultPollInterval.
	PollInterval time.Duration
}

// Follow yields the run state recorded in the state directory dir and then
// every transition a loop commits to it, as its journal grows: it reads what
// was appended, never the whole state again, but after a compaction it
// missed. It waits for a run to start when dir holds none. The sequence ends
// when ctx ends (with no error), or at an error: a state or journal line
// that does not decode names its file and line.
//
// A reader needs no lock: Follow works while a loop runs in another process.
func Follow(ctx context.Context, dir string, opts *FollowOptions) iter.Seq2[Change, error] {
	every := DefaultPollInterval
	if opts != nil && opts.PollInterval > 0 {
		every = opts.PollInterval
	}
	return func(yield func(Change, error) bool) {
		j := &journal{dir: dir}
		defer j.close()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			c, err := j.poll()
			if err != nil {
				yield(Change{}, err)
				return
			}
			if (c.State != nil || len(c.Transitions) > 0) && !yield(c, nil) {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}
}

// journal reads a state directory's journal from where it last stopped.
type journal struct {
	dir     string
	started bool     // a state has been read
	seq     uint64   // the sequence number of the last transition handed on
	f       *os.File // journal.jsonl as it was opened; after a compaction, the old one
	off     int64    // bytes of f handed on or skipped, up to a line's end
	line    int      // lines of f up to off
	partial []byte   // what follows off, up to the file's end
	// fresh is set on a journal opened after a compaction: its first line
	// must follow the state, or the directory holds another run now.
	fresh bool
}

func (j *journal) close() {
	if j.f != nil {
		j.f.Close()
	}
}

// restart closes the journal, so the next poll reads the state afresh.
func (j *journal) restart() {
	j.close()
	*j = journal{dir: j.dir}
}

// poll returns what was committed since the last call.
func (j *journal) poll() (Change, error) {
	if !j.started {
		return j.reload()
	}
	var c Change
	for {
		ts, reload, err := j.drain()
		if err != nil {
			return Change{}, err
		}
		if reload {
			return j.reload()
		}
		c.Transitions = append(c.Transitions, ts...)
		// A compaction renames journal.jsonl away and starts a new one: once
		// the old one is read to its end, go on in the new one.
		moved, err := j.moved()
		if err != nil || !moved {
			return c, err
		}
		if ts, reload, err = j.drain(); err != nil { // what came between the last read and the rename
			return Change{}, err
		} else if reload {
			return j.reload()
		}
		c.Transitions = append(c.Transitions, ts...)
		if err := j.open(); err != nil {
			return Change{}, err
		}
		j.fresh = true
		if j.f == nil {
			return c, nil // not created yet: next time
		}
	}
}

// reload reads the whole state afresh and positions the reader at the end
// of the journal it came from.
func (j *journal) reload() (Change, error) {
	j.close()
	j.f = nil
	// The journal is opened first: what it gains while the state is read is
	// then read again and skipped by its sequence number, never missed.
	if err := j.open(); err != nil {
		return Change{}, err
	}
	st, err := loop.ReadState(j.dir)
	if errors.Is(err, loop.ErrNoState) {
		return Change{}, nil // no run yet
	}
	if err != nil {
		return Change{}, err
	}
	j.started, j.seq = true, st.Seq
	ts, reload, err := j.drain()
	if err != nil {
		return Change{}, err
	}
	if reload { // the journal moved on past a compaction while we read
		return j.reload()
	}
	return Change{State: st, Transitions: ts}, nil
}

// open opens journal.jsonl from its start; j.f stays nil when it does not exist.
func (j *journal) open() error {
	j.close()
	j.f, j.off, j.line, j.partial, j.fresh = nil, 0, 0, nil, false
	f, err := os.Open(filepath.Join(j.dir, loop.JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("web: %w", err)
	}
	j.f = f
	return nil
}

// moved reports whether journal.jsonl is no longer the file j.f reads.
func (j *journal) moved() (bool, error) {
	if j.f == nil {
		_, err := os.Stat(filepath.Join(j.dir, loop.JournalFile))
		return err == nil, nil
	}
	cur, err := j.f.Stat()
	if err != nil {
		return false, fmt.Errorf("web: %w", err)
	}
	now, err := os.Stat(filepath.Join(j.dir, loop.JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // between the rename and the new file: next time
	}
	if err != nil {
		return false, fmt.Errorf("web: %w", err)
	}
	return !os.SameFile(cur, now), nil
}

// drain reads what j.f gained and decodes its complete lines. reload says
// the reader lost its place: a line skips ahead of the state it holds.
func (j *journal) drain() (ts []policy.Transition, reload bool, err error) {
	if j.f == nil {
		return nil, false, nil
	}
	var buf [64 << 10]byte
	for {
		n, rerr := j.f.Read(buf[:])
		j.partial = append(j.partial, buf[:n]...)
		for {
			end := bytes.IndexByte(j.partial, '\n')
			if end < 0 {
				break
			}
			line := j.partial[:end]
			j.line++
			j.off += int64(end + 1)
			seq, t, err := loop.DecodeJournalLine(line)
			if err != nil {
				return nil, false, fmt.Errorf("web: %s:%d: %v", filepath.Join(j.dir, loop.JournalFile), j.line, err)
			}
			j.partial = j.partial[end+1:]
			fresh := j.fresh
			j.fresh = false
			switch {
			case seq <= j.seq && fresh:
				return nil, true, nil // a new run in the directory
			case seq <= j.seq:
				continue // the state holds it
			case seq != j.seq+1:
				return nil, true, nil
			}
			j.seq = seq
			ts = append(ts, t)
		}
		if len(j.partial) > maxJournalLine {
			return nil, false, fmt.Errorf("web: %s:%d: a line longer than %d bytes", filepath.Join(j.dir, loop.JournalFile), j.line+1, maxJournalLine)
		}
		// The unused front of partial is given back now and then.
		if cap(j.partial) > 1<<20 && len(j.partial) < cap(j.partial)/4 {
			j.partial = append([]byte(nil), j.partial...)
		}
		if rerr == io.EOF || n == 0 {
			return ts, false, nil
		}
		if rerr != nil {
			return nil, false, fmt.Errorf("web: %w", rerr)
		}
	}
}

// readSpend returns the spend of the transitions still in the state
// directory's journals (the current one and the one before the last
// compaction), for the chart's history: older ones are folded into the
// snapshot.
func readSpend(dir string) []spendStep {
	var steps []spendStep
	for _, name := range []string{"journal.prev.jsonl", loop.JournalFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		for line := range bytes.Lines(data) {
			if !bytes.HasSuffix(line, []byte("\n")) {
				break // a write in progress
			}
			seq, t, err := loop.DecodeJournalLine(line[:len(line)-1])
			if err != nil {
				break
			}
			if s, ok := spendOf(seq, t); ok {
				steps = append(steps, s)
			}
		}
	}
	return steps
}
