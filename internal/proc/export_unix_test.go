//go:build unix

package proc

// SetWatchdog turns the groups' watchdogs on or off, for a benchmark of
// their cost; not for tests that run in parallel with others.
func SetWatchdog(on bool) { noWatchdog.Store(!on) }
