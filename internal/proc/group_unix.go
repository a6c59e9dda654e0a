//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// Group is a command's process group: the command leads it, and every
// descendant that does not leave it on purpose is in it, so ending the
// group ends the whole tree.
type Group struct{ pgid atomic.Int64 }

// NewGroup prepares cmd, before it starts, to lead a group of its own.
func NewGroup(cmd *exec.Cmd) (*Group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return &Group{}, nil
}

// Started records the started leader p.
func (g *Group) Started(p *os.Process) error {
	g.pgid.Store(int64(p.Pid))
	return nil
}

// Terminate asks the whole group to stop. p is the leader when the caller
// has it (the group may not have been told yet); nil means the one Started
// recorded.
func (g *Group) Terminate(p *os.Process) error { return g.signal(p, syscall.SIGTERM) }

// Kill ends whatever is left of the group; p is as for Terminate. A group
// already gone, or not started, is no error.
func (g *Group) Kill(p *os.Process) { _ = g.signal(p, syscall.SIGKILL) }

// Close releases what the group holds.
func (g *Group) Close() {}

func (g *Group) signal(p *os.Process, sig syscall.Signal) error {
	pgid := int(g.pgid.Load())
	if p != nil {
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
