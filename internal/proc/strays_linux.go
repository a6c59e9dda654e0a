package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// KillStrays ends the processes a previous host of the same run left
// behind: every process whose environment holds name=value exactly (see
// [EnvRun]), every descendant of one, and every member of a process group
// one of them leads (a watchdog, see [Group]). The caller, its ancestors and
// its descendants are never touched. Call it holding the run's lock, before
// starting the next attempt.
//
// It sends SIGKILL and scans again until none is left alive, or ctx is done
// (the error then wraps context.Cause(ctx)). It returns the IDs of the
// processes it killed. A process it may not signal is an error, once the
// others are gone.
func KillStrays(ctx context.Context, name, value string) ([]int, error) {
	if name == "" || strings.ContainsAny(name, "=\x00") || strings.Contains(value, "\x00") {
		return nil, fmt.Errorf("proc: KillStrays: bad variable %q=%q", name, value)
	}
	mark := []byte("\x00" + name + "=" + value + "\x00")
	var killed []int
	seen := map[task]bool{}    // signalled already
	failed := map[task]error{} // may not be signalled
	groups := map[int]bool{}   // led by a marked process, in any scan
	for {
		procs, err := readTasks()
		if err != nil {
			return killed, fmt.Errorf("proc: KillStrays: %w", err)
		}
		ours := family(procs, os.Getpid())
		marked := map[int]bool{}
		for pid, t := range procs {
			if !ours[pid] && hasMark(pid, mark) {
				marked[pid] = true
				if t.pgid == pid {
					groups[pid] = true
				}
			}
		}
		var strays []task
		for pid, t := range procs {
			if !ours[pid] && failed[t] == nil && (marked[pid] || groups[t.pgid] || descends(procs, pid, marked)) {
				strays = append(strays, t)
			}
		}
		if len(strays) == 0 {
			break
		}
		for _, t := range strays {
			switch err := t.kill(); {
			case err == nil && !seen[t]:
				seen[t] = true
				killed = append(killed, t.pid)
			case err != nil && !errors.Is(err, unix.ESRCH):
				failed[t] = err
			}
		}
		select {
		case <-ctx.Done():
			return killed, fmt.Errorf("proc: KillStrays: %w", context.Cause(ctx))
		case <-time.After(5 * time.Millisecond):
		}
	}
	var errs []error
	for t, err := range failed {
		errs = append(errs, fmt.Errorf("process %d: %w", t.pid, err))
	}
	if len(errs) > 0 {
		return killed, fmt.Errorf("proc: KillStrays: %w", errors.Join(errs...))
	}
	return killed, nil
}

// task is a live process as /proc/PID/stat shows it; pid and start (ticks
// since boot) name it even after its pid is reused.
type task struct {
	pid, ppid, pgid int
	start           uint64
}

// readTasks reads the live processes; zombies are dead already.
func readTasks() (map[int]task, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	procs := make(map[int]task, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if t, ok := readTask(pid); ok {
			procs[pid] = t
		}
	}
	return procs, nil
}

// readTask parses /proc/PID/stat: after the command's closing parenthesis
// come the state (field 3), ppid, pgrp, and at field 22 the start time.
func readTask(pid int) (task, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if err != nil || i < 0 {
		return task{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return task{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return task{}, false
	}
	return task{pid: pid, ppid: ppid, pgid: pgid, start: start}, true
}

func hasMark(pid int, mark []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && bytes.Contains(append([]byte{0}, env...), mark)
}

// family is self, its ancestors and its descendants.
func family(procs map[int]task, self int) map[int]bool {
	ours := map[int]bool{self: true}
	for pid := procs[self].ppid; pid > 0 && !ours[pid]; pid = procs[pid].ppid {
		ours[pid] = true
	}
	for pid := range procs {
		if descends(procs, pid, map[int]bool{self: true}) {
			ours[pid] = true
		}
	}
	return ours
}

// descends reports whether an ancestor of pid is in of.
func descends(procs map[int]task, pid int, of map[int]bool) bool {
	for depth, p := 0, procs[pid].ppid; p > 0 && depth < len(procs); depth, p = depth+1, procs[p].ppid {
		if of[p] {
			return true
		}
	}
	return false
}

// kill sends SIGKILL to t if it is still the process the scan saw: the
// pidfd holds on to one process, and its start time, read after opening
// it, tells a reused pid.
func (t task) kill() error {
	fd, err := unix.PidfdOpen(t.pid, 0)
	if errors.Is(err, unix.ENOSYS) { // Linux before 5.3
		if now, ok := readTask(t.pid); !ok || now.start != t.start {
			return unix.ESRCH
		}
		return unix.Kill(t.pid, unix.SIGKILL)
	}
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if now, ok := readTask(t.pid); !ok || now.start != t.start {
		return unix.ESRCH
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}
