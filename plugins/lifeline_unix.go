//go:build unix

package plugins

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passLifeline hands r to the child as its first extra file, fd 3.
func passLifeline(cmd *exec.Cmd, r *os.File) {
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	fd := 2 + len(cmd.ExtraFiles)
	cmd.Env = append(cmd.Env, lifelineEnv+"="+strconv.Itoa(fd))
}

func lifelineFile(v string) *os.File {
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "lifeline")
}

// dieWithHost ends the plugin's process group when the plugin leads it (the
// host starts it so), taking whatever it started along; else just the plugin.
func dieWithHost() {
	if syscall.Getpgrp() == os.Getpid() {
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	os.Exit(3)
}
