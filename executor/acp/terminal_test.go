//go:build linux

package acp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/internal/proc"
)

func TestTerminals(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	ts := acp.NewTerminals(t.Context(), root)
	defer ts.Close()
	limit := 10
	// A whole shell line, in a directory of the tree, its output cut to the
	// last 10 bytes, standard error included.
	id, err := ts.Start(acpsdk.CreateTerminalRequest{Command: "pwd; echo 0123456789abcdef >&2; exit 3", OutputByteLimit: &limit},
		filepath.Join(root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := ts.Wait(t.Context(), id)
	if err != nil || w.ExitCode == nil || *w.ExitCode != 3 {
		t.Fatalf("Wait = %+v, %v", w, err)
	}
	out, err := ts.Output(id)
	if err != nil || out.Output != "789abcdef\n" || !out.Truncated || *out.ExitStatus.ExitCode != 3 {
		t.Errorf("Output = %+v, %v", out, err)
	}
	// A program with args, run without a shell's interpretation of them.
	id, _ = ts.Start(acpsdk.CreateTerminalRequest{Command: "printf", Args: []string{"%s|", "a b", "$HOME"}}, root)
	ts.Wait(t.Context(), id)
	if out, _ := ts.Output(id); out.Output != "a b|$HOME|" || out.Truncated {
		t.Errorf("args: %+v", out)
	}
	// Outside the tree: refused.
	if _, err := ts.Start(acpsdk.CreateTerminalRequest{Command: "true"}, t.TempDir()); !errors.Is(err, proc.ErrOutsideRoot) {
		t.Errorf("a terminal outside the tree: %v", err)
	}
	// Killed: its whole group goes, and it reports a signal.
	pidFile := filepath.Join(root, "pid")
	id, _ = ts.Start(acpsdk.CreateTerminalRequest{Command: "sleep 300 & echo $! > pid; wait"}, root)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	if err := ts.Kill(id, false); err != nil {
		t.Fatal(err)
	}
	w, err = ts.Wait(t.Context(), id)
	if err != nil || w.Signal == nil {
		t.Errorf("a killed terminal: %+v, %v", w, err)
	}
	if pid := readPid(t, pidFile); aliveAfter(pid, 2*time.Second) {
		t.Errorf("the killed terminal's child %d runs on", pid)
	}
	// Released: forgotten.
	if err := ts.Kill(id, true); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Output(id); err == nil || !strings.Contains(err.Error(), "no terminal") {
		t.Errorf("a released terminal: %v", err)
	}
}
