//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// group is the command's process group: the command leads it, and every
// descendant that does not leave it on purpose is in it.
type group struct{}

func newGroup(cmd *exec.Cmd) (*group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &group{}, nil
}

func (g *group) started(*os.Process) error { return nil }

// terminate asks the whole group to stop.
func (g *group) terminate(p *os.Process) error {
	return signalGroup(p, syscall.SIGTERM)
}

// kill ends whatever is left of the group.
func (g *group) kill(p *os.Process) { _ = signalGroup(p, syscall.SIGKILL) }

func (g *group) close() {}

func signalGroup(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}
