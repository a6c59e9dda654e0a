package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/fsx"
)

// FileOptions configures [OpenFile]. A nil *FileOptions means the defaults.
type FileOptions struct {
	// Now returns the time stamped on records. Default: time.Now.
	Now func() time.Time
}

// FileStore is the [Store] of record: a JSONL file of records (see
// [Decoder]). A record of a slug already stored supersedes the earlier one;
// the file keeps both until Compress or Purge rewrites it.
//
// Every write holds an exclusive lock on PATH.lock, so stores in several
// goroutines and processes take turns. An append opens PATH anew
// (O_APPEND), writes its records in one write, fsyncs and closes, so records
// never interleave and an append after another store's rewrite lands in the
// new file. Compress and Purge rewrite crash-safely (a temporary file,
// fsync, rename over PATH, fsync of the directory): after a crash PATH holds
// either the old records or the new, never a mix. Before appending, and
// before each query, the store reads what others appended since; when PATH
// is no longer the file it has open (another store rewrote it), it reopens
// PATH and indexes it afresh. Its in-memory index (by slug, tag and type)
// thus stays current.
//
// What Compress folds and Purge removes goes to the archive file (see
// [FileStore.ArchivePath]), appended to and never rewritten.
//
// Rewriting PATH while another process has it open relies on POSIX rename;
// on Windows, Compress and Purge may fail while other stores hold the file.
//
// A FileStore is safe for concurrent use. Close it when done.
type FileStore struct {
	path    string
	archive string
	now     func() time.Time

	mu     sync.Mutex // guards everything below
	f      *os.File   // PATH as last opened, read-only
	offset int64      // bytes of f indexed
	lines  int        // lines of f indexed
	idx    index
}

// OpenFile opens the assets file at path, creating it and its directory if
// need be, and indexes its records. A record that does not decode, or a torn
// last line (no trailing newline, as a crash mid-append leaves), is a
// [*CorruptError] naming the file and line; the file is left as it is.
//
// The loop and the harnish CLI open .harnish/assets.jsonl in the project.
// An engine history (harnish-assets.jsonl) is brought in once with
// [Import], which records each of its records into the store; the CLI's
// harnish assets import does that. (The engine's file also opens as is
// with OpenFile, but then it is the store, rewritten by Compress and Purge.)
func OpenFile(path string, opts *FileOptions) (*FileStore, error) {
	s := &FileStore{path: path, archive: archivePath(path), now: time.Now}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	s.f = f
	s.idx.init()
	if err := s.openIndex(); err != nil {
		s.f.Close()
		return nil, err
	}
	return s, nil
}

// openWait bounds how long OpenFile waits for the lock when the file ends in
// an unterminated line: an append in flight takes milliseconds.
const openWait = 30 * time.Second

// openIndex indexes the file as OpenFile opens it. Without the lock, an
// unterminated last line may be another store's append in flight; it is
// torn only if it is still there under the lock.
func (s *FileStore) openIndex() error {
	if err := s.catchUp(false); err != nil {
		return err
	}
	fi, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	if fi.Size() == s.offset {
		return nil
	}
	// OpenFile takes no context; this wait is bounded instead.
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	lock, err := fsx.LockContext(ctx, s.path+".lock")
	if err != nil {
		return fmt.Errorf("asset: lock %s: %w", s.path, err)
	}
	defer lock.Unlock()
	return s.catchUp(true)
}

// archivePath is path with ".archive.jsonl" in place of ".jsonl" (or
// appended, when path does not end in ".jsonl").
func archivePath(path string) string {
	return strings.TrimSuffix(path, ".jsonl") + ".archive.jsonl"
}

// ArchivePath returns the archive file: the store's path with
// ".archive.jsonl" in place of ".jsonl" (.harnish/assets.archive.jsonl).
// Compress appends the records it folds to it, marked "compressed": true
// and "compressed_into" the summary's slug; Purge appends the records it
// removes, marked "purged_at" the time. Its records are in the store's
// format, and it may be opened with [OpenFile] to look at them.
func (s *FileStore) ArchivePath() string { return s.archive }

// Close closes the file. The store is unusable afterwards.
func (s *FileStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	return nil
}

