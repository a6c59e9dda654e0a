package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
)

// syncBuffer is a bytes.Buffer for a writer and a reader in two goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveAgent is agent.sh for TestServeWatchApprove: T2's first attempt
// waits for the file "proceed" and fails its check; its second passes.
const serveAgent = `case "$HARNISH_TASK_ID/$HARNISH_ATTEMPT" in
T1/*) touch a.txt ;;
T2/1) while [ ! -f proceed ]; do sleep 0.02; done ;;
T2/*) touch b.txt ;;
esac
echo '{"usage": {"input_tokens": 1000, "output_tokens": 234, "cost_usd": 0.5}}' > "$HARNISH_RESULT_FILE"
`

// TestServeWatchApprove: harnish status --watch, started before any run,
// follows the run to its milestone and ends with its status; harnish serve
// --approve shows the run waiting, a person approves it from the page with
// the token, and the run goes on in serve's process; a second watch
// follows it, while a task is running, to the end.
func TestServeWatchApprove(t *testing.T) {
	dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": serveAgent})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var watch1 syncBuffer
	watched := make(chan int, 1)
	go func() { watched <- watch(ctx, dir, 10*time.Millisecond, &watch1, &watch1) }()
	waitUntil(t, func() bool { return strings.Contains(watch1.String(), "waiting for one to start") })
	var out bytes.Buffer
	if code := run([]string{"run", "--dir", dir}, &out, &out); code != 2 {
		t.Fatalf("run: exit %d, want 2 (at the milestone)\n%s", code, out.String())
	}
	wantExit(t, watched, 2, &watch1)
	for _, want := range []string{"T1 done", "milestone after phase p1\n", "awaiting-approval: milestone after phase p1"} {
		if !strings.Contains(watch1.String(), want) {
			t.Errorf("the first watch lacks %q:\n%s", want, watch1.String())
		}
	}

	const token = "a-token-of-the-test-0123"
	addr := make(chan string, 1)
	var serveOut syncBuffer
	served := make(chan int, 1)
	go func() {
		served <- serve(ctx, &serveFlags{dir: dir, addr: "127.0.0.1:0", approve: true, token: token,
			ready: func(a string) { addr <- a }}, &serveOut, &serveOut)
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a + "/"
	case code := <-served:
		t.Fatalf("serve: exit %d\n%s", code, serveOut.String())
	}
	page := fetch(t, base)
	for _, want := range []string{`id="t-T1" class="task s-done"`, `id="t-T2" class="task s-pending"`, "Milestone after phase p1", `action="approve"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	resp, err := http.PostForm(base+"approve", url.Values{"phase": {"p1"}, "token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK { // after the redirect to the page
		t.Fatalf("approve: %s\n%s", resp.Status, serveOut.String())
	}
	waitUntil(t, func() bool { return strings.Contains(fetch(t, base), `id="t-T2" class="task s-running"`) })

	var watch2 syncBuffer
	go func() { watched <- watch(ctx, dir, 10*time.Millisecond, &watch2, &watch2) }()
	waitUntil(t, func() bool { return strings.Contains(watch2.String(), "T2           running") })
	if err := os.WriteFile(filepath.Join(dir, "proceed"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wantExit(t, watched, 0, &watch2)
	for _, want := range []string{"T2 attempt 1: verify failure", "T2 attempt 2 finished", "T2 done", "\ncompleted\n"} {
		if !strings.Contains(watch2.String(), want) {
			t.Errorf("the second watch lacks %q:\n%s", want, watch2.String())
		}
	}
	waitUntil(t, func() bool { return strings.Contains(fetch(t, base), `id="run-status">completed<`) })
	cancel()
	if code := <-served; code != 0 {
		t.Errorf("serve: exit %d\n%s", code, serveOut.String())
	}
	st, err := loop.ReadState(filepath.Join(dir, loop.StateDir))
	if err != nil || st.Outcome != "completed" {
		t.Fatalf("state: %v %+v", err, st)
	}
}

func wantExit(t *testing.T, exited <-chan int, want int, out *syncBuffer) {
	t.Helper()
	select {
	case code := <-exited:
		if code != want {
			t.Errorf("status --watch: exit %d, want %d\n%s", code, want, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("status --watch did not end with the run:\n%s", out.String())
	}
}

// A page over a tree with no run yet says so, and serve refuses an address
// it cannot listen on.
func TestServeNoRunAndBadAddr(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	served := make(chan int, 1)
	var errb syncBuffer
	go func() {
		served <- serve(ctx, &serveFlags{dir: dir, addr: "127.0.0.1:0", ready: func(a string) { addr <- a }}, io.Discard, &errb)
	}()
	if page := fetch(t, "http://"+<-addr+"/"); !strings.Contains(page, "No run is recorded here yet") {
		t.Errorf("the page of no run:\n%s", page)
	}
	cancel()
	<-served
	var b bytes.Buffer
	if code := run([]string{"serve", "--dir", dir, "--addr", "256.0.0.1:1"}, &b, &b); code != exitError {
		t.Errorf("serve at a bad address: exit %d: %s", code, b.String())
	}
}

func fetch(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatal("timed out")
}
