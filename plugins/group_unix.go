//go:build unix

package plugins

import (
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
)

// group is the plugin's process group: the plugin leads it, so killing the
// group kills whatever the plugin started too. (internal/proc has the same
// for checks, unexported.)
type group struct{ pgid atomic.Int64 }

func newGroup(cmd *exec.Cmd) (*group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return &group{}, nil
}

func (g *group) started(p *os.Process) error {
	g.pgid.Store(int64(p.Pid))
	return nil
}

// kill ends the whole group; a group already gone is not an error. It may
// run while the plugin starts, on a cancellation.
func (g *group) kill() {
	if pgid := int(g.pgid.Load()); pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func (g *group) close() {}
