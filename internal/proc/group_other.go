//go:build !unix && !windows

package proc

import (
	"os"
	"os/exec"
)

// group on systems without process groups or job objects covers only the
// command itself.
type group struct{}

func newGroup(*exec.Cmd) (*group, error) { return &group{}, nil }

func (g *group) started(*os.Process) error { return nil }

func (g *group) terminate(p *os.Process) error { return p.Kill() }

func (g *group) kill(*os.Process) {}

func (g *group) close() {}
