package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// [Decoder]) in the harnish engine's format, which the engine's scripts read
// and write too. Recording an asset of a slug the file holds replaces its
// record in place (a rewrite), so another tool reading the file sees each
// slug once; of a slug another writer left twice, the later record counts,
// and the next rewrite keeps only it.
//
// Every write holds an exclusive lock on PATH.lock, so stores in several
// goroutines and processes take turns. An append opens PATH anew
// (O_APPEND), writes its records in one write, fsyncs and closes, so records
// never interleave and an append after another store's rewrite lands in the
// new file. Compress and Purge rewrite crash-safely (a temporary file,
// fsync, rename over PATH, fsync of the directory): after a crash PATH holds
// either the old records or the new, never a mix. Before appending, and
// before each query, the store reads what others appended since; when PATH
// is no longer the file it has open (another store, or the engine,
// rewrote it), it reopens PATH and indexes it afresh. Its in-memory index
// (by slug, tag and type) thus stays current. The index holds where each
// record is, not the record: a query reads and decodes only the records it
// returns.
//
// Two files beside PATH make reads cheap, and neither is needed to read
// PATH:
//
//   - The index file (PATH with ".index" for ".jsonl"), a cache of the
//     index, written (atomically, without fsync) after the store has read
//     1 MiB or more of records, and used by the next store that opens PATH
//     if it was made from the bytes PATH starts with (their length and
//     CRC-32C). A missing, stale or damaged index file is rebuilt, never an
//     error.
//   - The access log (PATH with ".access.jsonl" for ".jsonl"), where a
//     query with MarkAccessed records its accesses, one short line per
//     asset, rather than a new record: so reads do not add records to PATH,
//     and another tool reading PATH sees each record once. A store adds
//     the log to the records' access_count and last_accessed_at; when the
//     log outgrows 16 KiB and an eighth of PATH, and at every Compress and
//     Purge, the counts are written into PATH (a rewrite that keeps every
//     other byte of every record) and the log removed. A crash between the
//     two counts those accesses twice.
//
// What Compress folds and Purge removes goes to the archive file (see
// [FileStore.ArchivePath]), appended to and never rewritten.
//
// Rewriting PATH while another process has it open relies on POSIX rename;
// on Windows, Compress and Purge may fail while other stores hold the file.
//
// A FileStore is safe for concurrent use. Close it when done.
type FileStore struct {
	path      string
	archive   string
	accessLog string
	indexFile string
	now       func() time.Time

	mu      sync.Mutex // guards everything below
	f       *os.File   // PATH as last opened, read-only
	offset  int64      // bytes of f indexed
	lines   int        // lines of f indexed
	crc     uint32     // CRC-32C of f's first offset bytes
	unsaved int64      // bytes indexed since the index file was written or read
	idx     index
	acc     accessState
}

// accessState is how much of the access log the index holds.
type accessState struct {
	fi     os.FileInfo // the log as last read; nil if none
	offset int64
	lines  int
}

