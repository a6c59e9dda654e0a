package codex

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// SandboxError is the cause of the [*executor.Error] (of kind unavailable:
// no retry would do better) that [Executor.Execute] returns when Codex's
// sandbox cannot start, so that no command the agent runs, and no patch it
// applies, gets through. On Linux the sandbox is bubblewrap (a system bwrap
// on PATH, else the one Codex ships), which needs to create user
// namespaces. Match it with errors.As.
type SandboxError struct {
	// Mode is the sandbox mode: read-only or workspace-write.
	Mode string
	// Command is the agent's command that could not run; empty when a
	// failed patch made the executor start the sandbox itself to see why.
	Command string
	// Message is what the sandbox said, such as "bwrap: Creating new
	// namespace failed: ...".
	Message string
}

// Error names the mode, what the sandbox said, and what to do about it.
func (e *SandboxError) Error() string {
	msg := "codex: the " + e.Mode + " sandbox cannot start: " + e.Message
	switch {
	case strings.Contains(e.Message, "namespace"), strings.Contains(e.Message, "uid map"), strings.Contains(e.Message, "RTM_NEW"):
		msg += " (Codex's Linux sandbox is bubblewrap, which must create user namespaces: allow them to it" +
			" (Ubuntu restricts them with AppArmor, containers with seccomp), or, on a host that is a sandbox" +
			" itself, set Bypass)"
	case strings.Contains(e.Message, "codex-linux-sandbox"):
		msg += " (Codex made no codex-linux-sandbox helper; it makes none when CODEX_HOME lies inside its temp" +
			" directory, TMPDIR or /tmp, and a bubblewrap older than 0.9 needs it)"
	}
	return msg
}

// sandboxCheck finds out, only when there is reason to suspect it and then
// once, whether Codex's sandbox can start, by starting it ([probeSandbox]).
// A failed command's output is only a clue (a command may print anything);
// the probe, which runs "true", is the proof.
type sandboxCheck struct {
	mode  string
	probe func() (said string, cannot bool)
	stop  func() // stops the run; called when the sandbox cannot start
	once  sync.Once
	done  chan struct{} // closed when the probe is over, or will not run
	said  string        // what the sandbox said, if it cannot start
}

// start probes in the background and stops the run if the sandbox cannot
// start; only the first call does anything.
func (c *sandboxCheck) start() {
	c.once.Do(func() {
		go func() {
			defer close(c.done)
			if said, cannot := c.probe(); cannot {
				c.said = said
				c.stop()
			}
		}()
	})
}

// result waits for the probe, running it first if there is a patch that
// failed, and returns the error when the sandbox cannot start: for the
// suspect command, if the stream showed one, with what it was told.
func (c *sandboxCheck) result(suspect *SandboxError, patchFailed bool) *SandboxError {
	if patchFailed {
		c.start()
	}
	c.once.Do(func() { close(c.done) }) // never started: nothing to wait for
	<-c.done
	if c.said == "" {
		return nil
	}
	if suspect != nil {
		return &SandboxError{Mode: c.mode, Command: suspect.Command, Message: suspect.Message}
	}
	return &SandboxError{Mode: c.mode, Message: c.said}
}

// sandboxFailure returns what the sandbox said when output, the output of a
// command that failed in it, looks like the sandbox failing to start rather
// than the command failing: bubblewrap's own error line ("bwrap: ..."), or the
// panic of Codex's sandbox helper. A command that runs bwrap itself is left
// to speak for itself.
func sandboxFailure(command, output string) (string, bool) {
	if strings.Contains(command, "bwrap") {
		return "", false
	}
	lines := strings.Split(strings.TrimLeft(output, "\n"), "\n")
	for i, l := range lines {
		switch {
		case i == 0 && strings.HasPrefix(l, "bwrap: "):
			return clip(l), true
		case strings.Contains(l, "bubblewrap is unavailable"):
			return clip(l), true
		case strings.Contains(l, "panicked at linux-sandbox/"):
			if i+1 < len(lines) && lines[i+1] != "" {
				l += " " + lines[i+1]
			}
			return clip(l), true
		}
	}
	return "", false
}

// maxSandboxMessage bounds [SandboxError.Message].
const maxSandboxMessage = 500

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxSandboxMessage {
		s = s[:maxSandboxMessage] + "…"
	}
	return s
}

// probeTimeout bounds the sandbox probe; starting it takes about a second.
const probeTimeout = 30 * time.Second

// probeSandbox starts Codex's sandbox for mode, as the run did (same
// environment), around "true", and returns what the sandbox said if it
// could not start. A probe that fails some other way (say, a Codex without
// "codex sandbox") tells nothing. It takes about a second.
func probeSandbox(ctx context.Context, codexPath, mode, workDir string, env []string) (string, bool) {
	profile := ":workspace"
	if mode == SandboxReadOnly {
		profile = ":read-only"
	}
	argv := []string{codexPath, "sandbox", "-P", profile, "-C", workDir, "--", "true"}
	res, err := proc.Run(ctx, proc.Spec{Stage: "codex sandbox", Argv: argv, Root: workDir, Env: env, Timeout: probeTimeout})
	var pe *proc.Error
	if err == nil || !errors.As(err, &pe) || pe.Kind != proc.KindExit {
		return "", false
	}
	for l := range strings.Lines(res.Output) {
		if msg, ok := sandboxFailure("true", l); ok {
			return msg, true
		}
	}
	return "", false
}
