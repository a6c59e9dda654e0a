//go:build unix

package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
)

// Group is a command's process group: every descendant that does not leave
// it on purpose is in it, so ending the group ends the whole tree.
//
// The group is led by a watchdog, a shell started before the command, whose
// stdin is the read end of a pipe only this process can write to.
// When this process dies, however (SIGKILL, the OOM killer), the pipe reads
// EOF and the watchdog kills its group: the command and all it started.
// Starting it first leaves no moment when the command runs unwatched, and
// while it lives, unreaped until [Group.Close], the group's ID cannot be
// reused, so signalling the group never reaches a stranger. Where there is
// no /bin/sh, the command leads its group itself, unwatched.
type Group struct {
	wd *os.Process // the watchdog; nil without one

	mu     sync.RWMutex // held for reading while signalling, so none follows Close
	pgid   int          // 0 until known; 0 again once closed
	closed bool
}

// watchdogScript ignores the signals a group gets on a timeout or from a
// terminal, so that only harnish's death or SIGKILL ends it; kill 0 is the
// whole group.
const watchdogScript = `trap '' HUP INT TERM; read _; kill -9 0`

// noWatchdog turns the watchdogs off, for tests that compare the cost.
var noWatchdog atomic.Bool

// lifeline is the pipe the watchdogs watch: they hold the read end, and only
// this process the write end, never closed and not inherited (O_CLOEXEC), so
// that only this process's death closes it.
var lifeline struct {
	sync.Mutex
	r, w *os.File
}

// NewGroup prepares cmd, before it starts, to go into a new group, and
// starts the group's watchdog. Where there is no /bin/sh, the command leads
// the group itself, unwatched. Call Close once done with the group.
func NewGroup(cmd *exec.Cmd) (*Group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	g := &Group{}
	if noWatchdog.Load() {
		return g, nil
	}
	wd, err := startWatchdog()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return g, nil
	case err != nil:
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	g.wd, g.pgid = wd, wd.Pid
	cmd.SysProcAttr.Pgid = wd.Pid
	return g, nil
}

func startWatchdog() (*os.Process, error) {
	r, err := lifelineEnd()
	if err != nil {
		return nil, err
	}
	return os.StartProcess("/bin/sh", []string{"harnish-watchdog", "-c", watchdogScript}, &os.ProcAttr{
		Dir:   "/", // pins no directory
		Files: []*os.File{r},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
}

// lifelineEnd returns the lifeline's read end, making the pipe the first
// time (and again after a failure, such as too many open files).
func lifelineEnd() (*os.File, error) {
	lifeline.Lock()
	defer lifeline.Unlock()
	if lifeline.r == nil {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		r.Fd() // makes it blocking: a watchdog's read would fail at once on a non-blocking one
		lifeline.r, lifeline.w = r, w
	}
	return lifeline.r, nil
}

// Started records the started command p; without a watchdog it leads the
// group.
func (g *Group) Started(p *os.Process) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pgid == 0 && !g.closed {
		g.pgid = p.Pid
	}
	return nil
}

// Terminate asks the whole group to stop. p is the command when the caller
// has it (Started may not have been called yet); nil means the group as
// known.
func (g *Group) Terminate(p *os.Process) error { return g.signal(p, syscall.SIGTERM) }

// Kill ends whatever is left of the group; p is as for Terminate. A group
// already gone, or not started, is no error.
func (g *Group) Kill(p *os.Process) { _ = g.signal(p, syscall.SIGKILL) }

// Close ends what is left of a watched group, as closing a Windows job does,
// and has the watchdog reaped, which frees the group's ID; the group is not
// signalled after. It is safe to call more than once.
func (g *Group) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.wd != nil {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
		go g.wd.Wait() // off the caller's path: nothing waits for the ID
	}
	g.wd, g.pgid, g.closed = nil, 0, true
}

// id is the group's ID; 0 when not known yet or closed.
func (g *Group) id() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.pgid
}

func (g *Group) signal(p *os.Process, sig syscall.Signal) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	pgid := g.pgid
	if pgid == 0 && p != nil && !g.closed {
		pgid = p.Pid
	}
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
