package hooksock

import (
	"errors"
	"path/filepath"
	"time"
)

// EnvSocket names the socket of the run that started the agent; a hook
// process that finds it set sends its call there. An open run sets it in
// its own environment, which its agents and their hooks inherit.
const EnvSocket = "HARNISH_HOOK_SOCKET"

// Dir and Name place a run's socket under its state directory:
// STATEDIR/hook/sock, the directory of mode 0700.
const (
	Dir  = "hook"
	Name = "sock"
)

// Path returns the socket path of the run whose state is in stateDir.
func Path(stateDir string) string { return filepath.Join(stateDir, Dir, Name) }

var (
	// ErrAbsent is a socket that is not there: no run listens, and the
	// hook judges the call itself.
	ErrAbsent = errors.New("hooksock: no socket")
	// ErrPeer is a peer that runs as another user.
	ErrPeer = errors.New("hooksock: the peer runs as another user")
	// ErrTimeout is a server that did not answer in time.
	ErrTimeout = errors.New("hooksock: no answer in time")
)

// Ask sends r to the socket at path and returns its answer, within
// timeout. A socket that is not there is [ErrAbsent]; any other error (no
// one listens on it, a peer of another user, an answer that does not
// decode, [ErrTimeout]) is the server's failure, for the caller to fail
// closed on.
//
// Ask talks through plain system calls, not package net, so the hook
// process that links it starts without net's initialisation. An exchange
// that times out is abandoned, blocked in a goroutine: Ask is for a
// process that exits soon after.
func Ask(path string, r *Request, timeout time.Duration) (*Answer, error) {
	type result struct {
		a   *Answer
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := exchange(path, AppendRequest(nil, r))
		done <- result{a, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-done:
		return res.a, res.err
	case <-t.C:
		return nil, ErrTimeout
	}
}
