//go:build linux

package acp_test

import (
	"bytes"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the command did not start: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %q", b)
	}
	return pid
}

// alive reports whether pid runs (a zombie is dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || !bytes.HasPrefix(bytes.TrimSpace(b[i+1:]), []byte("Z"))
}

// marked returns the live processes whose environment says they work in
// the tree dir (HARNISH_WORKDIR, which the agent and all it starts carry).
func marked(dir string) []int {
	mark := []byte("\x00HARNISH_WORKDIR=" + dir + "\x00")
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), mark) && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// aliveAfter reports whether pid still runs after up to d of waiting for
// it to die: a signalled process takes a moment to go.
func aliveAfter(pid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return true
		}
	}
	return false
}

var discardLogger = slog.New(slog.DiscardHandler)
