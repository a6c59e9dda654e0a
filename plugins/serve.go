package plugins

import (
	"context"
	"fmt"
	"os"

	"github.com/Masterminds/semver/v3"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/verify"
)

// Plugin is what a plugin program serves: one or more components, and who
// it is. Set the components it offers; the host sees the others as
// unavailable.
type Plugin struct {
	// Name is the plugin's own name, shown by the host; required.
	Name string
	// Version is the plugin's semver, checked against the manifest's
	// constraint; required.
	Version string
	// APIVersions are the plugin API versions it supports. Nil means
	// []string{APIVersion}.
	APIVersions []string

	Verifier  verify.Verifier
	Reviewer  verify.Reviewer
	Guardrail guardrail.Guardrail
	Executor  executor.Executor
	Debugger  executor.Debugger
	Advisor   executor.Advisor

	// Configure, if set, receives the manifest's settings each time the host
	// starts the plugin, before any call. An error makes the plugin
	// unavailable to the host.
	//
	// It runs within the host's Describe, whose deadline is the manifest's
	// timeout capped at [DefaultGuardrailTimeout] (30 s): starting a
	// plugin must stay quick however long its calls may take, so Configure
	// should check its settings, not do the work; ctx carries the deadline.
	Configure func(ctx context.Context, settings map[string]string) error
}

func (p *Plugin) validate() error {
	if p.Name == "" {
		return fmt.Errorf("plugins: Plugin.Name is empty")
	}
	if _, err := semver.NewVersion(p.Version); err != nil {
		return fmt.Errorf("plugins: Plugin.Version %q: %v", p.Version, err)
	}
	if len(p.capabilities()) == 0 {
		return fmt.Errorf("plugins: plugin %q serves no component", p.Name)
	}
	return nil
}

func (p *Plugin) capabilities() []Capability {
	var caps []Capability
	if p.Verifier != nil {
		caps = append(caps, CapVerifier)
	}
	if p.Reviewer != nil {
		caps = append(caps, CapReviewer)
	}
	if p.Guardrail != nil {
		caps = append(caps, CapGuardrail)
	}
	if p.Executor != nil {
		caps = append(caps, CapExecutor)
	}
	if p.Debugger != nil {
		caps = append(caps, CapDebugger)
	}
	if p.Advisor != nil {
		caps = append(caps, CapAdvisor)
	}
	return caps
}

// Serve runs p as a plugin program and returns when the host tells it to
// stop. Call it from main, and only from a program a harnish host starts:
// it speaks the handshake on stdout, and exits at once if the host dies
// (the lifeline), killing its own process group.
//
// Serve panics if p is incomplete: that is a bug of the plugin, and the
// host reports the plugin's stderr.
func Serve(p Plugin) {
	if err := p.validate(); err != nil {
		panic(err)
	}
	watchLifeline()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake,
		Plugins:         plugin.PluginSet{pluginKey: &grpcPlugin{impl: &p}},
		GRPCServer:      plugin.DefaultGRPCServer,
		// Only go-plugin's errors, as JSON lines the host parses into its
		// log; os.Stderr is still the real stderr here.
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:       p.Name,
			Level:      hclog.Error,
			Output:     os.Stderr,
			JSONFormat: true,
		}),
	})
}
