package loop_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

var crashKills = flag.Int("crashkills", 200, "SIGKILLs in TestDirStoreSurvivesKill (-short: 20)")

const crashChildEnv = "HARNISH_CRASH_CHILD_DIR"

// crashHistory is long enough that no child runs out of transitions.
const crashHistory = 60_000

// TestDirStoreSurvivesKill runs a child process that commits transitions as
// fast as it can and prints each acknowledged sequence number, SIGKILLs it at
// a random moment, and checks that the state loads and holds every
// acknowledged transition, exactly as applied in memory. Snapshots are
// frequent, so kills land inside them too.
func TestDirStoreSurvivesKill(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL test is for Unix")
	}
	kills := *crashKills
	if testing.Short() {
		kills = 20
	}
	dir := filepath.Join(t.TempDir(), loop.StateDir)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	var acked uint64
	tornSeen, snapshotsSeen := 0, 0
	for kill := range kills {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDirStoreCrashChild$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan uint64)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				if seq, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
					n, _ := strconv.ParseUint(seq, 10, 64)
					lines <- n
				}
			}
		}()
		// Wait for the child to commit something, then kill it after a
		// random further delay.
		select {
		case n, ok := <-lines:
			if !ok {
				t.Fatalf("kill %d: child ended before its first commit: %v", kill, cmd.Wait())
			}
			acked = n
		case <-time.After(30 * time.Second):
			t.Fatalf("kill %d: child made no commit in 30s", kill)
		}
		timer := time.After(time.Duration(rng.IntN(15_000)) * time.Microsecond)
	wait:
		for {
			select {
			case n, ok := <-lines:
				if !ok {
					break wait
				}
				acked = n
			case <-timer:
				break wait
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for n := range lines {
			acked = n // acks already written before the kill count too
		}
		cmd.Wait()

		if b, err := os.ReadFile(filepath.Join(dir, loop.JournalFile)); err == nil && len(b) > 0 && b[len(b)-1] != '\n' {
			tornSeen++
		}
		s, err := loop.OpenDir(dir, nil)
		if err != nil {
			t.Fatalf("kill %d (acked %d): OpenDir: %v", kill, acked, err)
		}
		got, err := s.Load(context.Background())
		s.Close()
		if err != nil {
			t.Fatalf("kill %d: Load: %v", kill, err)
		}
		if got.Seq < acked {
			t.Fatalf("kill %d: state holds %d transitions, %d were acknowledged", kill, got.Seq, acked)
		}
		if diff := cmp.Diff(applied(t, history(int(got.Seq))), got); diff != "" {
			t.Fatalf("kill %d: state differs from the transitions applied (-want +got):\n%s", kill, diff)
		}
		if _, err := os.Stat(filepath.Join(dir, loop.SnapshotFile)); err == nil {
			snapshotsSeen++
		}
	}
	t.Logf("%d kills, %d transitions acknowledged, %d torn tails set aside, snapshot present after %d kills",
		kills, acked, tornSeen, snapshotsSeen)
}

// TestDirStoreCrashChild is the child of TestDirStoreSurvivesKill; it does
// nothing unless started by it.
func TestDirStoreCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("run by TestDirStoreSurvivesKill")
	}
	ctx := context.Background()
	s, err := loop.OpenDir(dir, &loop.DirOptions{CompactBytes: 4 << 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	seq := uint64(0)
	if st, err := s.Load(ctx); err == nil {
		seq = st.Seq
	}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), seq))
	for seq < crashHistory {
		n := min(uint64(1+rng.IntN(3)), crashHistory-seq)
		batch := make([]policy.Transition, n)
		for i := range batch {
			batch[i] = transitionAt(int(seq) + i)
		}
		if err := s.Commit(ctx, batch...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		seq += n
		fmt.Fprintf(os.Stdout, "ack %d\n", seq) // os.Stdout is unbuffered
	}
	os.Exit(0)
}
