package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// holders reads /proc: which of the files a live process has open, and
// whether a live git process has its working directory in one of dirs.
// known is false when /proc cannot be read, or a git process's directory
// cannot (another user's). Processes whose descriptors cannot be read
// (other users') are taken not to hold the files.
func holders(files, dirs []string) (open map[string]bool, gitInside, known bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false, false
	}
	open, known = map[string]bool{}, true
	for _, p := range procs {
		if strings.Trim(p.Name(), "0123456789") != "" {
			continue
		}
		pid := filepath.Join("/proc", p.Name())
		if comm, err := os.ReadFile(filepath.Join(pid, "comm")); err == nil && isGit(strings.TrimSpace(string(comm))) {
			cwd, err := os.Readlink(filepath.Join(pid, "cwd"))
			switch {
			case err == nil && slices.ContainsFunc(dirs, func(d string) bool { return within(d, cwd) }):
				return nil, true, true
			case err != nil && !errors.Is(err, os.ErrNotExist): // gone is fine
				known = false
			}
		}
		fds, _ := os.ReadDir(filepath.Join(pid, "fd"))
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(pid, "fd", fd.Name())); err == nil && slices.Contains(files, target) {
				open[target] = true
			}
		}
	}
	return open, false, known
}

// isGit reports whether a process's name is git's or one of its helpers'.
func isGit(comm string) bool { return comm == "git" || strings.HasPrefix(comm, "git-") }
