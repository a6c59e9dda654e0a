package loop

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/task"
)

// StuckError is the cause of an attempt the loop ended because the agent
// went round in circles; the attempt fails with kind stuck.
type StuckError struct {
	// Pattern is "repeated-command" or "silent-turns".
	Pattern string
	// Detail says what was repeated, for the next prompt.
	Detail string
}

func (e *StuckError) Error() string { return "stuck: " + e.Detail }

// watcher follows an attempt's activity and ends the attempt when the agent
// runs the same command with the same result too many times in a row, or
// takes too many turns in a row without a tool call.
type watcher struct {
	th   task.Stuck
	stop context.CancelCauseFunc

	mu      sync.Mutex
	last    [sha256.Size]byte // the last command and result counted
	command string
	same    int // times in a row it came back
	silent  int // turns in a row without a tool call
}

// StuckWatch is what an attempt's executor.Request.Watch is set to for
// the stuck rules th: told what the agent does, it ends the attempt with
// stop and a [*StuckError] as the cause when the agent goes round in
// circles, which [ExecutionFailure] then makes the attempt's failure. A
// host that takes the steps itself watches its attempts as the loop does
// with it.
func StuckWatch(th task.Stuck, stop context.CancelCauseFunc) func(executor.Activity) {
	return newWatcher(th, stop).observe
}

func newWatcher(th task.Stuck, stop context.CancelCauseFunc) *watcher {
	return &watcher{th: th.Resolve(), stop: stop}
}

// observe counts one activity; commands that wait are not counted, so a
// long wait (a build, a CI watch, a sleep between polls) is not stuck.
func (w *watcher) observe(a executor.Activity) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case a.Turn && a.Acted:
		w.silent = 0
	case a.Turn:
		if w.silent++; w.silent >= w.th.SilentTurns {
			w.stop(&StuckError{Pattern: "silent-turns", Detail: fmt.Sprintf("the agent took %d turns in a row without running or changing anything", w.silent)})
		}
	case a.Command != "" && !waits(a.Command):
		key := sha256.Sum256([]byte(a.Command + "\x00" + a.Result))
		if key == w.last {
			w.same++
		} else {
			w.last, w.command, w.same = key, a.Command, 1
		}
		if w.same >= w.th.RepeatedCommand {
			w.stop(&StuckError{Pattern: "repeated-command",
				Detail: fmt.Sprintf("the agent ran %q %d times in a row with the same result", clip(w.command, 200), w.same)})
		}
	}
}

// waiters are programs (and git-style subcommands) that wait on something
// outside the agent: running them again with the same answer is polling,
// not going round in circles.
var waiters = map[string]bool{"sleep": true, "wait": true, "watch": true, "timeout": true, "until": true,
	"gh run watch": true, "gh pr checks": true, "gh run view": true, "kubectl wait": true, "kubectl rollout": true}

// waits reports whether a command waits: its first program, or program and
// subcommand, is a waiter, or it runs one after a separator (poll; sleep).
func waits(command string) bool {
	for _, part := range strings.FieldsFunc(command, func(r rune) bool { return r == ';' || r == '&' || r == '|' || r == '\n' }) {
		words := strings.Fields(part)
		if len(words) == 0 {
			continue
		}
		prog := path.Base(words[0])
		if waiters[prog] || len(words) > 2 && waiters[prog+" "+words[1]+" "+words[2]] || len(words) > 1 && waiters[prog+" "+words[1]] {
			return true
		}
		for _, w := range words[1:] {
			if w == "--watch" || w == "-w" && prog == "gh" {
				return true
			}
		}
	}
	return false
}

// clip shortens s to at most n bytes, at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
