package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/testkit"
)

// TestHook: "harnish hook" is wired to the hook command, its input on
// standard input, its help "harnish help hook".
func TestHook(t *testing.T) {
	t.Setenv(guardrail.EnvHookLog, "")
	t.Setenv("HARNISH_WORKDIR", "")
	in := filepath.Join(t.TempDir(), "call.json")
	call := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"},"cwd":"` + t.TempDir() + `"}`
	if err := os.WriteFile(in, []byte(call), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = stdin }()
	var out, errb bytes.Buffer
	if code := run([]string{"hook", "pre-tool-use", "--agent", "codex"}, &out, &errb); code != 2 ||
		!strings.HasPrefix(errb.String(), "harnish guardrail git.force-push blocked this: ") || out.Len() > 0 {
		t.Errorf("hook pre-tool-use: exit %d, stdout %q, stderr %q; want the push blocked", code, out.String(), errb.String())
	}
	var help, hookHelp bytes.Buffer
	run([]string{"help", "hook"}, &help, &errb)
	run([]string{"hook", "--help"}, &hookHelp, &errb)
	if !strings.HasPrefix(help.String(), "Usage: harnish hook pre-tool-use|stop --agent claude|codex\n\nHook is what") ||
		help.String() != hookHelp.String() {
		t.Errorf("help hook:\n%s\nhook --help:\n%s", help.String(), hookHelp.String())
	}
}

// TestHookStopTerminated: an agent that terminates its stop hook ends the
// checks the hook runs too, not only the hook.
func TestHookStopTerminated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := harnishBinary(t)
	plan := `version: 1
name: slow
phases:
  - id: p1
    tasks:
      - id: T1
        title: slow check
        acceptance: [{sh: "echo $$ > check.pid; exec sleep 120"}]
`
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": plan})
	cmd := exec.Command(bin, "hook", "stop", "--agent", "codex", "--task", "T1")
	cmd.Stdin = strings.NewReader(`{"hook_event_name": "Stop", "cwd": "` + dir + `"}`)
	cmd.Env = append(os.Environ(), "HARNISH_WORKDIR="+dir, guardrail.EnvHookLog+"=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "check.pid")
	var pid int
	for deadline := time.Now().Add(30 * time.Second); ; {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the check never started: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the hook outlived SIGTERM by 30s")
	}
	for range 50 {
		if processGone(pid) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill() // the test's own leftover
	}
	t.Errorf("the check's process %d outlived the terminated hook (stderr %q)", pid, stderr.String())
}

// processGone reports whether pid no longer runs: it does not exist, or is
// a zombie nobody reaped (in a container without an init, an orphan stays
// one).
func processGone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z")
}
