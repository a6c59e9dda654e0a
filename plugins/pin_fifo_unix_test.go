//go:build unix

package plugins

import (
	"path/filepath"
	"syscall"
	"testing"
)

func makeFIFO(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
