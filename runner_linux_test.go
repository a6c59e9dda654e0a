package harnish_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/loop"
)

// TestOpenEndsStrays: Open ends the processes a killed host of the same run
// left behind, and no other.
func TestOpenEndsStrays(t *testing.T) {
	dir, plan := tree(t, false, map[string]string{})
	mark := filepath.Join(dir, loop.StateDir) + "#r1"
	// An agent orphaned by its host's death, of this run, and one of another.
	start := func(mark string) int {
		cmd := exec.Command("sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!")
		cmd.Env = append(os.Environ(), "HARNISH_RUN="+mark)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		return pid
	}
	stray, other := start(mark), start(mark+"0")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	r, err := harnish.Open(ctx, plan, harnish.Options{Dir: dir, RunID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff([]int{stray}, r.Opened().Strays); diff != "" {
		t.Errorf("strays (-want +got):\n%s", diff)
	}
	if alive(stray) {
		t.Errorf("the stray %d is alive", stray)
	}
	if !alive(other) {
		t.Errorf("%d, of another run, was ended", other)
	}
}

// alive reports whether the process pid is alive: neither gone nor a zombie
// (an orphan that nobody reaps stays one).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if i := strings.LastIndexByte(string(b), ')'); err == nil && i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}
