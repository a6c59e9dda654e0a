//go:build unix

package web_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system: on a
// machine other work shares, it measures the work itself, where wall time
// also counts the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
