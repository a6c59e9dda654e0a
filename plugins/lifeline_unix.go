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

// dieWithHost ends the plugin's process group when the plugin leads it,
// taking whatever it started along; else just the plugin. (A harnish host
// puts it in a group its watchdog leads, which ends the group when the host
// dies.)
func dieWithHost() {
	if syscall.Getpgrp() == os.Getpid() {
		_ = syscall.Kill(0, syscall.SIGKILL)
	}
	os.Exit(3)
}
