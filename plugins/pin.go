package plugins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/harnish/harnish/internal/fsx"
)

// pinned is a plugin binary checked against its checksum and held so that
// the file run is the file hashed: a path swapped, a symlink flipped or a
// file rewritten after the check does not reach exec.
type pinned struct {
	// path is what to exec: a sealed memfd on Linux, a private copy
	// elsewhere.
	path string
	// started runs once the process has been started (or failed to): it
	// drops what only the exec needed.
	started func()
	// remove runs once the process is dead.
	remove func()
}

// afterHash, when set, runs between the checksum and the start; tests use
// it to swap the binary at the worst moment.
var afterHash func(path string)

// forceCopy makes Linux pin by copy too, so tests cover both ways.
var forceCopy bool

// pinBinary opens path once, hashes that open file and returns what to
// exec; a checksum other than want is a [KindChecksum] error naming both.
func pinBinary(name, path string, want []byte) (*pinned, error) {
	fault := func(k Kind, err error) error { return &Error{Plugin: name, Kind: k, Err: err} }
	// Only a regular file: opening a FIFO would wait for a writer for ever.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fault(KindUnavailable, fmt.Errorf("%s is not a regular file", path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fault(KindUnavailable, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fault(KindUnavailable, fmt.Errorf("%s is not a regular file", path))
	}
	p, got, err := pinOpen(f, path)
	if err != nil {
		f.Close()
		return nil, fault(KindUnavailable, err)
	}
	p.started = sync.OnceFunc(p.started)
	p.remove = sync.OnceFunc(p.remove)
	if !bytes.Equal(got, want) {
		p.started()
		p.remove()
		return nil, fault(KindChecksum, fmt.Errorf("%s has sha256 %s, the manifest says %s", path, hex.EncodeToString(got), hex.EncodeToString(want)))
	}
	if afterHash != nil {
		afterHash(path)
	}
	return p, nil
}

// pinCopy copies f, hashing what it copies, into a private directory, and
// pins the copy; f is closed.
func pinCopy(f *os.File, path string) (*pinned, []byte, error) {
	defer f.Close()
	// Read and hashed into memory first: the copy is run next, so no
	// process may start while it is open for writing (fsx.NoFork), and a
	// slow source must not hold up every process start of the host.
	var image bytes.Buffer
	sum, err := copyHashed(&image, f)
	if err != nil {
		return nil, nil, err
	}
	dir, err := fsx.MkdirTempOwned("", "harnish-plugin-")
	if err != nil {
		return nil, nil, err
	}
	// The base name is kept: it is the plugin's argv[0], and Windows runs
	// only names ending in .exe.
	dst := filepath.Join(dir, filepath.Base(path))
	if err := fsx.WriteExecutable(dst, image.Bytes(), 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return &pinned{
		path:    dst,
		started: func() {},
		remove:  func() { os.RemoveAll(dir) },
	}, sum, nil
}

// copyChunk is the unit copyHashed reads, writes and hashes.
const copyChunk = 1 << 20

// copyHashed copies src to dst and returns the SHA-256 of the bytes
// written. The hash, which costs most, runs beside the copy, on another
// core where there is one: a binary of tens of megabytes starts that much
// sooner. A buffer goes back to the reader only once it is hashed, so what
// is hashed is what was written.
func copyHashed(dst io.Writer, src io.Reader) ([]byte, error) {
	const depth = 4
	free := make(chan []byte, depth)
	for range depth {
		free <- make([]byte, copyChunk)
	}
	written := make(chan []byte, depth)
	h := sha256.New()
	hashed := make(chan struct{})
	go func() {
		defer close(hashed)
		for b := range written {
			h.Write(b)
			free <- b[:cap(b)]
		}
	}()
	// Deferred too, so that a panicking writer does not leave the hasher
	// behind.
	finish := sync.OnceFunc(func() {
		close(written)
		<-hashed
	})
	defer finish()
	for {
		b := <-free
		n, err := io.ReadFull(src, b)
		if n > 0 {
			if _, werr := dst.Write(b[:n]); werr != nil {
				return nil, werr
			}
			written <- b[:n]
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	finish()
	return h.Sum(nil), nil
}
