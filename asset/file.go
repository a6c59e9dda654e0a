package asset

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
// [Decoder]), appended to and never rewritten in place. A record of a slug
// already stored supersedes the earlier one; the file keeps both.
//
// Writers take an exclusive lock on PATH.lock around each append, which is
// one write of one line with O_APPEND, then an fsync, so records from several
// goroutines and processes never interleave. Before appending, and before
// each query, the store reads what other processes appended since, so its
// in-memory index (by slug, tag and type) stays current.
//
// Compress and Purge are not implemented yet: they return an error wrapping
// [ErrUnsupported].
//
// A FileStore is safe for concurrent use. Close it when done.
type FileStore struct {
	path string
	now  func() time.Time

	mu     sync.Mutex // guards everything below
	f      *os.File   // O_RDWR|O_APPEND
	offset int64      // bytes of f indexed
	lines  int        // lines of f indexed
	idx    index
}

// OpenFile opens the assets file at path, creating it and its directory if
// need be, and indexes its records. A record that does not decode, or a torn
// last line (no trailing newline, as a crash mid-append leaves), is a
// [*CorruptError] naming the file and line; the file is left as it is.
func OpenFile(path string, opts *FileOptions) (*FileStore, error) {
	s := &FileStore{path: path, now: time.Now}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("asset: %w", err)
	}
	s.f = f
	s.idx.init()
	if err := s.catchUp(true); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

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

// catchUp indexes what was appended to the file since s.offset. With
// complete, the file must end in '\n' (the caller holds the file lock, so no
// append is in flight); without, an unterminated tail waits for next time.
// The caller holds s.mu.
func (s *FileStore) catchUp(complete bool) error {
	if s.f == nil {
		return fmt.Errorf("asset: %s is closed", s.path)
	}
	fi, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("asset: %w", err)
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

// Record implements [Store.Record]. A zero Slug is derived from the title
// with [Slugify], suffixed -2, -3, ... when taken.
func (s *FileStore) Record(ctx context.Context, a *Asset) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("asset: record: %w", context.Cause(ctx))
	}
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
	return s.append(ctx, func() ([]*Asset, error) {
		if c.Slug == "" {
			c.Slug = uniqueSlug(Slugify(c.Title), func(slug string) bool {
				_, ok := s.idx.bySlug[slug]
				return ok
			})
		}
		return []*Asset{c}, nil
	})
}

// append takes the locks, catches up, and appends the records build returns
// as one write, then indexes them.
func (s *FileStore) append(ctx context.Context, build func() ([]*Asset, error)) error {
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
	recs, err := build()
	if err != nil || len(recs) == 0 {
		return err
	}
	var buf []byte
	for _, r := range recs {
		b, err := r.MarshalJSON()
		if err != nil {
			return err
		}
		buf = append(append(buf, b...), '\n')
	}
	if _, err := s.f.Write(buf); err != nil {
		return fmt.Errorf("asset: append to %s: %w", s.path, err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("asset: fsync %s: %w", s.path, err)
	}
	s.offset += int64(len(buf))
	s.lines += len(recs)
	for _, r := range recs {
		s.idx.put(r)
	}
	return nil
}

// Query implements [Store.Query]. With q.MarkAccessed, the assets returned
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

// Compress is not implemented by FileStore yet; it returns an error wrapping
// [ErrUnsupported].
func (s *FileStore) Compress(context.Context, CompressRequest) (*CompressResult, error) {
	return nil, fmt.Errorf("%w: FileStore.Compress", ErrUnsupported)
}

// Purge is not implemented by FileStore yet; it returns an error wrapping
// [ErrUnsupported].
func (s *FileStore) Purge(context.Context, PurgeRequest) (*PurgeResult, error) {
	return nil, fmt.Errorf("%w: FileStore.Purge", ErrUnsupported)
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
