package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe raises the pipe's capacity to readBuf where the system allows, so
// a fast writer and the reader wake each other less often. Failing that, the
// pipe keeps its default size.
func growPipe(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, readBuf) })
	}
}
