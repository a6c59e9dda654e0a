//go:build unix

package plugins

import (
	"os"
	"os/exec"
	"syscall"
)

// group is the plugin's process group: the plugin leads it, so killing the
// group kills whatever the plugin started too. (internal/proc has the same
// for checks, unexported.)
type group struct{ pgid int }

func newGroup(cmd *exec.Cmd) (*group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return &group{}, nil
}

func (g *group) started(p *os.Process) error {
	g.pgid = p.Pid
	return nil
}

// kill ends the whole group; a group already gone is not an error.
func (g *group) kill() {
	if g.pgid > 0 {
		_ = syscall.Kill(-g.pgid, syscall.SIGKILL)
	}
}

func (g *group) close() {}
