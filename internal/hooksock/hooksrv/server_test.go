package hooksrv_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/hooksock"
	"github.com/harnish/harnish/internal/hooksock/hooksrv"
)

// echo answers with the request's agent and input.
func echo(_ context.Context, r *hooksock.Request) *hooksock.Answer {
	return &hooksock.Answer{Code: len(r.Agent), Message: r.Agent + ":" + string(r.Input)}
}

func TestAskServe(t *testing.T) {
	path := hooksock.Path(filepath.Join(t.TempDir(), ".harnish"))
	os.MkdirAll(filepath.Dir(filepath.Dir(path)), 0o755)
	l, err := hooksrv.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := hooksrv.Serve(t.Context(), l, echo)
	for _, p := range []struct {
		path string
		want os.FileMode
	}{{filepath.Dir(path), 0o700 | os.ModeDir}, {path, 0o600 | os.ModeSocket}} {
		st, err := os.Lstat(p.path)
		if err != nil || st.Mode() != p.want {
			t.Errorf("%s: %v, mode %v; want %v", p.path, err, st.Mode(), p.want)
		}
	}
	a, err := hooksock.Ask(path, &hooksock.Request{Agent: "codex", Input: []byte("{}")}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&hooksock.Answer{Code: 5, Message: "codex:{}"}, a); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there after Close: %v", err)
	}
	if _, err := hooksock.Ask(path, &hooksock.Request{}, time.Second); !errors.Is(err, hooksock.ErrAbsent) {
		t.Errorf("Ask of a removed socket: %v, want ErrAbsent", err)
	}
}

// A socket a crashed run left is replaced by the next Listen; until then,
// a hook that asks it gets an error to fail closed on, not ErrAbsent.
func TestStaleSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hook", "sock")
	l, err := hooksrv.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // as a crash leaves it
	l.Close()
	if _, err := hooksock.Ask(path, &hooksock.Request{}, time.Second); err == nil || errors.Is(err, hooksock.ErrAbsent) {
		t.Errorf("Ask of a stale socket: %v, want a failure", err)
	}
	l, err = hooksrv.Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	s := hooksrv.Serve(t.Context(), l, echo)
	defer s.Close()
	if _, err := hooksock.Ask(path, &hooksock.Request{Agent: "claude"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// A live one is not taken over.
	if _, err := hooksrv.Listen(path); !errors.Is(err, hooksrv.ErrInUse) {
		t.Errorf("Listen over a live socket: %v, want ErrInUse", err)
	}
}

func TestListenRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hook", "sock")
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, []byte("mine"), 0o644)
	if _, err := hooksrv.Listen(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen over a file: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Errorf("the file was touched: %q", data)
	}
	long := filepath.Join(dir, strings.Repeat("d", 120), "hook", "sock")
	if _, err := hooksrv.Listen(long); !errors.Is(err, hooksrv.ErrPathTooLong) {
		t.Errorf("Listen on a long path: %v, want ErrPathTooLong", err)
	}
	// A directory opened to others is closed again.
	open := filepath.Join(dir, "open", "hook")
	os.MkdirAll(open, 0o777)
	os.Chmod(open, 0o777)
	l, err := hooksrv.Listen(filepath.Join(open, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, _ := os.Stat(open); st.Mode().Perm() != 0o700 {
		t.Errorf("the socket's directory has mode %v, want 0700", st.Mode().Perm())
	}
	// A symbolic link in its place is refused.
	link := filepath.Join(dir, "link")
	os.MkdirAll(link, 0o755)
	os.Symlink(open, filepath.Join(link, "hook"))
	if _, err := hooksrv.Listen(filepath.Join(link, "hook", "sock")); err == nil {
		t.Error("Listen through a symbolic link: no error")
	}
}

// A server that does not answer in time, or answers what does not decode,
// is an error: the hook fails closed on it.
func TestAskFailures(t *testing.T) {
	dir := t.TempDir()
	listen := func(name string, serve func(net.Conn)) string {
		path := filepath.Join(dir, name)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go serve(c)
			}
		}()
		return path
	}
	slow := listen("slow", func(c net.Conn) { time.Sleep(5 * time.Second); c.Close() })
	start := time.Now()
	if _, err := hooksock.Ask(slow, &hooksock.Request{}, 200*time.Millisecond); !errors.Is(err, hooksock.ErrTimeout) {
		t.Errorf("a server that does not answer: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Ask took %v with a timeout of 200ms", d)
	}
	garbage := listen("garbage", func(c net.Conn) { c.Write([]byte("HTTP/1.1 400\r\n\r\n")); c.Close() })
	if _, err := hooksock.Ask(garbage, &hooksock.Request{}, 5*time.Second); err == nil || errors.Is(err, hooksock.ErrAbsent) {
		t.Errorf("a server that answers garbage: %v, want an error", err)
	}
	closes := listen("closes", func(c net.Conn) { c.Close() })
	if _, err := hooksock.Ask(closes, &hooksock.Request{}, 5*time.Second); err == nil || errors.Is(err, hooksock.ErrAbsent) {
		t.Errorf("a server that hangs up: %v, want an error", err)
	}
}

// A handler that panics answers a blocked call; the server goes on.
func TestServePanic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hook", "sock")
	l, err := hooksrv.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	s := hooksrv.Serve(t.Context(), l, func(_ context.Context, r *hooksock.Request) *hooksock.Answer {
		if r.Agent == "boom" {
			panic("boom")
		}
		return &hooksock.Answer{}
	})
	defer s.Close()
	a, err := hooksock.Ask(path, &hooksock.Request{Agent: "boom"}, 5*time.Second)
	if err != nil || a.Code != 2 || !strings.HasPrefix(a.Message, "harnish: cannot judge the tool call: panic: boom") {
		t.Errorf("a panicking handler: %+v, %v", a, err)
	}
	if a, err := hooksock.Ask(path, &hooksock.Request{Agent: "codex"}, 5*time.Second); err != nil || a.Code != 0 {
		t.Errorf("after the panic: %+v, %v", a, err)
	}
}
