// Package plugintest runs a plugin value in the test's own process, through
// the real protocol: the same gRPC services, converters, diagnostics and
// version checks as a plugin binary started by a host, without building one.
// A plugin author unit-tests what plugins.Serve would serve:
//
//	h := plugintest.Start(t, plugins.Plugin{Name: "lint", Version: "1.0.0", Verifier: v})
//	rep, err := h.Verifier().Verify(ctx, req)
package plugintest
