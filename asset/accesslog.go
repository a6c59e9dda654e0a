package asset

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// The access log keeps the accesses queries mark beside the records (see
// [FileStore]): a line {"slug":S,"at":T} for each asset a query returned
// with MarkAccessed. It is harnish's own file; the engine never reads it.

// accessFoldMin is the size below which the access log is never folded into
// the records.
const accessFoldMin = 16 << 10

// accessLine is a line of the access log.
type accessLine struct {
	Slug string    `json:"slug"`
	At   time.Time `json:"at"`
}

// catchUpAccess reads what was added to the access log since last time,
// starting over when it is another file (a fold removed it). The caller
// holds s.mu.
func (s *FileStore) catchUpAccess(complete bool) error {
	f, err := os.Open(s.accessLog)
	if errors.Is(err, fs.ErrNotExist) {
		if s.acc.fi != nil {
			s.acc = accessState{}
			clear(s.idx.acc)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("asset: %w", err)
	}
	if s.acc.fi == nil || !os.SameFile(fi, s.acc.fi) || fi.Size() < s.acc.offset {
		s.acc = accessState{}
		clear(s.idx.acc)
	}
	s.acc.fi = fi
	if fi.Size() == s.acc.offset {
		return nil
	}
	buf := make([]byte, fi.Size()-s.acc.offset)
	if _, err := f.ReadAt(buf, s.acc.offset); err != nil && err != io.EOF {
		return fmt.Errorf("asset: %w", err)
	}
	n, lines, err := decodeAccess(buf, s.accessLog, s.acc.lines+1, complete, s.idx.acc)
	s.acc.offset += int64(n)
	s.acc.lines += lines
	return err
}

// decodeAccess adds the accesses of the complete lines of data, numbering
// the first firstLine, to acc. With complete, data must end in '\n'. It
// returns the bytes consumed and the lines read.
func decodeAccess(data []byte, name string, firstLine int, complete bool, acc map[string]accessDelta) (consumed, lines int, err error) {
	for len(data) > consumed {
		nl := bytes.IndexByte(data[consumed:], '\n')
		if nl < 0 {
			if complete {
				return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: errTorn}
			}
			return consumed, lines, nil
		}
		var l accessLine
		d := json.NewDecoder(bytes.NewReader(data[consumed : consumed+nl]))
		d.DisallowUnknownFields()
		err := d.Decode(&l)
		switch {
		case err != nil:
		case d.More():
			err = errors.New("more than one value on the line")
		case l.Slug == "" || l.At.IsZero():
			err = errors.New(`want "slug" and "at"`)
		}
		if err != nil {
			return consumed, lines, &CorruptError{Path: name, Line: firstLine + lines, Err: fmt.Errorf("asset: access log: %w", err)}
		}
		e := acc[l.Slug]
		e.n++
		if l.At.After(e.last) {
			e.last = l.At
		}
		acc[l.Slug] = e
		consumed += nl + 1
		lines++
	}
	return consumed, lines, nil
}

// markAccessed records an access of each of hits at the store's now, in the
// access log, and sets their AccessCount and LastAccessed. When the log has
// outgrown its share of the store, it is folded into the records.
func (s *FileStore) markAccessed(ctx context.Context, hits []*Asset) error {
	now := s.now().UTC()
	return s.locked(ctx, func() error {
		var buf []byte
		for _, h := range hits {
			if _, ok := s.idx.slot(h.Slug); !ok {
				continue // purged since the query
			}
			b, err := json.Marshal(accessLine{Slug: h.Slug, At: now})
			if err != nil {
				return fmt.Errorf("asset: %w", err)
			}
			buf = append(append(buf, b...), '\n')
		}
		if len(buf) == 0 {
			return nil
		}
		fi, err := appendFile(s.accessLog, buf, 0o644)
		if err != nil {
			return err
		}
		if err := s.catchUpAccess(true); err != nil {
			return err
		}
		for _, h := range hits {
			if i, ok := s.idx.slot(h.Slug); ok {
				h.AccessCount, h.LastAccessed = s.idx.access(i)
			}
		}
		if fi.Size() > max(accessFoldMin, s.offset/8) {
			return s.rewrite(func(int) bool { return true }, nil, nil)
		}
		return nil
	})
}
