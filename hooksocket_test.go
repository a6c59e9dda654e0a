package harnish_test

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/internal/hooksock"
	"github.com/harnish/harnish/loop"
)

// TestHookSocket: an open Runner answers its agents' pre-tool-use hooks on
// a socket in its state directory, named in the environment its agents
// inherit, replacing one a crashed host left; Close takes both away.
func TestHookSocket(t *testing.T) {
	dir, plan := tree(t, false, map[string]string{})
	path := hooksock.Path(filepath.Join(dir, loop.StateDir))
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false) // as a crash leaves it
	stale.Close()
	t.Setenv(hooksock.EnvSocket, "before")

	r, err := harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, NoAssets: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv(hooksock.EnvSocket); got != path {
		t.Errorf("%s=%q, want %q", hooksock.EnvSocket, got, path)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode() != fs.ModeSocket|0o600 {
		t.Errorf("the socket: %v, %v", st.Mode(), err)
	}
	call := `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"` + dir + `"}`
	a, err := hooksock.Ask(path, &hooksock.Request{Agent: "codex", WorkDir: dir, Input: []byte(call)}, 10*time.Second)
	if err != nil || a.Code != 2 || !strings.HasPrefix(a.Message, "harnish guardrail fs.recursive-delete blocked this: ") {
		t.Errorf("rm -rf /: %+v, %v", a, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := os.Getenv(hooksock.EnvSocket); got != "before" {
		t.Errorf("after Close, %s=%q, want it back as it was", hooksock.EnvSocket, got)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket is there after Close: %v", err)
	}

	// An Unmarked Runner leaves the environment alone, and each hook
	// judges its call itself.
	r, err = harnish.Open(t.Context(), plan, harnish.Options{Dir: dir, NoAssets: true, Unmarked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := os.Getenv(hooksock.EnvSocket); got != "before" {
		t.Errorf("an Unmarked Runner set %s=%q", hooksock.EnvSocket, got)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an Unmarked Runner listens: %v", err)
	}
}
