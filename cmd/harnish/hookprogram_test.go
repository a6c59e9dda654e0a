package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/harnish/harnish/internal/fsx"
)

func TestHookProgram(t *testing.T) {
	slimName := "harnish-hook"
	if runtime.GOOS == "windows" {
		slimName += ".exe"
	}
	// Two builds of harnish-hook: the one harnish is "built with" and one
	// with other flags, as a harnish-hook left from another install.
	bins := t.TempDir()
	build := func(name string, flags ...string) []byte {
		out := filepath.Join(bins, name)
		args := append(append([]string{"build", "-o", out}, flags...), "../harnish-hook")
		if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	same, other := build("same"), build("other", "-ldflags=-s")
	script := []byte("#!/bin/sh\n")
	tests := []struct {
		name     string
		place    func(path string) error // puts what lies where harnish-hook would
		wantSlim bool
		unixOnly bool // Windows has no executable bit
	}{
		{name: "none beside", place: func(string) error { return nil }},
		{name: "same build beside", wantSlim: true, place: func(p string) error { return fsx.WriteExecutable(p, same, 0o755) }},
		{name: "another build beside", place: func(p string) error { return fsx.WriteExecutable(p, other, 0o755) }},
		{name: "not a Go program", place: func(p string) error { return fsx.WriteExecutable(p, script, 0o755) }},
		{name: "not executable", unixOnly: true, place: func(p string) error { return os.WriteFile(p, same, 0o644) }},
		{name: "a directory of that name", place: func(p string) error { return os.Mkdir(p, 0o755) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("no executable bit")
			}
			dir := t.TempDir()
			self, slim := filepath.Join(dir, "harnish"), filepath.Join(dir, slimName)
			// harnish itself stands in as the same build of harnish-hook:
			// what is compared is how the two were built, not what they are.
			if err := fsx.WriteExecutable(self, same, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.place(slim); err != nil {
				t.Fatal(err)
			}
			want := self
			if tt.wantSlim {
				want = slim
			}
			if got := hookProgram(self); got != want {
				t.Errorf("hookProgram(%q) = %q, want %q", self, got, want)
			}
		})
	}
}
