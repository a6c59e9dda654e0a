//go:build unix

package guardrail_test

import "syscall"

// cpuTime returns the CPU time the process has used, in nanoseconds (user
// and system, every thread), or 0 where it is not known.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
