package plugins

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// The two layers of versioning. ProtocolVersion is go-plugin's integer
// protocol version: a plugin built for another major does not get past the
// handshake. APIVersion is negotiated within it by Describe: a plugin lists
// the API versions it supports and the host uses the highest of major 1.
const (
	ProtocolVersion = 1
	APIVersion      = "1.0.0"
)

// hostAPI is the range of plugin API versions this host speaks.
const hostAPI = "^1.0.0"

// Capability names a component a plugin serves.
type Capability string

// The capabilities.
const (
	CapVerifier  Capability = "verifier"
	CapReviewer  Capability = "reviewer"
	CapGuardrail Capability = "guardrail"
	CapExecutor  Capability = "executor"
	CapDebugger  Capability = "debugger"
	CapAdvisor   Capability = "advisor"
)

// handshake is go-plugin's guard against running a plugin by hand or with
// another host; the cookie is not a secret.
var handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "HARNISH_PLUGIN",
	MagicCookieValue: "c3a1f0e2-harnish-plugin-protocol",
}

// pluginKey is the one entry of the go-plugin plugin set: the services are
// registered on its gRPC server side by side, and the host dispenses the
// connection itself.
const pluginKey = "harnish"

// grpcPlugin adapts the plugin to go-plugin. impl is nil on the host.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *Plugin
}

func (g *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	register(s, g.impl)
	return nil
}

func (g *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return c, nil
}
