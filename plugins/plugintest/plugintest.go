package plugintest

import (
	"context"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/internal/hostlink"
	"github.com/harnish/harnish/verify"
)

// Name is the name the harness gives the plugin on its host.
const Name = "plugintest"

// Options adjust [StartWith].
type Options struct {
	// Settings are handed to the plugin's Configure, as a manifest's would.
	Settings map[string]string
}

// Harness is a host holding one plugin served in process. It is closed when
// the test ends.
type Harness struct {
	tb   testing.TB
	Host *plugins.Host
}

// Start serves p in process and returns its harness; it fails the test if
// the plugin cannot start (e.g. its Configure fails or its version is not
// semver).
func Start(tb testing.TB, p plugins.Plugin) *Harness {
	tb.Helper()
	return StartWith(tb, p, Options{})
}

// StartWith is [Start] with options.
func StartWith(tb testing.TB, p plugins.Plugin, o Options) *Harness {
	tb.Helper()
	h, err := Open(tb.Context(), p, o)
	if err != nil {
		tb.Fatalf("plugintest: %v", err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	return &Harness{tb: tb, Host: h}
}

// Open is Start for callers that want the error, such as a test that the
// plugin refuses bad settings. The caller closes the host.
func Open(ctx context.Context, p plugins.Plugin, o Options) (*plugins.Host, error) {
	h, err := hostlink.InProcess(ctx, Name, p, o.Settings)
	if err != nil {
		return nil, err
	}
	return h.(*plugins.Host), nil
}

// Verifier returns the plugin's verifier as the host sees it.
func (h *Harness) Verifier() verify.Verifier {
	h.tb.Helper()
	v, err := h.Host.Verifier(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return v
}

// Reviewer returns the plugin's reviewer as the host sees it.
func (h *Harness) Reviewer() verify.Reviewer {
	h.tb.Helper()
	r, err := h.Host.Reviewer(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return r
}

// Guardrail returns the plugin's guardrail as the host sees it.
func (h *Harness) Guardrail() guardrail.Guardrail {
	h.tb.Helper()
	g, err := h.Host.Guardrail(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return g
}

// Executor returns the plugin's executor as the host sees it.
func (h *Harness) Executor() executor.Executor {
	h.tb.Helper()
	e, err := h.Host.Executor(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return e
}

// Debugger returns the plugin's debugger as the host sees it.
func (h *Harness) Debugger() executor.Debugger {
	h.tb.Helper()
	d, err := h.Host.Debugger(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return d
}

// Advisor returns the plugin's advisor as the host sees it.
func (h *Harness) Advisor() executor.Advisor {
	h.tb.Helper()
	a, err := h.Host.Advisor(Name)
	if err != nil {
		h.tb.Fatalf("plugintest: %v", err)
	}
	return a
}
