//go:build linux

package plugins_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/plugins"
)

// The binary run is the binary hashed: swapping the file, flipping a
// symlink or rewriting the file between the checksum and the exec runs the
// checked plugin or nothing, never the replacement. Also on every restart,
// which goes through the same start.
func TestChecksumTOCTOU(t *testing.T) {
	script := []byte("#!/bin/sh\necho pwned > \"$HARNISH_TOCTOU_MARKER\"\n")
	tests := []struct {
		name    string
		symlink bool
		swap    func(t *testing.T, path, dir string)
	}{
		{name: "rename over", swap: func(t *testing.T, path, dir string) {
			tmp := filepath.Join(dir, "evil")
			if err := fsx.WriteExecutable(tmp, script, 0o755); err != nil {
				t.Error(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
			}
		}},
		{name: "symlink flip", symlink: true, swap: func(t *testing.T, path, dir string) {
			evil := filepath.Join(dir, "evil")
			if err := fsx.WriteExecutable(evil, script, 0o755); err != nil {
				t.Error(err)
			}
			tmp := filepath.Join(dir, "link.tmp")
			if err := os.Symlink(evil, tmp); err != nil {
				t.Error(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
			}
		}},
		{name: "rewrite in place", swap: func(t *testing.T, path, dir string) {
			if err := fsx.WriteExecutable(path, script, 0o755); err != nil {
				t.Error(err)
			}
		}},
		// A binary rewritten in place keeps its inode, so a descriptor of
		// the file would run the new bytes: bash, which reads $BASH_ENV
		// first and so writes the marker.
		{name: "rewrite in place with a binary", swap: func(t *testing.T, path, dir string) {
			bash, err := os.ReadFile("/bin/bash")
			if err != nil {
				t.Skip("no /bin/bash")
			}
			env := filepath.Join(dir, "bash_env")
			os.WriteFile(env, []byte("echo pwned > \"$HARNISH_TOCTOU_MARKER\"\n"), 0o644)
			t.Setenv("BASH_ENV", env)
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.Write(bash)
			f.Close()
		}},
	}
	for _, copy := range []bool{false, true} {
		for _, tt := range tests {
			name := tt.name + map[bool]string{false: " (fd)", true: " (copy)"}[copy]
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				marker := filepath.Join(dir, "marker")
				t.Setenv("HARNISH_TOCTOU_MARKER", marker)
				s := spec(t, "testplugin")
				b, err := os.ReadFile(s.Path)
				if err != nil {
					t.Fatal(err)
				}
				real := filepath.Join(dir, "testplugin")
				if err := fsx.WriteExecutable(real, b, 0o755); err != nil {
					t.Fatal(err)
				}
				s.Path = real
				if tt.symlink {
					s.Path = filepath.Join(dir, "link")
					if err := os.Symlink(real, s.Path); err != nil {
						t.Fatal(err)
					}
				}
				swapped := false
				defer plugins.SetAfterHash(func(path string) {
					if !swapped {
						swapped = true
						tt.swap(t, path, dir)
					}
				}, copy)()
				// The bytes hashed are the bytes run, whatever happens to
				// the file after the hash: the checked plugin starts.
				h, err := plugins.Open(t.Context(), plugins.Config{Manifest: &plugins.Manifest{Plugins: []plugins.Spec{s}}})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer h.Close()
				if got := h.Plugins()[0].Version; got != "1.2.3" {
					t.Errorf("ran a plugin of version %q, not the one checked", got)
				}
				if !swapped {
					t.Fatal("the hook never ran")
				}
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("the replacement ran")
				}
			})
		}
	}
}

// A plugin that is a script (here a wrapper of the test plugin) runs too:
// its interpreter could not open a /proc/self/fd path closed on exec.
func TestScriptPlugin(t *testing.T) {
	s := spec(t, "testplugin")
	script := filepath.Join(t.TempDir(), "wrapper")
	if err := fsx.WriteExecutable(script, []byte("#!/bin/sh\nexec "+s.Path+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Path, s.SHA256 = script, sum(t, script)
	h, _ := open(t, s)
	if got := h.Plugins()[0].Version; got != "1.2.3" {
		t.Errorf("version %q", got)
	}
}
