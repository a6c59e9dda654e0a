// Package plugins runs harnish components as separate programs: a verifier,
// reviewer, guardrail, executor, debugger or advisor written by someone
// else, shipped as a binary, and loaded by the host without rebuilding it.
//
// It holds both sides of that boundary:
//
//   - the host: [Open] starts the plugins a [Manifest] lists, each checked
//     against the manifest's SHA-256 before it runs, and hands the loop plain
//     values of the component interfaces ([Host.Verifier], [Host.Reviewer],
//     [Host.Guardrail], [Host.Executor], [Host.Debugger], [Host.Advisor]);
//   - the SDK: [Serve], the one call a plugin program's main makes;
//   - plugins/plugintest, which serves a plugin value in the test's own
//     process through the same protocol, so an author tests it without
//     building a binary.
//
// Plugins speak gRPC through HashiCorp go-plugin, and only this package
// knows it: no go-plugin, gRPC or hclog type appears in its API. The
// protocol (plugins/internal/proto) and its generated code live under
// plugins/internal/, with hand-written converters to the public types.
//
// # Versions
//
// Versions come in two layers. go-plugin's integer protocol version is the
// protocol major, [ProtocolVersion]: a plugin of another major, or one
// expecting another host's magic cookie, fails the handshake with an error
// matching [ErrPluginHandshake]. Within it, Describe returns the plugin's
// semver, the API versions it supports and its capabilities; the host picks
// the highest API version it speaks ([APIVersion]'s major) and checks the
// plugin's version against the manifest's constraint ([ErrPluginVersion]).
//
// # Errors
//
// What a component has to say (a failed check, a blocked claim, no checks to
// run, a verify.Error or executor.Error of its own) travels as data in the
// response and comes back as the same error: the same sentinels match and
// verify.IsRetryable and executor.IsRetryable give the same answers. A
// panic in a handler is recovered by Serve and comes back as a crash of
// that call only. Transport faults are an [*Error]: a plugin that dies is
// [ErrPluginCrashed] (it is started again on the next call), one that does
// not answer by its deadline [ErrPluginTimeout]. A verifier, reviewer or
// executor wraps that in its own package's error type, so the loop's retry
// rules apply unchanged.
//
// # Defences
//
// A plugin is someone else's code, so the host is defensive. The file run
// is the file hashed: the host reads the binary once, hashing it as it
// copies it into a sealed memfd (Linux) or a private directory (elsewhere,
// and for scripts), and executes that copy, so a path swapped, a symlink
// flipped or a file rewritten in place after the check runs nothing
// unchecked. A reply is read up to [MaxReplySize]. Every call has
// a deadline: the caller's, or the manifest's timeout, by default
// [DefaultTimeout] and [DefaultGuardrailTimeout]; a call past it ends the
// plugin's process tree, so no abandoned work goes on, and the next call
// starts a fresh one. go-plugin's logger is off,
// and plugin stderr never reaches go-plugin, whose v1.8.0 log goroutine
// panics on a JSON line whose "@message" is not a string, taking the host
// down: the host starts the process itself and parses every line (JSON of
// any shape, or plain text) into its *slog.Logger, with a "plugin"
// attribute. The plugin gets a lifeline, a pipe only the host can close, and
// exits with its process group when the host dies, even by SIGKILL. Each
// plugin leads its own process group (a job object on Windows), and Close
// kills the whole tree. There is no process-global state: two hosts in one
// process do not share plugins.
//
// plugins/msvc, the MSVC/CMake verifier, is built on it.
package plugins
