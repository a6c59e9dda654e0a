package plugins

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"github.com/harnish/harnish/plugins/internal/pluginpb"
)

// instance is one running plugin: a process, or an in-process server.
type instance struct {
	conn grpc.ClientConnInterface
	// alive reports whether the plugin can still answer.
	alive func() bool
	// stop ends the plugin and everything it started, and waits for it.
	stop func()
	// tail returns the end of the plugin's stderr.
	tail func() string
	info Info
}

// stdoutGrace is how long stopping a plugin waits for its stdout to close.
const stdoutGrace = time.Second

// startTimeout bounds the handshake and Describe of a starting plugin.
const startTimeout = time.Minute

// quietLogger is go-plugin's logger on the host: off, writing nowhere.
func quietLogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off})
}

// startProcess checks spec's binary against its checksum, starts it,
// shakes hands and asks it to Describe itself.
func startProcess(ctx context.Context, logCtx context.Context, spec Spec, log *slog.Logger) (*instance, error) {
	fault := func(k Kind, err error) error { return &Error{Plugin: spec.Name, Kind: k, Err: err} }
	want, _ := hex.DecodeString(spec.SHA256) // validated
	bin, err := pinBinary(spec.Name, spec.Path, want)
	if err != nil {
		return nil, err
	}
	// Once the process runs, only its copy (if any) is left to remove.
	defer bin.started()

	tail := newSyncTail()
	stderr := newLogWriter(logCtx, log, spec.Name, "stderr", tail)
	if err := ctx.Err(); err != nil {
		bin.remove()
		return nil, fmt.Errorf("plugins: %q: %w", spec.Name, context.Cause(ctx))
	}
	// rp is set by go-plugin's call of RunnerFunc, read by stop and by the
	// cancellation below.
	var rp atomic.Pointer[procRunner]
	timeout := startTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	// What the plugin writes to stderr once it serves comes through
	// go-plugin; a last line without its newline is flushed on stop.
	syncStderr := newLogWriter(logCtx, log, spec.Name, "stderr", tail)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake,
		Plugins:          plugin.PluginSet{pluginKey: &grpcPlugin{}},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			r, err := newProcRunner(bin, spec.Path, cmd.Env, stderr, tail)
			if err != nil {
				return nil, err
			}
			rp.Store(r)
			return r, nil
		},
		Logger:       quietLogger(),
		SyncStdout:   newLogWriter(logCtx, log, spec.Name, "stdout", nil),
		SyncStderr:   syncStderr,
		StartTimeout: timeout,
	})
	stop := func() {
		defer bin.remove()
		r := rp.Load()
		if r == nil {
			client.Kill()
			return
		}
		r.grp.Kill(nil)
		// go-plugin reads stdout to EOF before it reaps the process; a
		// grandchild that left the group and holds stdout would keep Kill
		// waiting for ever, so our end of the pipe is closed after a grace.
		t := time.AfterFunc(stdoutGrace, func() { _ = r.stdout.Close() })
		client.Kill()
		t.Stop()
		syncStderr.Flush()
		r.release()
	}
	inst := &instance{
		alive: func() bool { return !client.Exited() },
		// A crash seen by two calls at once, or by a call and Close, stops
		// it twice; the second waits for the first.
		stop: sync.OnceFunc(stop),
		tail: tail.String,
	}
	// go-plugin's start does not watch ctx; killing the process ends it.
	unwatch := context.AfterFunc(ctx, func() {
		if r := rp.Load(); r != nil {
			r.grp.Kill(nil)
		}
	})
	rpc, err := client.Client()
	unwatch()
	if ctx.Err() != nil {
		inst.stop()
		return nil, fmt.Errorf("plugins: %q: %w", spec.Name, context.Cause(ctx))
	}
	if err != nil {
		inst.stop()
		return nil, startFault(spec.Name, err, tail.String())
	}
	raw, err := rpc.Dispense(pluginKey)
	if err != nil {
		inst.stop()
		return nil, fault(KindProtocol, err)
	}
	inst.conn = limitedConn{raw.(*grpc.ClientConn)}
	if inst.info, err = describe(ctx, inst.conn, spec); err != nil {
		inst.stop()
		return nil, err
	}
	return inst, nil
}

