//go:build !unix

package guardrail_test

// cpuTime returns 0: the process's CPU time is not read on this system.
func cpuTime() int64 { return 0 }
