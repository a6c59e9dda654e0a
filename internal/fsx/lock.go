package fsx

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrLocked reports that another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// HeldError reports a lock held by another process; it matches ErrLocked.
type HeldError struct {
	Path string
	PID  int // the holder's process ID; 0 when unknown
}

func (e *HeldError) Error() string {
	if e.PID != 0 {
		return fmt.Sprintf("%s is locked by process %d", e.Path, e.PID)
	}
	return e.Path + " is locked by another process"
}

// Is matches ErrLocked.
func (e *HeldError) Is(target error) bool { return target == ErrLocked }

// Lock is an exclusive advisory lock on a file, held until Unlock or until the
// process dies (the kernel releases it, so a crash never leaves a stale lock).
type Lock struct {
	f *os.File
}

// TryLock takes the lock on path without waiting, creating the file if needed,
// and writes this process's ID into it for the message others get. When the
// lock is held, the error wraps ErrLocked and names the holder's PID if known.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, &HeldError{Path: path, PID: readPID(path)}
		}
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. It is safe to call more than once.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
