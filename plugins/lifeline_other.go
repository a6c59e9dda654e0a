//go:build !unix && !windows

package plugins

import (
	"os"
	"os/exec"
)

// Systems without inheritable pipes get no lifeline.
func passLifeline(*exec.Cmd, *os.File) {}

func lifelineFile(string) *os.File { return nil }

func dieWithHost() { os.Exit(3) }