// OpenFile opens the assets file at path, creating it and its directory if
// need be, and indexes its records. A record that does not decode, or a torn
// last line (no trailing newline, as a crash mid-append leaves), is a
// [*CorruptError] naming the file and line; the file is left as it is.
//
// The loop and the harnish CLI open the file [StorePath] names in the
// project's .harnish directory: the engine's harnish-assets.jsonl, so both
// tools share one store. [Import] brings another history into a store.
func OpenFile(path string, opts *FileOptions) (*FileStore, error) {
	stem := strings.TrimSuffix(path, ".jsonl")
	s := &FileStore{path: path, archive: archivePath(path), accessLog: stem + ".access.jsonl", indexFile: stem + ".index", now: time.Now}
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
	s.loadIndex()
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

// The engine's file and its archive.
const (
	// EngineFile is the name of the harnish engine's assets file, in its
	// .harnish directory.
	EngineFile = "harnish-assets.jsonl"
	// legacyFile is the name harnish used before it shared the engine's.
	legacyFile    = "assets.jsonl"
	engineArchive = "harnish-assets-archive.jsonl"
)

// StorePath returns the assets file of the state directory dir (a
// project's .harnish): dir/harnish-assets.jsonl ([EngineFile]), the file the
// harnish engine keeps, so the engine and harnish share one store; or
// dir/assets.jsonl, where harnish kept its store before, when only that
// exists. When both exist it is the engine's; harnish assets import
// .harnish/assets.jsonl (see [Import]) brings the other's records in.
func StorePath(dir string) string {
	engine := filepath.Join(dir, EngineFile)
	if _, err := os.Stat(engine); err != nil {
		legacy := filepath.Join(dir, legacyFile)
		if _, err := os.Stat(legacy); err == nil {
			return legacy
		}
	}
	return engine
}

// archivePath is the engine's archive beside the engine's file; otherwise
// path with ".archive.jsonl" in place of ".jsonl" (or appended, when path
// does not end in ".jsonl").
func archivePath(path string) string {
	if filepath.Base(path) == EngineFile {
		return filepath.Join(filepath.Dir(path), engineArchive)
	}
	return strings.TrimSuffix(path, ".jsonl") + ".archive.jsonl"
}

// ArchivePath returns the archive file: beside the engine's file, the
// engine's archive (harnish-assets-archive.jsonl); otherwise the store's
// path with ".archive.jsonl" in place of ".jsonl". Compress appends the
// records it folds to it, marked "compressed": true and "compressed_into"
// the summary's slug; Purge appends the records it removes, marked
// "purged_at" the time. Its records are in the store's format, and it may be
// opened with [OpenFile] to look at them.
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
// reopening it if another store replaced it, and what was added to the
// access log. With complete, the files must end in '\n' (the caller holds
// the file lock, so no append is in flight); without, an unterminated tail
// waits for next time. The caller holds s.mu.
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
		s.reset()
	}
	if size > s.offset {
		buf := make([]byte, size-s.offset)
		if _, err := s.f.ReadAt(buf, s.offset); err != nil && err != io.EOF {
			return fmt.Errorf("asset: %w", err)
		}
		if len(buf) > 1<<20 {
			s.idx.grow(bytes.Count(buf, []byte{'\n'}))
		}
		n, lines, err := decodeSpans(buf, s.offset, s.path, s.lines+1, complete, s.idx.put)
		s.crc = crc32.Update(s.crc, castagnoli(), buf[:n])
		s.offset += int64(n)
		s.lines += lines
		s.unsaved += int64(n)
		if err != nil {
			return err
		}
		if s.unsaved >= indexSaveMin {
			s.saveIndex()
		}
	}
	return s.catchUpAccess(complete)
}

