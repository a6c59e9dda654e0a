//go:build unix

package hooksock

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"syscall"
)

// exchange connects to the socket at path, writes req, and reads the
// answer.
func exchange(path string, req []byte) (*Answer, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, fmt.Errorf("hooksock: %w", err)
	}
	syscall.CloseOnExec(fd)
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			return nil, ErrAbsent
		}
		return nil, fmt.Errorf("hooksock: connect %s: %w", path, err)
	}
	if err := CheckPeer(uintptr(fd)); err != nil {
		return nil, err
	}
	for len(req) > 0 {
		n, err := syscall.Write(fd, req)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("hooksock: %w", err)
		}
		req = req[n:]
	}
	a, err := ReadAnswer(bufio.NewReader(fdReader(fd)))
	if err != nil {
		return nil, fmt.Errorf("hooksock: the answer: %w", err)
	}
	return a, nil
}

// fdReader reads a file descriptor with plain read calls.
type fdReader int

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
