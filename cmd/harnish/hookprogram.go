package main

import (
	"os"
	"path/filepath"
	"runtime"
)

// hookProgram returns the program the agents' hooks run for the harnish at
// self: harnish-hook when it is installed beside self and executable, since
// it answers the same hook command lines and starts in about half the time
// (it links no plugin host), else self.
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
	return slim
}