// reset forgets what the store indexed of its file. The caller holds s.mu.
func (s *FileStore) reset() {
	s.offset, s.lines, s.crc, s.unsaved = 0, 0, 0, 0
	s.idx.init()
	s.acc = accessState{}
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

// reopen opens PATH afresh, with an empty index, or the index file's if it
// was made from the new file. The caller holds s.mu.
func (s *FileStore) reopen() error {
	f, err := os.Open(s.path)
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	s.f.Close()
	s.f = f
	s.reset()
	s.loadIndex()
	return nil
}

// Record implements [Experience.Record]. A zero Slug is derived from the title
// with [Slugify], suffixed -2, -3, ... when taken. A new slug is appended; a
// slug the file holds has its record replaced in place, in a rewrite of the
// file. The asset's AccessCount is its count from then on, accesses in the
// access log included.
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
	return s.locked(ctx, func() error {
		var fresh map[string]bool // slugs derived in this batch
		bySlug := map[string]int{}
		var batch []*Asset // cs, the last of each slug in the place of its first
		for _, c := range cs {
			if c.Slug == "" {
				c.Slug = uniqueSlug(Slugify(c.Title), func(slug string) bool {
					_, ok := s.idx.slot(slug)
					return ok || fresh[slug]
				})
				if fresh == nil {
					fresh = map[string]bool{}
				}
				fresh[c.Slug] = true
			}
			if k, ok := bySlug[c.Slug]; ok {
				batch[k] = c
				continue
			}
			bySlug[c.Slug] = len(batch)
			batch = append(batch, c)
		}
		// An asset of a slug the file holds replaces its record in place,
		// so no other reader of the file sees the slug twice: a rewrite,
		// which writes the log's accesses into the records and removes it.
		replace := map[int]*Asset{}
		var add []*Asset
		for _, c := range batch {
			if i, ok := s.idx.slot(c.Slug); ok {
				replace[i] = c
			} else {
				add = append(add, c)
			}
		}
		if len(replace) > 0 {
			return s.rewrite(func(int) bool { return true }, replace, add)
		}
		for _, c := range add {
			// Accesses the log holds of a slug no longer in the file (the
			// engine purged it) would still count: record what makes the
			// sum the asset's AccessCount.
			if d, ok := s.idx.acc[c.Slug]; ok {
				c.AccessCount = max(0, c.AccessCount-d.n)
			}
		}
		return s.appendRecords(add)
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

// appendRecords appends recs as one write, then indexes them. The caller
// holds the file lock and s.mu, and has caught up.
func (s *FileStore) appendRecords(recs []*Asset) error {
	if len(recs) == 0 {
		return nil
	}
	buf, ends, err := marshalLines(recs)
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
	start := 0
	for i, r := range recs {
		s.idx.put(r, metaOf(r), span{off: s.offset + int64(start), n: ends[i] - start - 1, line: s.lines + 1 + i})
		start = ends[i]
	}
	s.crc = crc32.Update(s.crc, castagnoli(), buf)
	s.offset += int64(len(buf))
	s.lines += len(recs)
	return nil
}

// metaOf is what decodeMeta would read of a's record.
func metaOf(a *Asset) recordMeta {
	m := recordMeta{hidden: a.compressed(), summary: a.isSummary()}
	if m.summary {
		m.of = len(a.SummaryOf())
	}
	return m
}

// marshalLines returns recs as lines of JSON, and where each line ends
// (after its '\n').
func marshalLines(recs []*Asset) ([]byte, []int, error) {
	var buf []byte
	ends := make([]int, len(recs))
	for i, r := range recs {
		b, err := r.MarshalJSON()
		if err != nil {
			return nil, nil, err
		}
		buf = append(append(buf, b...), '\n')
		ends[i] = len(buf)
	}
	return buf, ends, nil
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

// raw returns the bytes of slot i's record.
func (s *FileStore) raw(i int) ([]byte, error) {
	sp := s.idx.meta[i].span
	b := make([]byte, sp.n)
	if _, err := s.f.ReadAt(b, sp.off); err != nil {
		return nil, fmt.Errorf("asset: read %s: %w", s.path, err)
	}
	return b, nil
}

// load reads and decodes slot i's record, with the accesses of the log.
// The caller holds s.mu.
func (s *FileStore) load(i int) (*Asset, error) {
	b, err := s.raw(i)
	if err != nil {
		return nil, err
	}
	a, err := decodeRecord(b)
	if err == nil && a.Slug != s.idx.slugs[i] {
		err = fmt.Errorf("the record of %q is not where the index says", s.idx.slugs[i])
	}
	if err != nil {
		return nil, &CorruptError{Path: s.path, Line: s.idx.meta[i].line, Err: err}
	}
	a.AccessCount, a.LastAccessed = s.idx.access(i)
	return a, nil
}

// loadAll loads the slots.
func (s *FileStore) loadAll(slots []int) ([]*Asset, error) {
	out := make([]*Asset, len(slots))
	for k, i := range slots {
		a, err := s.load(i)
		if err != nil {
			return nil, err
		}
		out[k] = a
	}
	return out, nil
}

// rewrite replaces PATH, crash-safely, with the records of the slots for
// which keep reports true (each as the file has it, byte for byte, but for
// the accesses of the log, which it writes into them; or, for a slot in
// replace, that asset as it is), in the order they were first recorded,
// followed by add; then it removes the access log and indexes the new file.
// The caller holds the file lock and s.mu, and has caught up.
func (s *FileStore) rewrite(keep func(slot int) bool, replace map[int]*Asset, add []*Asset) error {
	data := make([]byte, s.offset)
	if _, err := s.f.ReadAt(data, 0); err != nil && err != io.EOF {
		return fmt.Errorf("asset: read %s: %w", s.path, err)
	}
	var buf []byte
	for i := range s.idx.meta {
		if !keep(i) {
			continue
		}
		sp := s.idx.meta[i].span
		rec := data[sp.off : sp.off+int64(sp.n)]
		if a, ok := replace[i]; ok {
			b, err := a.MarshalJSON()
			if err != nil {
				return err
			}
			rec = b
		} else if _, ok := s.idx.acc[s.idx.slugs[i]]; ok {
			n, last := s.idx.access(i)
			at, _ := json.Marshal(last.UTC().Format(time.RFC3339Nano))
			patched, err := patchFields(rec, [][2][]byte{
				{[]byte(`"access_count"`), []byte(strconv.Itoa(n))},
				{[]byte(`"last_accessed_at"`), at},
			})
			if err != nil {
				return &CorruptError{Path: s.path, Line: sp.line, Err: err}
			}
			rec = patched
		}
		buf = append(append(buf, rec...), '\n')
	}
	more, _, err := marshalLines(add)
	if err != nil {
		return err
	}
	buf = append(buf, more...)
	perm := os.FileMode(0o644)
	if fi, err := s.f.Stat(); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := fsx.WriteFile(s.path, buf, perm); err != nil {
		return fmt.Errorf("asset: rewrite %s: %w", s.path, err)
	}
	// The counts are in PATH now. A crash before this removal counts the
	// log's accesses twice; one after it, once.
	if err := os.Remove(s.accessLog); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("asset: %w", err)
	}
	if err := s.reopen(); err != nil {
		return err
	}
	return s.catchUp(true)
}

// archiveRecords appends the records of slots, each changed by mark, to the
// archive file and makes its creation durable. The caller holds the file
// lock.
func (s *FileStore) archiveRecords(slots []int, mark func(*Asset)) error {
	out, err := s.loadAll(slots)
	if err != nil {
		return err
	}
	for _, a := range out {
		if a.Extra == nil {
			a.Extra = map[string]json.RawMessage{}
		}
		mark(a)
	}
	buf, _, err := marshalLines(out)
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

// Query implements [Experience.Query]. It reads and decodes the records it
// returns, and, for a query with Text, those it must look into; no others.
// With q.MarkAccessed, the accesses go to the access log (see [FileStore]):
// one short line per asset returned, under the lock; PATH gets no new
// records.
func (s *FileStore) Query(ctx context.Context, q Query) ([]*Asset, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("asset: query: %w", context.Cause(ctx))
	}
	s.mu.Lock()
	hits, err := s.query(q)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if q.MarkAccessed && len(hits) > 0 {
		if err := s.markAccessed(ctx, hits); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

// query answers q. The caller holds s.mu.
func (s *FileStore) query(q Query) ([]*Asset, error) {
	if err := s.catchUp(false); err != nil {
		return nil, err
	}
	slots, err := s.idx.query(q, func(i int) (bool, error) {
		a, err := s.load(i)
		if err != nil {
			return false, err
		}
		return q.Match(a), nil
	})
	if err != nil {
		return nil, err
	}
	return s.loadAll(slots)
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
