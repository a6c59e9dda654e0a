//go:build windows

package plugins

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// passLifeline lets the child inherit r's handle; Windows has no numbered
// extra files, so the variable carries the handle's value.
func passLifeline(cmd *exec.Cmd, r *os.File) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	h := syscall.Handle(r.Fd())
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
	cmd.Env = append(cmd.Env, lifelineEnv+"="+strconv.FormatUint(uint64(h), 10))
}

func lifelineFile(v string) *os.File {
	h, err := strconv.ParseUint(v, 10, 64)
	if err != nil || h == 0 {
		return nil
	}
	return os.NewFile(uintptr(h), "lifeline")
}

// dieWithHost exits; the host's job object already holds the plugin's
// children and dies with the host.
func dieWithHost() { os.Exit(3) }
