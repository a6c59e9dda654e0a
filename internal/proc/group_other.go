//go:build !unix && !windows

package proc

import (
	"os"
	"os/exec"
	"sync/atomic"
)

// Group on systems without process groups or job objects covers only the
// command itself.
type Group struct{ p atomic.Pointer[os.Process] }

// NewGroup prepares cmd; there is nothing to prepare here.
func NewGroup(*exec.Cmd) (*Group, error) { return &Group{}, nil }

// Started records the started command p.
func (g *Group) Started(p *os.Process) error { g.p.Store(p); return nil }

// Terminate ends the command: p, or the one Started recorded when nil.
func (g *Group) Terminate(p *os.Process) error {
	if p == nil {
		p = g.p.Load()
	}
	if p == nil {
		return nil
	}
	return p.Kill()
}

// Kill is Terminate, since nothing softer reaches a tree here.
func (g *Group) Kill(p *os.Process) { _ = g.Terminate(p) }

// Close releases what the group holds.
func (g *Group) Close() {}

// id is 0: there is no group.
func (g *Group) id() int { return 0 }
