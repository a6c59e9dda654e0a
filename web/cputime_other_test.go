//go:build !unix

package web_test

import "time"

// cpuTime is not measured here; the benchmark's CPU metrics read zero.
func cpuTime() time.Duration { return 0 }
