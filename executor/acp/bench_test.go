//go:build linux

package acp_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/acp/geminitest"
	"github.com/harnish/harnish/executor/claude/claudetest"
	"github.com/harnish/harnish/executor/codex/codextest"
	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/task"
)

// bareClient is the floor the overhead is measured against: an ACP client
// that allows every permission, reads and writes files with os and runs
// terminals with os/exec, judging nothing.
type bareClient struct {
	mu    sync.Mutex
	terms map[string]*bareTerm
	n     int
}

type bareTerm struct {
	out  bytes.Buffer
	done chan struct{}
	code int
}

func (c *bareClient) RequestPermission(_ context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	for _, o := range p.Options {
		if o.Kind == acpsdk.PermissionOptionKindAllowOnce {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Selected: &acpsdk.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.RequestPermissionOutcome{Cancelled: &acpsdk.RequestPermissionOutcomeCancelled{}}}, nil
}

func (c *bareClient) SessionUpdate(context.Context, acpsdk.SessionNotification) error { return nil }

func (c *bareClient) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	b, _ := os.ReadFile(p.Path)
	return acpsdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *bareClient) WriteTextFile(_ context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	os.MkdirAll(filepath.Dir(p.Path), 0o755)
	return acpsdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *bareClient) CreateTerminal(_ context.Context, p acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	cmd := exec.Command("bash", "-c", p.Command)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	t := &bareTerm{done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &t.out, &t.out
	if err := cmd.Start(); err != nil {
		return acpsdk.CreateTerminalResponse{}, err
	}
	go func() { cmd.Wait(); t.code = cmd.ProcessState.ExitCode(); close(t.done) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	id := "t" + strconv.Itoa(c.n)
	if c.terms == nil {
		c.terms = map[string]*bareTerm{}
	}
	c.terms[id] = t
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *bareClient) term(id string) *bareTerm {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terms[id]
}

func (c *bareClient) TerminalOutput(_ context.Context, p acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	t := c.term(p.TerminalId)
	<-t.done
	code := t.code
	return acpsdk.TerminalOutputResponse{Output: t.out.String(), ExitStatus: &acpsdk.TerminalExitStatus{ExitCode: &code}}, nil
}

func (c *bareClient) WaitForTerminalExit(_ context.Context, p acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	t := c.term(p.TerminalId)
	<-t.done
	code := t.code
	return acpsdk.WaitForTerminalExitResponse{ExitCode: &code}, nil
}

func (c *bareClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, nil
}

func (c *bareClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, nil
}

// bareRun starts ex's agent the way the Executor does (the profile's
// argv, its setup in a fresh HOME, the same environment), drives one
// prompt with the bare client and stops it with SIGTERM.
func bareRun(ctx context.Context, ex *acp.Executor, dir string) (startup time.Duration, err error) {
	p, _ := acp.Lookup(ex.Agent)
	argv := append([]string(nil), ex.Command...)
	if len(argv) == 0 {
		argv = []string{p.Program}
	}
	argv = append(argv, p.Args...)
	if ex.Model != "" && p.ModelArgs != nil {
		argv = append(argv, p.ModelArgs(ex.Model)...)
	}
	tmp, err := os.MkdirTemp("", "acp-bare-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	home := filepath.Join(tmp, "home")
	os.Mkdir(home, 0o700)
	env := append(os.Environ(), "HOME="+home)
	extra, err := p.Setup(home, tmp, ex.Model)
	if err != nil {
		return 0, err
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	for k, v := range ex.Env {
		env = append(env, k+"="+v)
	}
	if ex.Model != "" && p.ModelArgs == nil {
		env = append(env, p.ModelEnv+"="+ex.Model)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	// Stopped as harnish stops it: SIGTERM to its group, SIGKILL after
	// the same grace.
	defer func() {
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(acp.DefaultGrace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	conn := acpsdk.NewClientSideConnection(&bareClient{}, in, out)
	conn.SetLogger(discardLogger)
	if _, err := conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}}); err != nil {
		return 0, err
	}
	s, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		return 0, err
	}
	startup = time.Since(start)
	_, err = conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: s.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("go")}})
	return startup, err
}

// startupLog keeps the start-up the Executor logs when its session is
// open.
type startupLog struct {
	mu sync.Mutex
	d  time.Duration
}

