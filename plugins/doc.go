// Package plugins runs harnish components as separate programs: an executor,
// verifier, reviewer, debugger or guardrail written in any language, shipped
// as a binary, and loaded by the host without rebuilding it.
//
// It will hold both sides of that boundary:
//
//   - the host, which starts a plugin named in the plugin manifest, checks its
//     binary against the manifest's checksum, and hands the loop a plain value
//     of the component's interface (executor.Executor, verify.Verifier, ...);
//   - the SDK, plugins.Serve, with which a plugin program offers its
//     implementation of one of those interfaces;
//   - the manifest, and version negotiation.
//
// Plugins speak gRPC through HashiCorp go-plugin, and only this package knows
// it: no go-plugin, gRPC or hclog type appears in its exported API or anywhere
// else in harnish. The protocol definition and its generated code live under
// plugins/internal/, with hand-written converters to the public types.
//
// Versions come in two layers. go-plugin's integer protocol version is the
// harnish plugin protocol major; within it, a Describe call returns the
// plugin's semver, the API versions it supports and its capabilities, which
// the host checks against its own constraints before using it.
//
// Errors follow the process boundary. What a component has to say (a failed
// check, a blocked claim, an answer that does not parse) travels as data in
// the response. Transport faults are only for crashes, hangs and
// cancellations, and map to the typed errors of the component's package: a
// plugin that dies is a "crashed" error, one that does not answer by its
// deadline a "timeout".
//
// The host is defensive, because a plugin is someone else's code: it sets a
// deadline on every call, gives the plugin a quiet logger and parses the
// plugin's stderr into slog itself (go-plugin v1.8.0's own log goroutine
// panics on a JSON line whose "@message" is not a string, taking the host
// down), passes a lifeline so a plugin dies with its host, and kills a
// plugin's whole process tree.
//
// plugins/msvc, the MSVC/CMake verifier, is built on it.
package plugins
