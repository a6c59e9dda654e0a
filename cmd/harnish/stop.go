package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/loop"
)

var stopCommand = &command{
	name:    "stop",
	args:    "[--dir DIR] [--wait DURATION]",
	summary: "stop the run going on in a working tree, to resume later",
	help: `Stop asks the harnish running in DIR (from another shell) to stop: it cuts
its current step short, records the run as cancelled with who stopped it,
and exits; "harnish resume" goes on from there, the cut attempt counted.
Stop waits up to --wait (default 1m) for it to let go of the run, and exits
1 when no run is going on or it did not stop in time.
`,
	run: runStop,
}

// stopFile, in the state directory, says who asked the run to stop; the
// running harnish reads it when the signal comes.
const stopFile = "stop"

func runStop(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", ".", "the working tree")
	wait := fs.Duration("wait", time.Minute, "how long to wait for the run to stop")
	if code, ok := c.parse(fs, args, stdout, stderr, nil); !ok {
		return code
	}
	stateDir := filepath.Join(*dir, loop.StateDir)
	lockPath := filepath.Join(stateDir, "lock")
	pid, err := holder(lockPath)
	if err != nil {
		fmt.Fprintf(stderr, "harnish stop: %v\n", err)
		return exitError
	}
	who := "harnish stop"
	if u, err := user.Current(); err == nil {
		who += " by " + u.Username
	}
	who += fmt.Sprintf(" (pid %d)", os.Getpid())
	if err := fsx.ReplaceFile(filepath.Join(stateDir, stopFile), []byte(who+"\n"), 0o644); err != nil {
		fmt.Fprintf(stderr, "harnish stop: %v\n", err)
		return exitError
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		fmt.Fprintf(stderr, "harnish stop: signal process %d: %v\n", pid, err)
		return exitError
	}
	for deadline := time.Now().Add(*wait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := holder(lockPath); err != nil {
			fmt.Fprintf(stdout, "stopped the run in %s (process %d); harnish resume goes on from there\n", *dir, pid)
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "harnish stop: process %d still holds the run after %s\n", pid, *wait)
	return exitError
}

// holder returns the process holding the run's lock, or an error when no
// run is going on.
func holder(lockPath string) (int, error) {
	if _, err := os.Stat(lockPath); err != nil {
		return 0, fmt.Errorf("no run is going on in %s", filepath.Dir(filepath.Dir(lockPath)))
	}
	l, err := fsx.TryLock(lockPath)
	if err == nil {
		l.Unlock()
		return 0, fmt.Errorf("no run is going on in %s", filepath.Dir(filepath.Dir(lockPath)))
	}
	var held *fsx.HeldError
	if !errors.As(err, &held) || held.PID == 0 {
		return 0, err
	}
	return held.PID, nil
}

// stopContext is cancelled by SIGINT or SIGTERM, with the cause saying who
// stopped the run: harnish stop's note in the state directory, or the
// signal.
func stopContext(stateDir string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			cause := "stopped by " + s.String()
			if b, err := os.ReadFile(filepath.Join(stateDir, stopFile)); err == nil && len(b) > 0 {
				cause = "stopped by " + strings.TrimSpace(string(b))
				os.Remove(filepath.Join(stateDir, stopFile))
			}
			cancel(errors.New(cause))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		cancel(nil)
	}
}