func (l *startupLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *startupLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *startupLog) WithGroup(string) slog.Handler            { return l }
func (l *startupLog) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "startup" {
			l.mu.Lock()
			l.d = a.Value.Duration()
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

// benchAgent is one agent under measurement: an executor talking to a
// fresh server whose script makes calls tool calls (writes of distinct
// files), then ends the turn.
type benchAgent struct {
	name, program string
	newEx         func(tb testing.TB, dir string, calls int) *acp.Executor
}

var benchAgents = []benchAgent{
	{"gemini", "gemini", func(tb testing.TB, dir string, calls int) *acp.Executor {
		var turns []geminitest.Turn
		for i := range calls {
			turns = append(turns, parts(geminitest.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), "x\n")))
		}
		return geminitest.NewServer(tb, append(turns, parts(geminitest.Text("Done.")))...).Executor()
	}},
	{"claude", "claude-code-acp", func(tb testing.TB, dir string, calls int) *acp.Executor {
		var turns []claudetest.Turn
		for i := range calls {
			turns = append(turns, blocks(cWrite(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), "x\n")))
		}
		return claudeExecutor(claudetest.NewServer(tb, append(turns, blocks(claudetest.Text("Done.")))...), nil)
	}},
	{"codex", "codex-acp", func(tb testing.TB, dir string, calls int) *acp.Executor {
		var turns []codextest.Turn
		for i := range calls {
			turns = append(turns, items(codextest.ApplyPatch(fmt.Sprintf("*** Begin Patch\n*** Add File: f%d.txt\n+x\n*** End Patch", i))))
		}
		return codexExecutor(codextest.NewServer(tb, append(turns, items(codextest.Message("Done.")))...), nil)
	}},
}

// BenchmarkOverhead measures each agent driven by harnish's Executor
// against the same agent, started the same way, driven by a bare ACP
// client that mediates nothing, interleaved in one loop: an attempt with
// no tool call (start-up, one model turn, stop) and one with eight file
// writes. It reports the medians and the ratios
// harnish/bare of the start-up and of the cost of one tool call.
//
//	go test -run '^$' -bench Overhead -benchtime 5x ./executor/acp/
func BenchmarkOverhead(b *testing.B) {
	const calls = 8
	for _, ag := range benchAgents {
		b.Run(ag.name, func(b *testing.B) {
			if _, err := exec.LookPath(ag.program); err != nil {
				b.Skipf("%s is not on PATH", ag.program)
			}
			var h0, hk, b0, bk, hs, bs []time.Duration
			run := func(harnish bool, k int) time.Duration {
				dir := testkit.GitTree(b)
				ex := ag.newEx(b, dir, k)
				start := time.Now()
				var err error
				var startup time.Duration
				if harnish {
					log := &startupLog{}
					ex.Logger = slog.New(log)
					_, err = ex.Execute(b.Context(), &executor.Request{Task: &task.Task{ID: "B"}, Attempt: 1, WorkDir: dir, Prompt: "go"})
					startup = log.d
				} else {
					startup, err = bareRun(b.Context(), ex, dir)
				}
				d := time.Since(start)
				if harnish {
					hs = append(hs, startup)
				} else {
					bs = append(bs, startup)
				}
				if err != nil {
					b.Fatalf("harnish %t, %d calls: %v", harnish, k, err)
				}
				for i := range k {
					if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("f%d.txt", i))); err != nil {
						b.Fatalf("harnish %t: call %d wrote nothing: %v", harnish, i, err)
					}
				}
				return d
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// Interleaved, the order turned each round, so drift in the
				// machine's load falls on both sides.
				if i%2 == 0 {
					b0, h0 = append(b0, run(false, 0)), append(h0, run(true, 0))
					bk, hk = append(bk, run(false, calls)), append(hk, run(true, calls))
				} else {
					h0, b0 = append(h0, run(true, 0)), append(b0, run(false, 0))
					hk, bk = append(hk, run(true, calls)), append(bk, run(false, calls))
				}
			}
			// One tool call's cost: per round, the attempt with calls less
			// the one without, over calls; the median of the rounds.
			var dh, db []time.Duration
			for i := range h0 {
				dh, db = append(dh, (hk[i]-h0[i])/calls), append(db, (bk[i]-b0[i])/calls)
			}
			mh0, mb0 := median(h0), median(b0)
			perH, perB := median(dh), median(db)
			b.ReportMetric(mh0.Seconds(), "harnish-attempt-s")
			b.ReportMetric(mb0.Seconds(), "bare-attempt-s")
			b.ReportMetric(mh0.Seconds()/mb0.Seconds(), "attempt-ratio")
			// Start-up proper: from starting the agent to the session open.
			mhs, mbs := median(hs), median(bs)
			b.ReportMetric(mhs.Seconds(), "harnish-start-s")
			b.ReportMetric(mbs.Seconds(), "bare-start-s")
			b.ReportMetric(mhs.Seconds()/mbs.Seconds(), "start-ratio")
			b.ReportMetric(perH.Seconds(), "harnish-call-s")
			b.ReportMetric(perB.Seconds(), "bare-call-s")
			if perB > 0 {
				b.ReportMetric(perH.Seconds()/perB.Seconds(), "call-ratio")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
