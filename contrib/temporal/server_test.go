package temporal_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	temporal "github.com/harnish/harnish/contrib/temporal"
)

// The tests against a real Temporal server run the dev server this module
// ships (devserver/, a module of its own: .ci/run builds it) and point
// HARNISH_TEMPORAL_DEVSERVER at the binary; with HARNISH_REQUIRE_TEMPORAL
// set they fail rather than skip without it. HARNISH_TEMPORAL_ADDRESS
// names a server already running instead, which the tests leave alone but
// for the one that kills a server (it always starts its own).

const (
	envDevServer = "HARNISH_TEMPORAL_DEVSERVER"
	envRequire   = "HARNISH_REQUIRE_TEMPORAL"
	envAddress   = "HARNISH_TEMPORAL_ADDRESS"
	// envWorker makes the test binary a worker process of the queue it
	// names, on the server at envWorkerAddr, until SIGTERM or SIGKILL.
	envWorker     = "HARNISH_TEMPORAL_TEST_WORKER"
	envWorkerAddr = "HARNISH_TEMPORAL_TEST_WORKER_ADDR"
)

// shared is the server the tests share, started by TestMain when needed.
var shared struct {
	addr string
	err  error
	stop func()
}

func TestMain(m *testing.M) {
	if q := os.Getenv(envWorker); q != "" {
		os.Exit(workerMain(os.Getenv(envWorkerAddr), q))
	}
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	os.Exit(code)
}

// workerMain is the test binary as a worker process: the workflow and the
// activities with harnish's own components, as harnish-temporal worker runs
// them.
func workerMain(addr, queue string) int {
	c, err := dial(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w := worker.New(c, queue, worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	a := &temporal.Activities{Build: temporal.Harnish(""), HeartbeatEvery: 500 * time.Millisecond}
	if os.Getenv("HARNISH_TEMPORAL_VERBOSE") != "" { // the worker's warnings, to debug a test
		a.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c.Close()
		if c, err = client.Dial(client.Options{HostPort: addr, Namespace: "default", Logger: sdklog.NewStructuredLogger(a.Logger)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		w = worker.New(c, queue, worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	}
	temporal.Register(w, a)
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	w.Stop()
	return 0
}

func dial(addr string) (client.Client, error) {
	return client.Dial(client.Options{HostPort: addr, Namespace: "default",
		Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
}

// devServer returns the dev server's binary, or skips (fails, where a real
// server is required) without one.
func devServer(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(envDevServer)
	if bin == "" {
		if os.Getenv(envRequire) != "" {
			t.Fatalf("%s is set and %s names no dev server binary (.ci/run builds one from contrib/temporal/devserver)", envRequire, envDevServer)
		}
		t.Skipf("no Temporal dev server: set %s to a build of contrib/temporal/devserver", envDevServer)
	}
	return bin
}

// sharedServer returns the address of the server the tests share: the one
// HARNISH_TEMPORAL_ADDRESS names, or one started for this test binary.
func sharedServer(t *testing.T) string {
	t.Helper()
	if a := os.Getenv(envAddress); a != "" {
		return a
	}
	if shared.addr == "" && shared.err == nil {
		bin := devServer(t)
		dir, err := os.MkdirTemp("", "harnish-temporal-")
		if err == nil {
			var s *server
			s, err = startServer(bin, dir, freeAddr(t))
			if err == nil {
				shared.addr = s.addr
				shared.stop = func() { s.stop(); os.RemoveAll(dir) }
			}
		}
		shared.err = err
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.addr
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// server is a dev server process this test binary started.
type server struct {
	bin, dir, addr string
	cmd            *exec.Cmd
}

// startServer starts the dev server on dir and addr and waits until it
// answers.
func startServer(bin, dir, addr string) (*server, error) {
	s := &server{bin: bin, dir: dir, addr: addr}
	log, err := os.OpenFile(filepath.Join(dir, "devserver.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	s.cmd = exec.Command(bin, "-dir", dir, "-addr", addr)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		c, err := dial(addr)
		if err == nil {
			_, err = c.CheckHealth(context.Background(), &client.CheckHealthRequest{})
			c.Close()
		}
		if err == nil {
			return s, nil
		}
		if s.cmd.ProcessState != nil || time.Now().After(deadline) {
			s.kill()
			out, _ := os.ReadFile(filepath.Join(dir, "devserver.log"))
			return nil, fmt.Errorf("the dev server did not come up on %s: %v\n%s", addr, err, tailOf(string(out)))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop ends the server as a person would (SIGTERM), or kills it.
func (s *server) stop() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.kill()
		<-done
	}
}

// kill ends the server at once, as a crash does.
func (s *server) kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	s.cmd.Wait()
}

// workerProc is a worker process (this test binary, see TestMain).
type workerProc struct{ cmd *exec.Cmd }

func startWorker(t *testing.T, addr, queue string) *workerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envWorker+"="+queue, envWorkerAddr+"="+addr)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its agents die with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProc{cmd}
	t.Cleanup(w.kill)
	return w
}

func (w *workerProc) kill() {
	if w.cmd.ProcessState != nil {
		return
	}
	syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	w.cmd.Wait()
}

func tailOf(s string) string {
	if len(s) > 4000 {
		return s[len(s)-4000:]
	}
	return s
}

// waitFile waits for a file the executor touches.
func waitFile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear in %s", path, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// countLines counts the lines of the executor's log that start with prefix.
func countLines(t *testing.T, path, prefix string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	n := 0
	for l := range strings.Lines(string(data)) {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// historyOf returns a workflow run's history length (events) and size
// (bytes), as the server counts them.
func historyOf(t *testing.T, c client.Client, id, runID string) (int64, int64) {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(context.Background(), id, runID)
	if err != nil {
		t.Fatal(err)
	}
	return d.WorkflowExecutionInfo.HistoryLength, d.WorkflowExecutionInfo.HistorySizeBytes
}
