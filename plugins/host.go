package plugins

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/verify"
)

// Config configures a [Host].
type Config struct {
	// Manifest lists the plugins to start; required.
	Manifest *Manifest
	// Logger receives the plugins' stderr and stdout, one record per line
	// with a "plugin" attribute. Nil discards them.
	Logger *slog.Logger
}

// Info describes a running plugin, as it described itself.
type Info struct {
	// Name is the plugin's name in the manifest.
	Name string
	// PluginName is the name the plugin gives itself.
	PluginName string
	// Version is the plugin's semver.
	Version string
	// APIVersion is the plugin API version host and plugin agreed on.
	APIVersion   string
	Capabilities []Capability
}

// Host runs the plugins of a manifest and hands out their components as
// ordinary verify.Verifier, verify.Reviewer, guardrail.Guardrail and
// executor.Executor values, safe for concurrent use.
//
// Every plugin starts in Open, so a missing binary, a wrong checksum or an
// incompatible version is an error there rather than in the middle of a
// run; it then stays warm for every call. A plugin that crashes is started
// again on the next call. Close stops them all.
type Host struct {
	handles map[string]*handle
	names   []string
}

// Open validates cfg, starts every plugin of the manifest and checks its
// version. On error, plugins already started are stopped again.
func Open(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.Manifest == nil {
		return nil, errors.New("plugins: Config.Manifest is nil")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	logCtx := context.WithoutCancel(ctx)
	specs := make([]Spec, len(cfg.Manifest.Plugins))
	seen := map[string]bool{}
	for i, s := range cfg.Manifest.Plugins {
		if f, err := s.validate(); err != nil {
			return nil, fmt.Errorf("plugins: plugin %d (%q): %s: %w", i, s.Name, f, err)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("plugins: plugin %d: duplicate name %q", i, s.Name)
		}
		// The file hashed must be the file run: a bare name would be
		// looked up in PATH by exec but read from the current directory.
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			return nil, fmt.Errorf("plugins: plugin %q: path: %w", s.Name, err)
		}
		s.Path = abs
		seen[s.Name] = true
		specs[i] = s
	}
	starts := make(map[string]startFunc, len(specs))
	for _, s := range specs {
		starts[s.Name] = func(ctx context.Context) (*instance, error) {
			return startProcess(ctx, logCtx, s, log)
		}
	}
	return openWith(ctx, specs, starts)
}

type startFunc func(ctx context.Context) (*instance, error)

func openWith(ctx context.Context, specs []Spec, starts map[string]startFunc) (*Host, error) {
	h := &Host{handles: map[string]*handle{}}
	for _, s := range specs {
		hd := newHandle(s, starts[s.Name])
		h.handles[s.Name] = hd
		h.names = append(h.names, s.Name)
		if _, err := hd.get(ctx); err != nil {
			h.Close()
			return nil, err
		}
	}
	return h, nil
}

// Plugins describes the running plugins, in manifest order.
func (h *Host) Plugins() []Info {
	var out []Info
	for _, n := range h.names {
		hd := h.handles[n]
		hd.mu.Lock()
		out = append(out, hd.info)
		hd.mu.Unlock()
	}
	return out
}

func (h *Host) lookup(name string, c Capability) (*handle, error) {
	hd, ok := h.handles[name]
	if !ok {
		return nil, &Error{Plugin: name, Kind: KindUnavailable, Err: errors.New("no such plugin in the manifest")}
	}
	hd.mu.Lock()
	caps := hd.info.Capabilities
	hd.mu.Unlock()
	if !slices.Contains(caps, c) {
		return nil, &Error{Plugin: name, Kind: KindUnavailable, Err: fmt.Errorf("plugin serves %v, not %s", caps, c)}
	}
	return hd, nil
}

// Verifier returns the verifier of the named plugin.
func (h *Host) Verifier(name string) (verify.Verifier, error) {
	hd, err := h.lookup(name, CapVerifier)
	if err != nil {
		return nil, err
	}
	return remoteVerifier{hd}, nil
}

// Reviewer returns the reviewer of the named plugin.
func (h *Host) Reviewer(name string) (verify.Reviewer, error) {
	hd, err := h.lookup(name, CapReviewer)
	if err != nil {
		return nil, err
	}
	return remoteReviewer{hd}, nil
}

// Guardrail returns the guardrail of the named plugin.
func (h *Host) Guardrail(name string) (guardrail.Guardrail, error) {
	hd, err := h.lookup(name, CapGuardrail)
	if err != nil {
		return nil, err
	}
	return remoteGuardrail{hd}, nil
}

// Executor returns the executor of the named plugin.
func (h *Host) Executor(name string) (executor.Executor, error) {
	hd, err := h.lookup(name, CapExecutor)
	if err != nil {
		return nil, err
	}
	return remoteExecutor{hd}, nil
}

