//go:build windows

package fsx

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code of a process that has not exited.
const stillActive = 259

// alive reports whether process pid runs; one it may not open does too.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER) // no such process
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) != nil || code == stillActive
}
