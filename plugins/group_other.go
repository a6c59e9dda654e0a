//go:build !unix && !windows

package plugins

import (
	"os"
	"os/exec"
)

// group on systems without process groups or job objects covers only the
// plugin itself.
type group struct{ p *os.Process }

func newGroup(*exec.Cmd) (*group, error) { return &group{}, nil }

func (g *group) started(p *os.Process) error { g.p = p; return nil }

func (g *group) kill() {
	if g.p != nil {
		_ = g.p.Kill()
	}
}

func (g *group) close() {}
