package asset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/fsx"
)

// The index file caches a store's index (see [FileStore]) so a new process
// need not decode every record to answer a query. It is a cache: anything
// wrong with it means it is rebuilt, never an error.
//
// Its layout, integers as unsigned varints (times as a varint of seconds
// and an unsigned varint of nanoseconds), strings as a length and bytes:
//
//	magic "harnish asset index 2\n"
//	the JSONL file it was made from: bytes indexed, lines, CRC-32C of them
//	  (4 bytes, little-endian), its modification time and the time the
//	  index was written (varints of nanoseconds; 0 when not known)
//	count of tags, then each tag (lower case)
//	count of slots, then per slot: slug, count of its tags and each as its
//	  number in the list of tags, type, scope, flags (1 hidden, 2 summary,
//	  4 date set, 8 last access set), summary_of count, date, last access,
//	  access count, offset, length, first line of the record
//	CRC-32C (4 bytes, little-endian) of everything before it
//
// A store trusts an index file made from a file of the same size and
// modification time without reading the file, unless that time is within
// two seconds of the index's writing (FAT's clock ticks in two seconds) (a change in the same tick of the file
// system's clock would not show); otherwise it checks the CRC of the bytes
// indexed. Loading it builds the index without a map insert per record: the
// postings are counted, then filled, and the map by slug waits until a
// write needs it.

// castagnoli is the CRC-32C table, made at first use: building it at
// package init costs every program that links asset (the agents' hook
// among them) a fifth of a millisecond at each start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

const (
	indexMagic = "harnish asset index 3\n"
	// indexSaveMin is how many bytes of records a store must have read
	// before writing the index file: below it, reading them is as quick.
	indexSaveMin = 1 << 20
	// maxIndexFile bounds the index file a store reads.
	maxIndexFile = 1 << 30
)

// indexHeader says which bytes of the JSONL file an index file indexes.
type indexHeader struct {
	size  int64
	lines int
	crc   uint32
	// mtime is the file's modification time when it was size bytes long,
	// and saved when the index file was written, in Unix nanoseconds; 0
	// when not known.
	mtime, saved int64
}

// racyWindow is how close to the index's writing a modification time must
// not be for the index to be trusted on size and time alone.
const racyWindow = int64(2 * time.Second)

const (
	flagHidden = 1 << iota
	flagSummary
	flagDate
	flagLast
)

