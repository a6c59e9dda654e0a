package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/web"
)

// watchStatus prints the run's status, then follows it from its journal,
// with the progress a run prints (on a terminal, one live line per task
// running and the spend), until the run ends; it returns the run's exit
// status, or 130 when interrupted.
func watchStatus(dir string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return watch(ctx, dir, 0, stdout, stderr)
}

// watch follows the run in dir until it ends or ctx does; every is the
// journal's poll interval (zero: the default).
func watch(ctx context.Context, dir string, every time.Duration, stdout, stderr io.Writer) int {
	tty, ok := stdout.(*os.File)
	p := &progress{w: stdout, live: ok && isTerminal(tty)}
	var st *policy.RunState
	stateDir := filepath.Join(dir, loop.StateDir)
	if !exists(filepath.Join(stateDir, loop.SnapshotFile)) && !exists(filepath.Join(stateDir, loop.JournalFile)) {
		// (A look, not a read: the follower reads the state next.)
		fmt.Fprintf(stdout, "no run recorded in %s yet: waiting for one to start\n", stateDir)
	}
	for c, err := range web.Follow(ctx, stateDir, &web.FollowOptions{PollInterval: every}) {
		if err != nil {
			p.erase()
			fmt.Fprintf(stderr, "harnish status: %v\n", err)
			return exitError
		}
		if c.State != nil {
			p.erase()
			if st != nil {
				fmt.Fprintln(stdout, "(the state was read anew)")
			}
			st = c.State
			printStatus(stdout, dir, st)
			// The times and the spend of the lines that follow are the run's.
			p.start, p.tokens, p.cost = st.Started, st.Tokens, st.CostUSD
			p.running = map[string]string{}
			for id, ts := range st.Tasks {
				if ts.Status == policy.StatusRunning && st.Outcome == "" {
					p.running[id] = fmt.Sprintf("attempt %d", ts.Attempts)
				}
			}
			p.draw()
		}
		for _, t := range c.Transitions {
			if err := st.Apply(t); err != nil {
				fmt.Fprintf(stderr, "harnish status: %v\n", err)
				return exitError
			}
			for _, e := range loop.EventsOf(st.Run, t) {
				p.Observe(e)
			}
		}
		if st != nil && st.Outcome != "" {
			p.erase()
			fmt.Fprintf(stdout, "%s", st.Outcome)
			if st.Reason != "" {
				fmt.Fprintf(stdout, ": %s", st.Reason)
			}
			fmt.Fprintln(stdout)
			return st.Outcome.ExitCode()
		}
	}
	p.erase()
	return 130
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
