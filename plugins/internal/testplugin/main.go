// Command testplugin is the plugin the host's tests start. What it does
// depends on the name it runs under (copies of one binary), and on the
// task ID of each request:
//
//	ok, fail              a report, passing or failing
//	huge                  a reply larger than plugins.MaxReplySize
//	panic                 a panic in the handler (Serve recovers it)
//	crash                 a panic in a goroutine: the process dies
//	exit                  os.Exit mid-call
//	hang                  never answers, ignoring its context
//	spawn                 starts a grandchild (sleep), reports its pid, hangs
//	escape                the same, but the grandchild leaves the group
//	stderr                writes hostile JSON and garbage to stderr, then passes
//	nochecks, verror      implementation errors that must cross as data
//
// Names: testplugin-cookie and testplugin-proto2 fail the handshake;
// testplugin-slow takes 30 s to start; testplugin-bare serves the Verifier service with go-plugin alone (the
// benchmark's baseline). HARNISH_TESTPLUGIN_EXIT=1 exits at once;
// HARNISH_TESTPLUGIN_PIDFILE names a file to write the pid to at start;
// HARNISH_TESTPLUGIN_HOSTILE=1 writes a hostile JSON line to stderr first.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/verify"
)

func main() {
	if os.Getenv("HARNISH_TESTPLUGIN_EXIT") == "1" {
		return
	}
	if os.Getenv("HARNISH_TESTPLUGIN_HOSTILE") == "1" {
		fmt.Fprintln(os.Stderr, `{"@message": 42, "@level":"info"}`)
	}
	if f := os.Getenv("HARNISH_TESTPLUGIN_PIDFILE"); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	switch name := filepath.Base(os.Args[0]); {
	case strings.HasSuffix(name, "-cookie"):
		serveRaw(plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "OTHER_HOST", MagicCookieValue: "x"})
	case strings.HasSuffix(name, "-proto2"):
		serveRaw(plugin.HandshakeConfig{ProtocolVersion: 2, MagicCookieKey: "HARNISH_PLUGIN", MagicCookieValue: os.Getenv("HARNISH_PLUGIN")})
	case strings.HasSuffix(name, "-slow"):
		time.Sleep(30 * time.Second)
	case strings.HasSuffix(name, "-bare"):
		serveRaw(plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "HARNISH_PLUGIN", MagicCookieValue: os.Getenv("HARNISH_PLUGIN")})
	default:
		s := &state{}
		plugins.Serve(plugins.Plugin{
			Name:      "testplugin",
			Version:   "1.2.3",
			Verifier:  s,
			Reviewer:  s,
			Guardrail: s,
			Executor:  s,
			Configure: s.configure,
		})
	}
}

type state struct{ pidfile string }

