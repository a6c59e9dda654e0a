// Package hostlink lets plugins/plugintest reach the in-process transport
// of package plugins without plugins exporting it: plugins sets InProcess
// in its init, and plugintest, which imports plugins, calls it.
package hostlink

import "context"

// InProcess serves p, a plugins.Plugin, on an in-memory gRPC connection
// through the same registration and converters as a plugin process, and
// returns a *plugins.Host holding it under name.
var InProcess func(ctx context.Context, name string, p any, settings map[string]string) (any, error)
