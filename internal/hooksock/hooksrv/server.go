// Package hooksrv is the run's side of package hooksock: the socket a run
// listens on for its agents' pre-tool-use hooks, and the server that
// answers them. It is apart from hooksock so the hook process, which links
// hooksock, does not link package net.
package hooksrv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/harnish/harnish/internal/hooksock"
)

var (
	// ErrInUse is a socket another live process answers on.
	ErrInUse = errors.New("hooksrv: another process answers on the socket")
	// ErrPathTooLong is a socket path longer than the system takes.
	ErrPathTooLong = errors.New("hooksrv: the socket path is too long for this system")
)

// Listen listens on the socket at path, for one run: it makes path's
// directory (mode 0700, which must be this user's and no symbolic link) and
// the socket (mode 0600). A socket left there by a run that crashed (no one
// answers on it) is replaced; a live one is [ErrInUse], and anything else
// at path is an error, left alone. Closing the listener removes the socket.
func Listen(path string) (net.Listener, error) {
	if runtime.GOOS == "windows" {
		return nil, errors.New("hooksrv: hooks ask the run over a unix socket only on unix systems")
	}
	if limit := maxPathLen(); len(path) > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrPathTooLong, path, len(path), limit)
	}
	dir := filepath.Dir(path)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("hooksrv: %w", err)
	}
	st, err := os.Lstat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("hooksrv: %w", err)
	case !st.IsDir():
		return nil, fmt.Errorf("hooksrv: %s is not a directory", dir)
	case !ownedByMe(st):
		return nil, fmt.Errorf("hooksrv: %s belongs to another user", dir)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("hooksrv: %w", err)
		}
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("hooksrv: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("hooksrv: %w", err)
	}
	return l, nil
}

// maxPathLen is the longest socket path the system takes: sun_path less
// its terminating NUL.
func maxPathLen() int {
	if runtime.GOOS == "linux" {
		return 107
	}
	return 103 // the BSDs and macOS
}

// removeStale removes the socket at path when no one answers on it.
func removeStale(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("hooksrv: %w", err)
	case st.Mode().Type() != fs.ModeSocket:
		return fmt.Errorf("hooksrv: %s is there and is not a socket; it is left alone", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: %s", ErrInUse, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("hooksrv: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("hooksrv: removing a stale socket: %w", err)
	}
	return nil
}

// Handler judges one call. It must be safe for concurrent use.
type Handler func(ctx context.Context, r *hooksock.Request) *hooksock.Answer

// Server answers the calls that come to a listener; see [Serve].
type Server struct {
	l      net.Listener
	handle Handler
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{} // bounds the calls judged at once
	wg     sync.WaitGroup
	once   sync.Once
}

// MaxConcurrent is how many calls a Server judges at once; more wait to be
// accepted.
const MaxConcurrent = 32

// ConnTimeout bounds one call on the server's side: reading it, judging it
// and writing the answer.
const ConnTimeout = 30 * time.Second

// Serve answers the calls that come to l with handle, each in a goroutine
// of its own, until Close; ctx bounds the handlers too. A caller that runs
// as another user (where the system tells) is turned away unanswered; a
// request that does not decode is dropped. A panic in handle is recovered
// and answered as a blocked call.
func Serve(ctx context.Context, l net.Listener, handle Handler) *Server {
	s := &Server{l: l, handle: handle, slots: make(chan struct{}, MaxConcurrent)}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.wg.Add(1)
	go s.accept()
	return s
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		select {
		case s.slots <- struct{}{}:
		case <-s.ctx.Done():
			return
		}
		c, err := s.l.Accept()
		if err != nil {
			<-s.slots
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return
			}
			// A transient failure (out of descriptors): wait a little, go on.
			select {
			case <-time.After(10 * time.Millisecond):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			defer c.Close()
			s.serve(c)
		}()
	}
}

func (s *Server) serve(c net.Conn) {
	if err := checkPeer(c); err != nil {
		return
	}
	c.SetDeadline(time.Now().Add(ConnTimeout))
	req, err := hooksock.ReadRequest(bufio.NewReaderSize(c, 32<<10))
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, ConnTimeout)
	defer cancel()
	c.Write(hooksock.AppendAnswer(nil, s.judge(ctx, req)))
}

func (s *Server) judge(ctx context.Context, req *hooksock.Request) (a *hooksock.Answer) {
	defer func() {
		if r := recover(); r != nil {
			a = &hooksock.Answer{Code: 2, Message: fmt.Sprintf("harnish: cannot judge the tool call: panic: %v\n", r)}
		}
	}()
	a = s.handle(ctx, req)
	if a == nil {
		a = &hooksock.Answer{Code: 2, Message: "harnish: cannot judge the tool call: no answer\n"}
	}
	return a
}

// Close stops accepting, removes the socket, and waits for the calls being
// judged, whose contexts it cancels.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		s.cancel()
		err = s.l.Close()
		s.wg.Wait()
	})
	return err
}

// checkPeer is [hooksock.CheckPeer] on c.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("%w: not a unix socket", hooksock.ErrPeer)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var peerErr error
	if err := raw.Control(func(fd uintptr) { peerErr = hooksock.CheckPeer(fd) }); err != nil {
		return err
	}
	return peerErr
}