func (s *state) configure(_ context.Context, settings map[string]string) error {
	if settings["fail"] != "" {
		return errors.New(settings["fail"])
	}
	if s.pidfile = settings["pidfile"]; s.pidfile != "" {
		return os.WriteFile(s.pidfile, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	return nil
}

func (s *state) busy() {
	if s.pidfile != "" {
		_ = os.WriteFile(s.pidfile+".busy", nil, 0o644)
	}
}

func (s *state) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	switch req.Task.ID {
	case "ok":
		return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "echo", Passed: true, OutputTail: req.Task.Objective}}}, nil
	case "fail":
		return &verify.Report{
			Checks:      []verify.CheckResult{{Name: "go test", Argv: []string{"go", "test"}, ExitCode: 1, Duration: time.Second, TestsRun: 3, TestsFailed: 1}},
			Fingerprint: verify.Fingerprint{Class: verify.ClassTest, Hash: "abc", Summary: "TestX failed"},
		}, nil
	case "huge":
		// A reply beyond the host's limit.
		return &verify.Report{Passed: true, Checks: []verify.CheckResult{{Name: "huge", Passed: true, OutputTail: strings.Repeat("x", plugins.MaxReplySize+1)}}}, nil
	case "panic":
		panic("handler panic")
	case "crash":
		s.busy()
		go func() { panic("goroutine panic") }()
	case "exit":
		s.busy()
		os.Exit(7)
	case "hang":
		s.busy()
		select {}
	case "spawn":
		cmd := exec.Command("sleep", "60")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		_ = os.WriteFile(s.pidfile+".child", []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
		s.busy()
		select {}
	case "escape":
		// A grandchild that leaves the process group, holding stdout.
		cmd := exec.Command("setsid", "sleep", "60")
		cmd.Stdout = os.NewFile(1, "stdout")
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		_ = os.WriteFile(s.pidfile+".child", []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
		s.busy()
		select {}
	case "stderr":
		// fd 2 directly, as a crash or a C library would, and os.Stderr,
		// which go-plugin forwards over its stdio stream.
		raw := os.NewFile(2, "stderr")
		fmt.Fprintln(raw, `{"@message": 42, "@level":"info"}`)
		fmt.Fprintln(raw, `{"@message": {"a": [1]}, "@level": 7, "@timestamp": false}`)
		fmt.Fprintln(raw, "\x00\xff garbage {not json")
		fmt.Fprintln(os.Stderr, `{"@message": 43, "@level":"error"}`)
		fmt.Fprintln(os.Stderr, `[WARN] plain warning`)
		fmt.Fprint(os.Stderr, "last words without a newline")
		return &verify.Report{Passed: true}, nil
	case "nochecks":
		return nil, fmt.Errorf("testplugin: %w", verify.ErrNoChecks)
	case "verror":
		return nil, &verify.Error{Kind: verify.KindTimeout, Check: "slow", Tail: "tail", Err: errors.New("inner")}
	case "nofingerprint":
		return &verify.Report{Passed: false}, nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s *state) Review(_ context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	if req.Diff == "bad" {
		return &verify.Review{Findings: []verify.Finding{{Severity: 9, Message: "x"}}}, nil
	}
	var fs []verify.Finding
	for i, f := range req.Files {
		fs = append(fs, verify.Finding{Severity: verify.SeverityHigh, File: f, Line: i + 1, Message: "look at " + f, Rule: "r" + strconv.Itoa(i)})
	}
	return &verify.Review{Findings: fs}, nil
}

func (s *state) Check(_ context.Context, a guardrail.Action) (guardrail.Decision, error) {
	switch {
	case a.Command == "error":
		return guardrail.Decision{}, errors.New("cannot decide")
	case a.Command == "badlevel":
		return guardrail.Decision{Level: 9}, nil
	case strings.Contains(a.Command, "rm -rf /"):
		return guardrail.Decision{Level: guardrail.Hard, Rule: "test.rm", Reason: "no", Match: a.Command}, nil
	}
	return guardrail.Decision{}, nil
}

func (s *state) Execute(_ context.Context, req *executor.Request) (*executor.Result, error) {
	if req.Prompt == "unavailable" {
		return nil, &executor.Error{Kind: executor.KindUnavailable, Tail: "no agent", Usage: executor.Usage{InputTokens: 1}, Err: errors.New("agent missing")}
	}
	return &executor.Result{Status: executor.StatusDone, Summary: req.Prompt, FilesChanged: req.Task.Files, Usage: executor.Usage{InputTokens: 10, OutputTokens: 5, CostUSD: 0.25}}, nil
}

// serveRaw serves the Verifier service with go-plugin alone, under hs.
func serveRaw(hs plugin.HandshakeConfig) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         plugin.PluginSet{"harnish": &rawPlugin{}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}

type rawPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (rawPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginpb.RegisterVerifierServer(s, rawVerifier{})
	return nil
}

func (rawPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("server only")
}

// rawVerifier echoes the payload with no conversion: the least a plugin
// call can cost.
type rawVerifier struct {
	pluginpb.UnimplementedVerifierServer
}

func (rawVerifier) Verify(_ context.Context, req *pluginpb.VerifyRequest) (*pluginpb.VerifyResponse, error) {
	return &pluginpb.VerifyResponse{Passed: true, Checks: []*pluginpb.CheckResult{{Name: "echo", Passed: true, OutputTail: req.GetTask().GetObjective()}}}, nil
}
