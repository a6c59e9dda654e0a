package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/harnish/harnish/internal/fsx"
)

// The harnish-hook beside harnish is taken only when it is one, built from
// the same known source as harnish: a local build without version control
// stamps cannot tell, and harnish answers its own hooks.
func TestHookProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	slimName := "harnish-hook"
	if runtime.GOOS == "windows" {
		slimName += ".exe"
	}
	// harnish and harnish-hook from one go build, without VCS stamps: as
	// alike as two builds get, and still not known to be the same source.
	bins := t.TempDir()
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bins+string(filepath.Separator), ".", "../harnish-hook")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(bins, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	harnish, slimBin := read("harnish"+exeSuffix()), read(slimName)
	script := []byte("#!/bin/sh\n")
	same := func(a, b *debug.BuildInfo) bool { return true } // builds taken as one: the other checks alone
	tests := []struct {
		name     string
		place    func(path string) error // puts what lies where harnish-hook would
		same     func(a, b *debug.BuildInfo) bool
		wantSlim bool
		unixOnly bool // Windows has no executable bit
	}{
		{name: "none beside", place: func(string) error { return nil }, same: same},
		{name: "unstamped build beside", place: func(p string) error { return fsx.WriteExecutable(p, slimBin, 0o755) }, same: sameBuild},
		{name: "the same build beside", place: func(p string) error { return fsx.WriteExecutable(p, slimBin, 0o755) }, same: same, wantSlim: true},
		{name: "not executable", unixOnly: true, place: func(p string) error { return os.WriteFile(p, slimBin, 0o644) }, same: same},
		{name: "not a Go program", place: func(p string) error { return fsx.WriteExecutable(p, script, 0o755) }, same: same},
		{name: "a directory of that name", place: func(p string) error { return os.Mkdir(p, 0o755) }, same: same},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("no executable bit")
			}
			dir := t.TempDir()
			self, slim := filepath.Join(dir, "harnish"+exeSuffix()), filepath.Join(dir, slimName)
			if err := fsx.WriteExecutable(self, harnish, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.place(slim); err != nil {
				t.Fatal(err)
			}
			want := self
			if tt.wantSlim {
				want = slim
			}
			if got := hookBeside(self, tt.same); got != want {
				t.Errorf("hookBeside(%q) = %q, want %q", self, got, want)
			}
		})
	}
}

func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// sameBuild trusts a known source only: a module version or a clean
// checkout's revision, with the same toolchain and settings.
func TestSameBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		out := []debug.BuildSetting{{Key: "-ldflags", Value: ""}, {Key: "GOOS", Value: "linux"}}
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	info := func(version string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/harnish/harnish", Version: version}, Settings: s}
	}
	clean := settings("vcs", "git", "vcs.revision", "abc", "vcs.modified", "false")
	tests := []struct {
		name string
		a, b *debug.BuildInfo
		want bool
	}{
		{"one release", info("v1.2.3", settings()), info("v1.2.3", settings()), true},
		{"two releases", info("v1.2.3", settings()), info("v1.2.4", settings()), false},
		{"one clean checkout", info("(devel)", clean), info("(devel)", clean), true},
		{"one revision, other flags", info("(devel)", clean), info("(devel)", settings("vcs", "git", "vcs.revision", "abc", "vcs.modified", "false", "-tags", "x")), false},
		{"two revisions", info("(devel)", clean), info("(devel)", settings("vcs", "git", "vcs.revision", "def", "vcs.modified", "false")), false},
		{"a modified tree", info("(devel)", settings("vcs.revision", "abc", "vcs.modified", "true")), info("(devel)", settings("vcs.revision", "abc", "vcs.modified", "true")), false},
		{"a dirty version", info("v1.2.3+dirty", settings()), info("v1.2.3+dirty", settings()), false},
		{"no stamps", info("(devel)", settings()), info("(devel)", settings()), false},
		{"other toolchains", info("v1.2.3", settings()), &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Path: "github.com/harnish/harnish", Version: "v1.2.3"}, Settings: settings()}, false},
	}
	for _, tt := range tests {
		if got := sameBuild(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: sameBuild = %v, want %v", tt.name, got, tt.want)
		}
	}
}
