package main

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// hookProgram returns the program the agents' hooks run for the harnish at
// self: harnish-hook when it is installed beside self, executable and built
// with self, since it answers the same hook command lines and starts in
// about half the time (it links no plugin host), else self. A harnish-hook
// left from another build could judge by other rules than this harnish.
func hookProgram(self string) string {
	name := "harnish-hook"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	slim := filepath.Join(filepath.Dir(self), name)
	st, err := os.Stat(slim)
	if err != nil || !st.Mode().IsRegular() || runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0 {
		return self
	}
	if !sameBuild(self, slim) {
		return self
	}
	return slim
}

// sameBuild reports whether the Go programs at a and b were built from the
// same module version with the same toolchain and settings (flags, tags,
// VCS revision), as one go install of ./cmd/... builds them.
func sameBuild(a, b string) bool {
	ia, err := buildinfo.ReadFile(a)
	if err != nil {
		return false
	}
	ib, err := buildinfo.ReadFile(b)
	if err != nil {
		return false
	}
	ma, mb := ia.Main, ib.Main
	return ia.GoVersion == ib.GoVersion && ma.Path == mb.Path && ma.Version == mb.Version && ma.Sum == mb.Sum &&
		slices.Equal(ia.Settings, ib.Settings)
}
