package plugins_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// binDir holds the test plugin, built on first use under several names.
var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	if manifest := os.Getenv("HARNISH_PLUGINS_TEST_HOST"); manifest != "" {
		runHost(manifest)
		return
	}
	if path := os.Getenv("HARNISH_PLUGINS_TEST_TRAP"); path != "" {
		runTrap(path)
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// bin returns the path of the test plugin under name, building it once.
// Tests that need no plugin (the fuzzer's workers among them) never build.
func bin(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() { binDir, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("building the test plugin: %v", buildErr)
	}
	return filepath.Join(binDir, name)
}

func build() (string, error) {
	dir, err := os.MkdirTemp("", "harnish-plugins-test")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-o", filepath.Join(dir, "testplugin")}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, "./internal/testplugin")...).CombinedOutput()
	if err != nil {
		return dir, fmt.Errorf("%v\n%s", err, out)
	}
	for _, name := range []string{"testplugin-cookie", "testplugin-proto2", "testplugin-bare", "testplugin-slow"} {
		if err := os.Link(filepath.Join(dir, "testplugin"), filepath.Join(dir, name)); err != nil {
			return dir, err
		}
	}
	return dir, nil
}

// runHost is the test binary re-executed as a host process: it starts the
// plugin of the manifest, makes a call that hangs, says so on stdout and
// waits to be killed.
func runHost(manifest string) {
	m, err := plugins.LoadManifest(manifest)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	h, err := plugins.Open(context.Background(), plugins.Config{Manifest: m})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	v, err := h.Verifier(m.Plugins[0].Name)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("calling")
	_, err = v.Verify(context.Background(), verifyReq("hang", ""))
	fmt.Println("returned:", err)
	os.Exit(1)
}

// runTrap is the test binary re-executed as a host that configures
// go-plugin the ordinary way (its default logger, its own stderr handling)
// and starts a plugin that writes {"@message": 42} to stderr.
func runTrap(path string) {
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), "HARNISH_TESTPLUGIN_HOSTILE=1")
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "HARNISH_PLUGIN", MagicCookieValue: "trap"},
		Plugins:          plugin.PluginSet{"harnish": bareClient{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
	})
	defer client.Kill()
	if _, err := client.Client(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	time.Sleep(2 * time.Second)
	fmt.Println("survived")
}

func sum(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// spec returns a manifest entry for the test plugin under name, with a
// pidfile setting the plugin writes its pid to.
func spec(t testing.TB, name string) plugins.Spec {
	t.Helper()
	path := bin(t, name)
	return plugins.Spec{
		Name:     "tp",
		Path:     path,
		SHA256:   sum(t, path),
		Settings: map[string]string{"pidfile": filepath.Join(t.TempDir(), "pid")},
	}
}

// logSink collects log records as "LEVEL msg k=v ..." lines.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (s *logSink) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.lines = append(s.lines, strings.TrimSpace(string(p)))
		return len(p), nil
	}), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (s *logSink) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func open(t testing.TB, specs ...plugins.Spec) (*plugins.Host, *logSink) {
	t.Helper()
	sink := &logSink{}
	h, err := plugins.Open(t.Context(), plugins.Config{Manifest: &plugins.Manifest{Plugins: specs}, Logger: sink.logger()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h, sink
}

func verifyReq(id, objective string) *verify.Request {
	return &verify.Request{Task: &task.Task{ID: id, Title: "t", Objective: objective}, PhaseID: "p", Attempt: 1}
}

// readPid waits for the file the test plugin writes its pid (or a child's)
// to.
func readPid(t testing.TB, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			pid, err := strconv.Atoi(string(b))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func waitFile(t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

// alive reports whether pid is a live process; a zombie is not alive.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// gone fails the test unless pid is dead within d.
func gone(t testing.TB, pid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %v", pid, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lines returns a channel of r's lines.
func lines(r io.Reader) <-chan string {
	ch := make(chan string, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}
