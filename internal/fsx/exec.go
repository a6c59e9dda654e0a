package fsx

import (
	"os"
	"syscall"
)

// NoFork runs f while no process can be started (it holds
// syscall.ForkLock, which every fork takes on Unix; Windows handles are not
// inherited unless asked for, and there it only runs f). A file f opens for writing and
// closes is then never inherited by a child started meanwhile, so a program
// written there can be run as soon as f returns: a child still holding it
// open for writing would make the exec fail with "text file busy"
// (ETXTBSY). f should be quick, as forks wait, and must not start a
// process or make a pipe or socket (some systems take the lock for those
// too, which would deadlock).
func NoFork(f func() error) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	return f()
}

// WriteExecutable writes data to path with mode perm under [NoFork], so the
// program can be run at once, even while other goroutines start processes.
func WriteExecutable(path string, data []byte, perm os.FileMode) error {
	return NoFork(func() error { return os.WriteFile(path, data, perm) })
}
