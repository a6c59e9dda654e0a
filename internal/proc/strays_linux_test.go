package proc_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/proc"
)

// strayScript is what a killed host left: a shell leading a group of its own
// with the run's mark, a marked child, a child that dropped the mark, and an
// unmarked orphan still in the group. It writes their pids to pids. The
// leader outlives its children (exec sleep): were it to exit once they are
// killed, KillStrays could find it dead before signalling it.
const strayScript = `sleep 60 & a=$!
env -u PROC_TEST_RUN sleep 60 & b=$!
env -u PROC_TEST_RUN sh -c 'sleep 60 & echo $! > orphan'
echo "$$ $a $b $(cat orphan)" > pids.tmp; mv pids.tmp pids
wait
exec sleep 60`

func TestKillStrays(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	const name = "PROC_TEST_RUN"
	value := fmt.Sprintf("run-%d-%d", os.Getpid(), time.Now().UnixNano())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stray.sh"), []byte(strayScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// The stray tree, orphaned once its starter exits.
	start := func(mark, script string) {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), name+"="+mark)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	start(value, "setsid sh stray.sh >/dev/null 2>&1 &")
	strays := readPids(t, filepath.Join(dir, "pids"))
	// Not strays: a process of another run (whose mark only starts like
	// ours), and a child of the caller's.
	start(value+"x", "sleep 60 >/dev/null 2>&1 & echo $! > other")
	others := readPids(t, filepath.Join(dir, "other"))
	own := exec.Command("sleep", "60")
	own.Env = append(os.Environ(), name+"="+value)
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	others = append(others, own.Process.Pid)
	t.Cleanup(func() {
		for _, pid := range append(strays, others...) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = own.Wait()
	})

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	killed, err := proc.KillStrays(ctx, name, value)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(strays)), slices.Sorted(slices.Values(killed))); diff != "" {
		t.Errorf("killed (-want +got):\n%s", diff)
	}
	for _, pid := range strays {
		if alive(pid) {
			t.Errorf("stray %d is alive after KillStrays returned", pid)
		}
	}
	for _, pid := range others {
		if !alive(pid) {
			t.Errorf("process %d, not a stray, was killed", pid)
		}
	}
	if killed, err := proc.KillStrays(ctx, name, value); err != nil || len(killed) != 0 {
		t.Errorf("second KillStrays = %v, %v; want none", killed, err)
	}
}