// catchUp indexes what was appended to the file since s.offset, first
// reopening it if another store replaced it. With complete, the file must
// end in '\n' (the caller holds the file lock, so no append is in flight);
// without, an unterminated tail waits for next time. The caller holds s.mu.
func (s *FileStore) catchUp(complete bool) error {
	if s.f == nil {
		return fmt.Errorf("asset: %s is closed", s.path)
	}
	fi, err := s.follow()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size < s.offset { // truncated behind our back: start over
		s.offset, s.lines = 0, 0
		s.idx.init()
	}
	if size == s.offset {
		return nil
	}
	buf := make([]byte, size-s.offset)
	if _, err := s.f.ReadAt(buf, s.offset); err != nil && err != io.EOF {
		return fmt.Errorf("asset: %w", err)
	}
	if len(buf) > 1<<20 {
		s.idx.grow(bytes.Count(buf, []byte{'\n'}))
	}
	n, lines, err := decodeLines(buf, s.path, s.lines+1, complete, s.idx.put)
	s.offset += int64(n)
	s.lines += lines
	return err
}

// follow returns the state of the open file, after reopening PATH and
// clearing the index if PATH is another file now: a rewrite renamed a new
// file over it. The open file keeps its inode alive, so os.SameFile cannot
// mistake a new file for it. The caller holds s.mu.
func (s *FileStore) follow() (os.FileInfo, error) {
	cur, err := os.Stat(s.path)
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	fi, err := s.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	if os.SameFile(cur, fi) {
		return fi, nil
	}
	if err := s.reopen(); err != nil {
		return nil, err
	}
	if fi, err = s.f.Stat(); err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	return fi, nil
}

// reopen opens PATH afresh, with an empty index. The caller holds s.mu.
func (s *FileStore) reopen() error {
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	s.f.Close()
	s.f = f
	s.offset, s.lines = 0, 0
	s.idx.init()
	return nil
}

// Record implements [Experience.Record]. A zero Slug is derived from the title
// with [Slugify], suffixed -2, -3, ... when taken.
func (s *FileStore) Record(ctx context.Context, a *Asset) error {
	return s.recordAll(ctx, []*Asset{a})
}

// recordAll records as in one append: one lock, one write, one fsync.
// Nothing is recorded if any asset is invalid.
func (s *FileStore) recordAll(ctx context.Context, as []*Asset) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("asset: record: %w", context.Cause(ctx))
	}
	cs := make([]*Asset, len(as))
	for i, a := range as {
		c := clone(a)
		if c.Date.IsZero() {
			c.Date = s.now().UTC()
		}
		if c.SchemaVersion == 0 {
			c.SchemaVersion = SchemaVersion
		}
		if c.Scope == "" {
			c.Scope = ScopeProject
		}
		if err := c.Validate(); err != nil {
			return err
		}
		cs[i] = c
	}
	return s.append(ctx, func() ([]*Asset, error) {
		var fresh map[string]bool // slugs derived in this batch
		for _, c := range cs {
			if c.Slug == "" {
				c.Slug = uniqueSlug(Slugify(c.Title), func(slug string) bool {
					_, ok := s.idx.bySlug[slug]
					return ok || fresh[slug]
				})
				if fresh == nil {
					fresh = map[string]bool{}
				}
				fresh[c.Slug] = true
			}
		}
		return cs, nil
	})
}

// locked runs fn holding the file lock and s.mu, caught up with the file.
func (s *FileStore) locked(ctx context.Context, fn func() error) error {
	lock, err := fsx.LockContext(ctx, s.path+".lock")
	if err != nil {
		return fmt.Errorf("asset: lock %s: %w", s.path, err)
	}
	defer lock.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.catchUp(true); err != nil {
		return err
	}
	return fn()
}

// append takes the locks, catches up, and appends the records build returns
// as one write, then indexes them.
func (s *FileStore) append(ctx context.Context, build func() ([]*Asset, error)) error {
	return s.locked(ctx, func() error {
		recs, err := build()
		if err != nil || len(recs) == 0 {
			return err
		}
		buf, err := marshalLines(recs)
		if err != nil {
			return err
		}
		wfi, err := appendFile(s.path, buf, 0)
		if err != nil {
			return err
		}
		if rfi, err := s.f.Stat(); err != nil || !os.SameFile(wfi, rfi) {
			// Not the file we have open, though we hold the lock: someone
			// outside the protocol replaced it. Read it afresh.
			return s.catchUp(true)
		}
		s.offset += int64(len(buf))
		s.lines += len(recs)
		for _, r := range recs {
			s.idx.put(r)
		}
		return nil
	})
}

