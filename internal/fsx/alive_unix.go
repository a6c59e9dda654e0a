//go:build unix

package fsx

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists; one of another user does too.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
