package plugins

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pinOpen on Linux copies f, hashing what it copies, into a sealed memfd
// and execs that through /proc/self/fd: the bytes run are the bytes hashed,
// whatever happens to the file on disk afterwards (a rename, a symlink
// flip, a rewrite in place), and nothing is written to disk. The child
// inherits the descriptor with the fork, and execve resolves the path
// before close-on-exec closes it. Scripts, whose interpreter would open the
// path after the exec closed it, and kernels without memfd get a copy in a
// private directory, as elsewhere.
func pinOpen(f *os.File, path string) (*pinned, []byte, error) {
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); forceCopy || n == 2 && string(magic[:]) == "#!" {
		return pinCopy(f, path)
	}
	mfd, err := unix.MemfdCreate("harnish-plugin", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return pinCopy(f, path)
	}
	// os/exec's child moves its files to fds 0..n and may park them just
	// above; keep ours well clear of both.
	fd, err := unix.FcntlInt(uintptr(mfd), unix.F_DUPFD_CLOEXEC, 64)
	unix.Close(mfd)
	if err != nil {
		return nil, nil, err
	}
	m := os.NewFile(uintptr(fd), path)
	sum, err := copyHashed(m, f)
	f.Close()
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE)
	}
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	self := fmt.Sprintf("/proc/self/fd/%d", fd)
	if _, err := os.Stat(self); err != nil {
		if _, err := m.Seek(0, io.SeekStart); err != nil {
			m.Close()
			return nil, nil, err
		}
		return pinCopy(m, path) // closes m
	}
	return &pinned{
		path:    self,
		started: func() { m.Close() },
		remove:  func() {},
	}, sum, nil
}
