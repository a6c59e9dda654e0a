package main

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// hookProgram returns the program the agents' hooks run for the harnish at
// self: harnish-hook when it is installed beside self, executable and
// built from the same source as self, since it answers the same hook
// command lines and starts in about half the time (it links no plugin
// host); else self. A harnish-hook left from another build could judge by
// other rules than this harnish, so when the builds cannot be told apart
// (a local build without version control stamps, a modified tree) self
// answers its own hooks.
func hookProgram(self string) string { return hookBeside(self, sameBuild) }

// hookBeside is hookProgram with the test of the two builds given.
func hookBeside(self string, same func(a, b *debug.BuildInfo) bool) string {
	name := "harnish-hook"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	slim := filepath.Join(filepath.Dir(self), name)
	st, err := os.Stat(slim)
	if err != nil || !st.Mode().IsRegular() || runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0 {
		return self
	}
	a, err := buildinfo.ReadFile(self)
	if err != nil {
		return self
	}
	b, err := buildinfo.ReadFile(slim)
	if err != nil || !same(a, b) {
		return self
	}
	return slim
}

// sameBuild reports whether two Go programs were built from one known
// source (see buildSource) with the same toolchain and settings, as one go
// install of ./cmd/... builds them. It is a check against mistakes, not
// against forgery: who can write beside harnish can replace harnish.
func sameBuild(a, b *debug.BuildInfo) bool {
	src := buildSource(a)
	return src != "" && src == buildSource(b) && a.GoVersion == b.GoVersion && slices.Equal(a.Settings, b.Settings)
}

// buildSource names the source a program was built from: its module at a
// version (go install ...@v1.2.3, or a version go build took from version
// control), or else a clean checkout's revision; "" when the build does not
// say, or says the tree was modified.
func buildSource(bi *debug.BuildInfo) string {
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	m := bi.Main
	switch {
	case modified == "true" || strings.HasSuffix(m.Version, "+dirty"):
		return ""
	case m.Version != "" && m.Version != "(devel)":
		return m.Path + "@" + m.Version
	case rev != "" && modified == "false":
		return m.Path + "@" + rev
	}
	return ""
}
