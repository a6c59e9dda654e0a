package plugins

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pinOpen on Linux hashes f and execs it through /proc/self/fd: the child
// inherits the descriptor with the fork, and execve resolves the path
// before close-on-exec closes it. A write into the same file between the
// hash and the exec changes its ctime, checked once the process started.
// Scripts, and systems without /proc, get a copy, as elsewhere.
func pinOpen(f *os.File, path string) (*pinned, []byte, error) {
	// A script's interpreter would open /proc/self/fd/N after the exec
	// closed it: scripts run from a copy.
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); forceCopy || n == 2 && string(magic[:]) == "#!" {
		return pinCopy(f, path)
	}
	// os/exec's child moves its files to fds 0..n and may park them just
	// above; keep ours well clear of both.
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 64)
	if err != nil {
		return nil, nil, err
	}
	f.Close()
	f = os.NewFile(uintptr(fd), path)
	var before syscall.Stat_t
	if err := syscall.Fstat(fd, &before); err != nil {
		f.Close()
		return nil, nil, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, nil, err
	}
	self := fmt.Sprintf("/proc/self/fd/%d", fd)
	if _, err := os.Stat(self); err != nil {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, nil, err
		}
		return pinCopy(f, path)
	}
	return &pinned{
		path: self,
		started: func() error {
			defer f.Close()
			var after syscall.Stat_t
			if err := syscall.Fstat(fd, &after); err != nil {
				return err
			}
			if after.Ctim != before.Ctim || after.Size != before.Size {
				return errBinaryChanged
			}
			return nil
		},
		remove: func() {},
	}, h.Sum(nil), nil
}
