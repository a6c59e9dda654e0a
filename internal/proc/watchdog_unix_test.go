//go:build unix

package proc_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// treeScript starts a tree (two sleeps under a shell) and writes the pids
// of all three to the file pids, at once, once they run.
const treeScript = `sleep 60 & a=$!; sleep 60 & echo "$a $! $$" > pids.tmp; mv pids.tmp pids; wait`

// A host SIGKILLed while a command runs takes the command's whole tree
// along, whether it ran the command with Run or with a Group of its own
// (as the plugin host does). The host is this test binary, run again.
func TestTreeDiesWithHost(t *testing.T) {
	if mode := os.Getenv("PROC_TEST_HOST"); mode != "" {
		host(t, mode)
		return
	}
	for _, mode := range []string{"run", "group"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestTreeDiesWithHost$")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PROC_TEST_HOST="+mode)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			pids := readPids(t, filepath.Join(dir, "pids"))
			t.Cleanup(func() {
				for _, pid := range pids {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			deadline := time.Now().Add(2 * time.Second)
			for _, pid := range pids {
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d of the tree %v outlived its host by 2s", pid, pids)
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
}

// host runs treeScript in the current directory and waits; the test kills it.
func host(t *testing.T, mode string) {
	switch mode {
	case "run":
		_, err := proc.Run(t.Context(), proc.Spec{Argv: []string{"sh", "-c", treeScript}})
		t.Fatalf("Run returned: %v", err)
	case "group":
		cmd := exec.Command("sh", "-c", treeScript)
		g, err := proc.NewGroup(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := g.Started(cmd.Process); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("Wait returned: %v", cmd.Wait())
	}
}

// readPids waits for the file the tree writes and returns its pids.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var pids []int
			for _, f := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("pids file %q: %v", b, err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree did not start: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs; a zombie (where /proc tells) is dead.
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
