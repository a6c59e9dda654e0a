package asset

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
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
//	magic "harnish asset index 1\n"
//	the JSONL file it was made from: bytes indexed, lines, CRC-32C of them
//	count of slots, then per slot: slug, tags (a count and each, lower
//	case), type, scope, flags (1 hidden, 2 summary, 4 date set, 8 last
//	access set), summary_of count, date, last access, access count,
//	offset, length, first line of the record
//	CRC-32C (4 bytes, little-endian) of everything before it

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	indexMagic = "harnish asset index 1\n"
	// indexSaveMin is how many bytes of records a store must have read
	// before writing the index file: below it, reading them is as quick.
	indexSaveMin = 1 << 20
	// maxIndexFile bounds the index file a store reads.
	maxIndexFile = 1 << 30
)

// indexSnapshot is the content of an index file.
type indexSnapshot struct {
	size  int64
	lines int
	crc   uint32
	slugs []string
	tags  [][]string
	meta  []slotMeta
}

const (
	flagHidden = 1 << iota
	flagSummary
	flagDate
	flagLast
)

func encodeIndex(x *index, size int64, lines int, crc uint32) []byte {
	b := []byte(indexMagic)
	b = binary.AppendUvarint(b, uint64(size))
	b = binary.AppendUvarint(b, uint64(lines))
	b = binary.LittleEndian.AppendUint32(b, crc)
	b = binary.AppendUvarint(b, uint64(len(x.meta)))
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	tm := func(t time.Time) {
		b = binary.AppendVarint(b, t.Unix())
		b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	}
	for i, m := range x.meta {
		str(x.slugs[i])
		b = binary.AppendUvarint(b, uint64(len(x.tags[i])))
		for _, t := range x.tags[i] {
			str(t)
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
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

var errIndex = errors.New("asset: index file is damaged")

// indexReader reads the fields of an index file, failing once for good.
type indexReader struct {
	b   []byte
	err error
}

func (r *indexReader) uint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.err = errIndex
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *indexReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errIndex
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *indexReader) str() string {
	n := r.uint(uint64(len(r.b)))
	if r.err != nil {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *indexReader) time(set bool) time.Time {
	sec, nsec := r.int(), r.uint(999_999_999)
	if !set || r.err != nil {
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).UTC()
}

// decodeIndex reads an index file strictly: its checksum, its magic, and
// every slot within the file it was made from.
func decodeIndex(b []byte) (*indexSnapshot, error) {
	if len(b) < len(indexMagic)+4 || string(b[:len(indexMagic)]) != indexMagic {
		return nil, errIndex
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, errIndex
	}
	r := &indexReader{b: body[len(indexMagic):]}
	snap := &indexSnapshot{size: int64(r.uint(1 << 62)), lines: int(r.uint(1 << 62))}
	if len(r.b) < 4 {
		return nil, errIndex
	}
	snap.crc = binary.LittleEndian.Uint32(r.b)
	r.b = r.b[4:]
	// A slot takes at least 14 bytes: no count can ask for more memory than
	// the file justifies.
	n := int(r.uint(uint64(len(r.b) / 14)))
	snap.slugs = make([]string, 0, n)
	snap.tags = make([][]string, 0, n)
	snap.meta = make([]slotMeta, 0, n)
	for range n {
		slug := r.str()
		tags := make([]string, r.uint(uint64(len(r.b))))
		for k := range tags {
			tags[k] = r.str()
		}
		var m slotMeta
		m.typ, m.scope = Type(r.str()), Scope(r.str())
		flags := r.uint(15)
		m.hidden, m.summary = flags&flagHidden != 0, flags&flagSummary != 0
		m.of = int(r.uint(uint64(snap.size)))
		m.date = r.time(flags&flagDate != 0)
		m.last = r.time(flags&flagLast != 0)
		m.access = int(r.uint(1 << 62))
		m.off = int64(r.uint(uint64(snap.size)))
		m.n = int(r.uint(uint64(snap.size)))
		m.line = int(r.uint(uint64(snap.lines)))
		if r.err != nil {
			return nil, r.err
		}
		if slug == "" || m.off+int64(m.n) > snap.size || m.line < 1 || !isLowerSet(tags) {
			return nil, errIndex
		}
		snap.slugs = append(snap.slugs, slug)
		snap.tags = append(snap.tags, tags)
		snap.meta = append(snap.meta, m)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errIndex
	}
	return snap, nil
}

// saveIndex writes the index file, if it can; a store that cannot (a
// read-only directory, say) works as well, only slower to open. The caller
// holds s.mu.
func (s *FileStore) saveIndex() {
	b := encodeIndex(&s.idx, s.offset, s.lines, s.crc)
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
	snap, err := decodeIndex(b)
	if err != nil {
		return
	}
	h := crc32.New(castagnoli)
	if n, err := io.Copy(h, io.NewSectionReader(s.f, 0, snap.size)); err != nil || n != snap.size || h.Sum32() != snap.crc {
		return
	}
	s.idx.grow(len(snap.meta))
	for i, m := range snap.meta {
		s.idx.putSlot(snap.slugs[i], snap.tags[i], m)
	}
	s.offset, s.lines, s.crc, s.unsaved = snap.size, snap.lines, snap.crc, 0
}