func encodeIndex(x *index, h indexHeader) []byte {
	b := []byte(indexMagic)
	b = binary.AppendUvarint(b, uint64(h.size))
	b = binary.AppendUvarint(b, uint64(h.lines))
	b = binary.LittleEndian.AppendUint32(b, h.crc)
	b = binary.AppendVarint(b, h.mtime)
	b = binary.AppendVarint(b, h.saved)
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	tm := func(t time.Time) {
		b = binary.AppendVarint(b, t.Unix())
		b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	}
	tagIDs := make(map[string]int, len(x.byTag))
	var tags []string
	for _, ts := range x.tags {
		for _, t := range ts {
			if _, ok := tagIDs[t]; !ok {
				tagIDs[t] = len(tags)
				tags = append(tags, t)
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(tags)))
	for _, t := range tags {
		str(t)
	}
	b = binary.AppendUvarint(b, uint64(len(x.meta)))
	for i, m := range x.meta {
		str(x.slugs[i])
		b = binary.AppendUvarint(b, uint64(len(x.tags[i])))
		for _, t := range x.tags[i] {
			b = binary.AppendUvarint(b, uint64(tagIDs[t]))
		}
		str(string(m.typ))
		str(string(m.scope))
		var flags uint64
		if m.hidden {
			flags |= flagHidden
		}
		if m.summary {
			flags |= flagSummary
		}
		if !m.date.IsZero() {
			flags |= flagDate
		}
		if !m.last.IsZero() {
			flags |= flagLast
		}
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendUvarint(b, uint64(m.of))
		tm(m.date)
		tm(m.last)
		b = binary.AppendUvarint(b, uint64(m.access))
		b = binary.AppendUvarint(b, uint64(m.off))
		b = binary.AppendUvarint(b, uint64(m.n))
		b = binary.AppendUvarint(b, uint64(m.line))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
}

var errIndex = errors.New("asset: index file is damaged")

// indexReader reads the fields of an index file, failing once for good.
// Its strings are substrings of all, one copy of the file.
type indexReader struct {
	all string
	pos int
	err error
}

func (r *indexReader) uint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := uvarint(r.all[r.pos:])
	if n <= 0 || v > limit {
		r.err = errIndex
		return 0
	}
	r.pos += n
	return v
}

// uvarint is binary.Uvarint on a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -1
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func (r *indexReader) int() int64 {
	u := r.uint(1<<64 - 1)
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (r *indexReader) str() string {
	n := r.uint(1 << 62)
	if r.err == nil && n > uint64(len(r.all)-r.pos) {
		r.err = errIndex
	}
	if r.err != nil {
		return ""
	}
	s := r.all[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s
}

func (r *indexReader) time(set bool) time.Time {
	sec, nsec := r.int(), r.uint(999_999_999)
	if !set || r.err != nil {
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// decodeIndex reads an index file strictly (its checksum, its magic, every
// slot within the file it was made from) into an index, the map by slug
// not yet built. Memory is bounded by the file's size.
func decodeIndex(b []byte) (indexHeader, *index, error) {
	var h indexHeader
	if len(b) < len(indexMagic)+4 || string(b[:len(indexMagic)]) != indexMagic {
		return h, nil, errIndex
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli()) != sum {
		return h, nil, errIndex
	}
	r := &indexReader{all: string(body), pos: len(indexMagic)}
	h.size, h.lines = int64(r.uint(1<<62)), int(r.uint(1<<62))
	if r.err != nil || len(r.all)-r.pos < 4 {
		return h, nil, errIndex
	}
	h.crc = binary.LittleEndian.Uint32([]byte(r.all[r.pos : r.pos+4]))
	r.pos += 4
	h.mtime, h.saved = r.int(), r.int()
	// Every count is bounded by the bytes left, so no count asks for more
	// memory than the file justifies.
	tags := make([]string, r.uint(uint64(len(r.all)-r.pos)))
	for k := range tags {
		tags[k] = r.str()
	}
	if r.err != nil || !isLowerSet(tags) {
		return h, nil, errIndex
	}
	n := int(r.uint(uint64(len(r.all)-r.pos) / 14)) // a slot takes 14 bytes at least
	x := &index{
		slugs: make([]string, n), tags: make([][]string, n), meta: make([]slotMeta, n),
		byTag: make(map[string][]int, len(tags)), byType: map[Type][]int{}, acc: map[string]accessDelta{},
	}
	// Every slot's tags, end to end: as strings (x.tags[i] are slices of
	// it) and as their numbers in tags.
	refs := make([]string, 0, n)
	refIDs := make([]int32, 0, n)
	counts := make([]int, len(tags))
	for i := range n {
		x.slugs[i] = r.str()
		start := len(refs)
		for range r.uint(uint64(len(tags))) {
			id := r.uint(uint64(len(tags)) - 1)
			if r.err != nil {
				break
			}
			refs = append(refs, tags[id])
			refIDs = append(refIDs, int32(id))
			counts[id]++
		}
		x.tags[i] = refs[start:len(refs):len(refs)]
		m := &x.meta[i]
		m.typ, m.scope = Type(r.str()), Scope(r.str())
		flags := r.uint(15)
		m.hidden, m.summary = flags&flagHidden != 0, flags&flagSummary != 0
		m.of = int(r.uint(uint64(h.size)))
		m.date = r.time(flags&flagDate != 0)
		m.last = r.time(flags&flagLast != 0)
		m.access = int(r.uint(1 << 62))
		m.off = int64(r.uint(uint64(h.size)))
		m.n = int(r.uint(uint64(h.size)))
		m.line = int(r.uint(uint64(h.lines)))
		if r.err != nil {
			return h, nil, r.err
		}
		if x.slugs[i] == "" || m.off+int64(m.n) > h.size || m.line < 1 || !isLowerSet(x.tags[i]) {
			return h, nil, errIndex
		}
		x.byType[m.typ] = append(x.byType[m.typ], i)
	}
	if r.pos != len(r.all) {
		return h, nil, errIndex
	}
	// The postings: counted above, filled here, in slot order.
	postings := make([][]int, len(tags))
	backing := make([]int, 0, len(refIDs))
	for id := range tags {
		postings[id] = backing[len(backing) : len(backing) : len(backing)+counts[id]]
		backing = backing[:len(backing)+counts[id]]
	}
	k := 0
	for i, ts := range x.tags {
		for range ts {
			id := refIDs[k]
			postings[id] = append(postings[id], i)
			k++
		}
	}
	for id, t := range tags {
		if len(postings[id]) > 0 {
			x.byTag[t] = postings[id]
		}
	}
	return h, x, nil
}

// saveIndex writes the index file, if it can; a store that cannot (a
// read-only directory, say) works as well, only slower to open. The caller
// holds s.mu.
func (s *FileStore) saveIndex() {
	h := indexHeader{size: s.offset, lines: s.lines, crc: s.crc, saved: time.Now().UnixNano()}
	if fi, err := s.f.Stat(); err == nil && fi.Size() == s.offset {
		h.mtime = fi.ModTime().UnixNano()
	}
	b := encodeIndex(&s.idx, h)
	if fsx.ReplaceFile(s.indexFile, b, 0o644) == nil {
		s.unsaved = 0
	}
}

// loadIndex takes the index file's index if it was made from the bytes the
// open file starts with. The caller holds s.mu, with an empty index.
func (s *FileStore) loadIndex() {
	fi, err := os.Stat(s.indexFile)
	if err != nil || fi.Size() > maxIndexFile {
		return
	}
	b, err := os.ReadFile(s.indexFile)
	if err != nil {
		return
	}
	h, x, err := decodeIndex(b)
	if err != nil {
		return
	}
	cur, err := s.f.Stat()
	if err != nil || cur.Size() < h.size {
		return
	}
	mtime := cur.ModTime().UnixNano()
	if cur.Size() != h.size || mtime != h.mtime || mtime == 0 || mtime > h.saved-racyWindow {
		if !s.tailMatches(x, h) {
			return // rewritten: no need to read it all to know
		}
		crc := crc32.New(castagnoli())
		buf := make([]byte, 1<<20)
		if n, err := io.CopyBuffer(crc, io.NewSectionReader(s.f, 0, h.size), buf); err != nil || n != h.size || crc.Sum32() != h.crc {
			return
		}
	}
	s.idx = *x
	s.offset, s.lines, s.crc, s.unsaved = h.size, h.lines, h.crc, 0
}

// tailMatches reports whether the last record the index file places in the
// file is there, byte for byte, with its slug: a cheap test that fails for
// most files rewritten since.
func (s *FileStore) tailMatches(x *index, h indexHeader) bool {
	last := -1
	for i := range x.meta {
		if last < 0 || x.meta[i].off > x.meta[last].off {
			last = i
		}
	}
	if last < 0 {
		return true
	}
	sp := x.meta[last].span
	b := make([]byte, sp.n)
	if _, err := s.f.ReadAt(b, sp.off); err != nil {
		return false
	}
	return sp.off+int64(sp.n)+1 == h.size && bytes.Contains(b, []byte(strconv.Quote(x.slugs[last])))
}
