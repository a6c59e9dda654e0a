package plugins

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// copyHashed writes every byte and hashes exactly what it wrote, whatever
// the size against its chunk, and reports a failing reader or writer.
func TestCopyHashed(t *testing.T) {
	for _, n := range []int{0, 1, copyChunk - 1, copyChunk, copyChunk + 1, 5*copyChunk + 7} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		var dst bytes.Buffer
		// HalfReader makes ReadFull gather each chunk from several reads.
		src := io.Reader(bytes.NewReader(data))
		if n < 3*copyChunk {
			src = iotest.HalfReader(src)
		}
		got, err := copyHashed(&dst, src)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		want := sha256.Sum256(data)
		if !bytes.Equal(got, want[:]) {
			t.Errorf("%d bytes: hash %x, want %x", n, got, want)
		}
		if !bytes.Equal(dst.Bytes(), data) {
			t.Errorf("%d bytes: wrote %d bytes that differ from the source", n, dst.Len())
		}
	}
	boom := errors.New("boom")
	big := bytes.Repeat([]byte("x"), 3*copyChunk)
	if _, err := copyHashed(io.Discard, io.MultiReader(bytes.NewReader(big), iotest.ErrReader(boom))); !errors.Is(err, boom) {
		t.Errorf("failing reader: err = %v, want %v", err, boom)
	}
	if _, err := copyHashed(&failAfter{n: copyChunk + 1, err: boom}, bytes.NewReader(big)); !errors.Is(err, boom) {
		t.Errorf("failing writer: err = %v, want %v", err, boom)
	}
}

// failAfter accepts n bytes, then fails with err.
type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// Only a regular file is pinned: a directory, or a FIFO (which would hold
// the start waiting for a writer), is refused at once.
func TestPinRefusesNonRegular(t *testing.T) {
	paths := map[string]string{"directory": t.TempDir()}
	if fifo := makeFIFO(t); fifo != "" {
		paths["FIFO"] = fifo
	}
	for name, path := range paths {
		done := make(chan error, 1)
		go func() {
			_, err := pinBinary("p", path, nil)
			done <- err
		}()
		select {
		case err := <-done:
			var pe *Error
			if !errors.As(err, &pe) || pe.Kind != KindUnavailable || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: err = %v, want unavailable: not a regular file", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: pinning did not return", name)
		}
	}
}
