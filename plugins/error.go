package plugins

import (
	"errors"
	"strconv"
)

// Kind classifies a fault of a plugin as a process: what the host saw at the
// boundary, not what the plugin's implementation reported (that travels as
// data and comes back as the component's own error).
type Kind string

// The kinds of [Error].
const (
	// KindCrashed: the plugin process died or dropped its connection.
	KindCrashed Kind = "crashed"
	// KindTimeout: a call did not finish by its deadline.
	KindTimeout Kind = "timeout"
	// KindUnavailable: the plugin could not be started or used (a missing
	// binary, a capability it does not serve, a closed host).
	KindUnavailable Kind = "unavailable"
	// KindHandshake: the plugin speaks another go-plugin handshake (magic
	// cookie or protocol major).
	KindHandshake Kind = "handshake"
	// KindChecksum: the binary does not match the manifest's sha256.
	KindChecksum Kind = "checksum"
	// KindVersion: the plugin's version or API versions do not satisfy the
	// host's constraints.
	KindVersion Kind = "version"
	// KindProtocol: an answer that does not decode into the public types.
	KindProtocol Kind = "protocol"
)

// Sentinel errors, one per [Kind]; an [*Error] matches the one of its kind
// with errors.Is. Handshake, checksum and version faults also match
// [ErrPluginUnavailable]: each means the plugin cannot be used at all.
var (
	ErrPluginCrashed     = errors.New("plugins: plugin crashed")
	ErrPluginTimeout     = errors.New("plugins: plugin timed out")
	ErrPluginUnavailable = errors.New("plugins: plugin unavailable")
	ErrPluginHandshake   = errors.New("plugins: plugin handshake mismatch")
	ErrPluginChecksum    = errors.New("plugins: plugin checksum mismatch")
	ErrPluginVersion     = errors.New("plugins: plugin version mismatch")
	ErrPluginProtocol    = errors.New("plugins: plugin protocol error")
)

var sentinels = map[Kind]error{
	KindCrashed:     ErrPluginCrashed,
	KindTimeout:     ErrPluginTimeout,
	KindUnavailable: ErrPluginUnavailable,
	KindHandshake:   ErrPluginHandshake,
	KindChecksum:    ErrPluginChecksum,
	KindVersion:     ErrPluginVersion,
	KindProtocol:    ErrPluginProtocol,
}

// Error is a fault of a plugin at the process boundary. Match it with
// errors.As, or its kind with errors.Is and the sentinel errors. Verifiers,
// reviewers and executors from a [Host] return it wrapped in the component's
// own error type (verify.Error, executor.Error) so the loop's retry rules
// apply unchanged.
type Error struct {
	// Plugin is the plugin's name in the manifest.
	Plugin string
	Kind   Kind
	// Err is the underlying cause, if any.
	Err error
}

// Error returns "plugins: PLUGIN: KIND" and the cause, if any.
func (e *Error) Error() string {
	msg := "plugins: " + strconv.Quote(e.Plugin) + ": " + string(e.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel error of e's kind.
func (e *Error) Is(target error) bool {
	if target == sentinels[e.Kind] {
		return true
	}
	switch e.Kind {
	case KindHandshake, KindChecksum, KindVersion:
		return target == ErrPluginUnavailable
	}
	return false
}