// marshalLines returns recs as lines of JSON.
func marshalLines(recs []*Asset) ([]byte, error) {
	var buf []byte
	for _, r := range recs {
		b, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, b...), '\n')
	}
	return buf, nil
}

// appendFile opens path anew with O_APPEND (creating it with perm if perm
// is not zero), writes buf in one write, fsyncs and closes it, and returns
// the state of the file written.
func appendFile(path string, buf []byte, perm os.FileMode) (os.FileInfo, error) {
	flag := os.O_WRONLY | os.O_APPEND
	if perm != 0 {
		flag |= os.O_CREATE
	}
	w, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	if _, err := w.Write(buf); err != nil {
		w.Close()
		return nil, fmt.Errorf("asset: append to %s: %w", path, err)
	}
	if err := w.Sync(); err != nil {
		w.Close()
		return nil, fmt.Errorf("asset: fsync %s: %w", path, err)
	}
	fi, err := w.Stat()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	return fi, nil
}

// rewrite replaces PATH, crash-safely, with the indexed records (the latest
// of each slug, in the order they were first recorded) for which keep
// reports true, followed by add; then it indexes the new file. The caller
// holds the file lock and s.mu, and has caught up.
func (s *FileStore) rewrite(keep func(*Asset) bool, add []*Asset) error {
	recs := make([]*Asset, 0, len(s.idx.assets)+len(add))
	for _, a := range s.idx.assets {
		if keep(a) {
			recs = append(recs, a)
		}
	}
	buf, err := marshalLines(append(recs, add...))
	if err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if fi, err := s.f.Stat(); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := fsx.WriteFile(s.path, buf, perm); err != nil {
		return fmt.Errorf("asset: rewrite %s: %w", s.path, err)
	}
	if err := s.reopen(); err != nil {
		return err
	}
	return s.catchUp(true)
}

// archiveRecords appends recs, each changed by mark, to the archive file
// and makes its creation durable. The caller holds the file lock.
func (s *FileStore) archiveRecords(recs []*Asset, mark func(*Asset)) error {
	out := make([]*Asset, len(recs))
	for i, r := range recs {
		out[i] = clone(r)
		if out[i].Extra == nil {
			out[i].Extra = map[string]json.RawMessage{}
		}
		mark(out[i])
	}
	buf, err := marshalLines(out)
	if err != nil {
		return err
	}
	if _, err := appendFile(s.archive, buf, 0o644); err != nil {
		return err
	}
	if err := fsx.SyncDir(filepath.Dir(s.archive)); err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	return nil
}

// Query implements [Experience.Query]. With q.MarkAccessed, the assets returned
// are recorded again with LastAccessed and AccessCount updated: one append of
// a line each, under the lock, never a rewrite of the file.
func (s *FileStore) Query(ctx context.Context, q Query) ([]*Asset, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("asset: query: %w", context.Cause(ctx))
	}
	s.mu.Lock()
	err := s.catchUp(false)
	var hits []*Asset
	if err == nil {
		hits = s.idx.query(q)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if q.MarkAccessed && len(hits) > 0 {
		now := s.now().UTC()
		err := s.append(ctx, func() ([]*Asset, error) {
			var recs []*Asset
			for _, h := range hits {
				cur, ok := s.idx.get(h.Slug)
				if !ok {
					continue
				}
				c := clone(cur)
				c.LastAccessed = now
				c.AccessCount++
				recs = append(recs, c)
				h.LastAccessed, h.AccessCount = c.LastAccessed, c.AccessCount
			}
			return recs, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// clone returns a deep copy of a.
func clone(a *Asset) *Asset {
	c := *a
	c.Tags = slices.Clone(a.Tags)
	if a.Resolved != nil {
		r := *a.Resolved
		c.Resolved = &r
	}
	if a.Extra != nil {
		c.Extra = maps.Clone(a.Extra)
		for k, v := range c.Extra {
			c.Extra[k] = slices.Clone(v)
		}
	}
	return &c
}