// cookieRefused is what go-plugin's Serve prints when the magic cookie is
// not its own.
const cookieRefused = "This binary is a plugin"

// startFault classifies a failed start, with the plugin's stderr.
func startFault(name string, err error, tail string) error {
	tail = strings.TrimSpace(tail)
	msg := err.Error()
	kind := KindUnavailable
	switch {
	case strings.Contains(strings.ToLower(msg), "incompatible api version"),
		strings.Contains(strings.ToLower(msg), "incompatible core api version"):
		kind = KindHandshake
		err = fmt.Errorf("host speaks plugin protocol %d: %w", ProtocolVersion, err)
	case strings.Contains(tail, cookieRefused):
		kind = KindHandshake
		err = fmt.Errorf("plugin refused the host's magic cookie %s=%s: it is built for another host",
			handshake.MagicCookieKey, handshake.MagicCookieValue)
	}
	if tail != "" && kind != KindHandshake {
		err = fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return &Error{Plugin: name, Kind: kind, Err: err}
}

// describe asks the plugin who it is, hands it its settings and checks its
// versions against the host's and the manifest's constraints.
func describe(ctx context.Context, conn grpc.ClientConnInterface, spec Spec) (Info, error) {
	fault := func(k Kind, err error) error { return &Error{Plugin: spec.Name, Kind: k, Err: err} }
	// Starting stays quick whatever the calls may take: the manifest's
	// timeout, capped at DefaultGuardrailTimeout (documented on Configure).
	timeout := DefaultGuardrailTimeout
	if spec.Timeout > 0 {
		timeout = min(timeout, spec.Timeout)
	}
	timeoutErr := fmt.Errorf("describe exceeded its timeout of %v", timeout)
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, timeoutErr)
	defer cancel()
	resp, err := pluginpb.NewDescribeClient(conn).Describe(cctx, &pluginpb.DescribeRequest{Settings: spec.Settings, ApiVersion: APIVersion})
	if err != nil {
		return Info{}, transportFault(ctx, cctx, spec.Name, err, "", timeoutErr)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return Info{}, fault(KindUnavailable, fmt.Errorf("configure: %w", remote(spec.Name, d)))
	}
	v, err := semver.NewVersion(resp.GetVersion())
	if err != nil {
		return Info{}, fault(KindProtocol, fmt.Errorf("field version: %q: %v", resp.GetVersion(), err))
	}
	if spec.Version != "" {
		c, _ := semver.NewConstraint(spec.Version) // validated
		if !c.Check(v) {
			return Info{}, fault(KindVersion, fmt.Errorf("plugin version %s does not satisfy the manifest's constraint %q", v, spec.Version))
		}
	}
	api, err := negotiateAPI(resp.GetApiVersions())
	if err != nil {
		return Info{}, fault(KindVersion, err)
	}
	info := Info{Name: spec.Name, PluginName: resp.GetName(), Version: v.String(), APIVersion: api}
	for _, c := range resp.GetCapabilities() {
		switch cp := Capability(c); cp {
		case CapVerifier, CapReviewer, CapGuardrail, CapExecutor, CapDebugger, CapAdvisor:
			info.Capabilities = append(info.Capabilities, cp)
		}
	}
	return info, nil
}

// negotiateAPI picks the highest API version of the plugin's that the host
// speaks.
func negotiateAPI(offered []string) (string, error) {
	host, _ := semver.NewConstraint(hostAPI)
	var best *semver.Version
	for _, s := range offered {
		v, err := semver.NewVersion(s)
		if err != nil || !host.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best = v
		}
	}
	if best == nil {
		return "", fmt.Errorf("plugin supports API versions %v; host speaks %s (%s)", offered, APIVersion, hostAPI)
	}
	return best.String(), nil
}

// errClosed is the cause of an [ErrPluginUnavailable] from a call made
// after Close, or cut short by it.
var errClosed = errors.New("host closed")