// Debugger returns the debugger of the named plugin.
func (h *Host) Debugger(name string) (executor.Debugger, error) {
	hd, err := h.lookup(name, CapDebugger)
	if err != nil {
		return nil, err
	}
	return remoteDebugger{hd}, nil
}

// Advisor returns the advisor of the named plugin.
func (h *Host) Advisor(name string) (executor.Advisor, error) {
	hd, err := h.lookup(name, CapAdvisor)
	if err != nil {
		return nil, err
	}
	return remoteAdvisor{hd}, nil
}

// Close stops every plugin and its process tree, and waits for them. Calls
// after Close fail with [ErrPluginUnavailable]. It is safe to call twice.
func (h *Host) Close() error {
	for _, n := range h.names {
		h.handles[n].close()
	}
	return nil
}

// handle is one plugin of the manifest, across restarts.
type handle struct {
	spec  Spec
	start startFunc

	// sem is the start lock, one slot, held while the instance is
	// replaced: a start can take a minute, so it is taken with the
	// caller's context, which a sync.Mutex would ignore.
	sem chan struct{}

	// mu guards the fields below and is never held across a start, so
	// Plugins, lookups and Close do not wait for one.
	mu     sync.Mutex
	inst   *instance
	info   Info
	closed bool
	// cancelStart cancels the start in progress, if any.
	cancelStart context.CancelCauseFunc
}

func newHandle(s Spec, start startFunc) *handle {
	return &handle{spec: s, start: start, sem: make(chan struct{}, 1)}
}

func (hd *handle) closedErr() error {
	return &Error{Plugin: hd.spec.Name, Kind: KindUnavailable, Err: errClosed}
}

// running returns the instance if it can answer, or an error if the
// handle is closed.
func (hd *handle) running() (*instance, error) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.closed {
		return nil, hd.closedErr()
	}
	if hd.inst != nil && hd.inst.alive() {
		return hd.inst, nil
	}
	return nil, nil
}

// get returns the running instance, starting it if it is not running. A
// caller that finds another's start in progress waits for it only as long
// as its ctx allows.
func (hd *handle) get(ctx context.Context) (*instance, error) {
	if inst, err := hd.running(); inst != nil || err != nil {
		return inst, err
	}
	select {
	case hd.sem <- struct{}{}:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &Error{Plugin: hd.spec.Name, Kind: KindTimeout,
				Err: fmt.Errorf("waiting for the plugin to start: %w", context.Cause(ctx))}
		}
		return nil, fmt.Errorf("plugins: %q: %w", hd.spec.Name, context.Cause(ctx))
	}
	defer func() { <-hd.sem }()
	if inst, err := hd.running(); inst != nil || err != nil {
		return inst, err
	}
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hd.mu.Lock()
	old := hd.inst
	hd.inst = nil
	hd.cancelStart = cancel
	hd.mu.Unlock()
	if old != nil {
		old.stop()
	}
	inst, err := hd.start(sctx)
	hd.mu.Lock()
	hd.cancelStart = nil
	closed := hd.closed
	if err == nil && !closed {
		hd.inst, hd.info = inst, inst.info
	}
	hd.mu.Unlock()
	switch {
	case closed:
		if err == nil {
			inst.stop()
		}
		return nil, hd.closedErr()
	case err != nil:
		return nil, err
	}
	return inst, nil
}

// isClosed reports whether Close has run.
func (hd *handle) isClosed() bool {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	return hd.closed
}

// lost stops inst after a crash, so the next call starts a fresh one, and
// returns the end of its stderr.
func (hd *handle) lost(inst *instance) string {
	hd.mu.Lock()
	if hd.inst == inst {
		hd.inst = nil
	}
	hd.mu.Unlock()
	inst.stop()
	return inst.tail()
}

// close marks the handle closed, kills a start in progress (which then
// ends promptly), and stops the instance.
func (hd *handle) close() {
	hd.mu.Lock()
	hd.closed = true
	if hd.cancelStart != nil {
		hd.cancelStart(errClosed)
	}
	hd.mu.Unlock()
	hd.sem <- struct{}{}
	defer func() { <-hd.sem }()
	hd.mu.Lock()
	inst := hd.inst
	hd.inst = nil
	hd.mu.Unlock()
	if inst != nil {
		inst.stop()
	}
}

// timeout is the deadline of one call of component c.
func (hd *handle) timeout(c Capability) time.Duration {
	switch {
	case hd.spec.Timeout > 0:
		return hd.spec.Timeout
	case c == CapGuardrail:
		return DefaultGuardrailTimeout
	}
	return DefaultTimeout
}
