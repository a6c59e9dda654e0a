package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestHookProgram(t *testing.T) {
	slimName := "harnish-hook"
	if runtime.GOOS == "windows" {
		slimName += ".exe"
	}
	script := []byte("#!/bin/sh\n")
	tests := []struct {
		name     string
		place    func(path string) error // puts what lies where harnish-hook would
		wantSlim bool
		unixOnly bool // Windows has no executable bit
	}{
		{name: "none beside", place: func(string) error { return nil }},
		{name: "executable beside", wantSlim: true, place: func(p string) error { return os.WriteFile(p, script, 0o755) }},
		{name: "not executable", unixOnly: true, place: func(p string) error { return os.WriteFile(p, script, 0o644) }},
		{name: "a directory of that name", place: func(p string) error { return os.Mkdir(p, 0o755) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("no executable bit")
			}
			dir := t.TempDir()
			self, slim := filepath.Join(dir, "harnish"), filepath.Join(dir, slimName)
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
