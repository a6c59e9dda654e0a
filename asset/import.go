package asset

import (
	"context"
	"fmt"
	"io"
	"os"
)

// Import records every record of the assets file at srcPath, such as
// another project's harnish-assets.jsonl, into dst, and returns how many it
// recorded. It reads the whole file strictly first (see [Decoder]): a line
// that does not decode is a [*CorruptError] naming srcPath and the line, and
// then nothing is recorded. Records keep their slugs, so a record replaces
// dst's asset of the same slug, and importing a file twice leaves dst's
// assets as after once. Into a [*FileStore], the records are recorded in
// one write (one rewrite, when some replace records it holds); into
// another Store, recorded one by one, and an error part-way
// leaves the records before it recorded.
func Import(ctx context.Context, dst Store, srcPath string) (int, error) {
	f, err := os.Open(srcPath)
	if err != nil {
		return 0, fmt.Errorf("asset: import: %w", err)
	}
	defer f.Close()
	var as []*Asset
	d := NewDecoder(f, srcPath)
	for {
		a, err := d.Decode()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
		as = append(as, a)
	}
	if fs, ok := dst.(*FileStore); ok {
		if same(fs.path, srcPath) {
			return 0, fmt.Errorf("%w: import: %s is the store itself", ErrInvalid, srcPath)
		}
		if err := fs.recordAll(ctx, as); err != nil {
			return 0, err
		}
		return len(as), nil
	}
	for i, a := range as {
		if err := dst.Record(ctx, a); err != nil {
			return i, err
		}
	}
	return len(as), nil
}

// same reports whether the paths name the same file.
func same(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
