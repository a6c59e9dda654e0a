package plugins

import (
	"context"
	"errors"
	"strconv"

	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/verify"
)

// Diagnostic kinds beyond the component packages' own error kinds.
const (
	diagNoChecks = "no_checks"
	diagCanceled = "canceled"
	diagDeadline = "deadline_exceeded"
)

// diagnosticOf turns an error of a plugin's implementation into data, keeping
// what the host needs to rebuild an error that matches the same sentinels
// and answers the same retry questions.
func diagnosticOf(err error) *pluginpb.Diagnostic {
	if err == nil {
		return nil
	}
	d := &pluginpb.Diagnostic{Message: err.Error()}
	if e, ok := errors.AsType[*schema.Error](err); ok {
		d.Kind, d.Check, d.Tail, d.Message = string(orCrashed(string(e.Kind))), e.Check, e.Tail, messageOf(e.Err)
		d.Usage, d.Violations, d.NonRetryable, d.Component = usageToPB(e.Usage), violationsToPB(e.Violations), e.NonRetryable, e.Component
		return d
	}
	switch {
	case errors.Is(err, verify.ErrNoChecks):
		d.Kind = diagNoChecks
	case errors.Is(err, context.DeadlineExceeded):
		d.Kind = diagDeadline
	case errors.Is(err, context.Canceled):
		d.Kind = diagCanceled
	}
	return d
}

func orCrashed(k string) string {
	if k == "" {
		return string(schema.KindCrashed)
	}
	return k
}

func messageOf(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// remoteError is an error a plugin's implementation returned, rebuilt on the
// host. It matches the sentinel its diagnostic named, if any.
type remoteError struct {
	plugin, msg string
	sentinel    error
}

func (e *remoteError) Error() string { return "plugin " + strconv.Quote(e.plugin) + ": " + e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

func remote(plugin string, d *pluginpb.Diagnostic) error {
	var sentinel error
	switch d.GetKind() {
	case diagNoChecks:
		sentinel = verify.ErrNoChecks
	case diagDeadline:
		sentinel = context.DeadlineExceeded
	case diagCanceled:
		sentinel = context.Canceled
	}
	return &remoteError{plugin: plugin, msg: d.GetMessage(), sentinel: sentinel}
}

// cause is the rebuilt inner error of a typed diagnostic; nil when the
// plugin's error had none.
func cause(plugin string, d *pluginpb.Diagnostic) error {
	if d.GetMessage() == "" {
		return nil
	}
	return &remoteError{plugin: plugin, msg: d.GetMessage()}
}

// componentErrorOf rebuilds the [schema.Error] a plugin's implementation
// returned, or, for a diagnostic of no component kind, the plain error.
func componentErrorOf(plugin string, d *pluginpb.Diagnostic) error {
	switch k := schema.ErrorKind(d.GetKind()); k {
	case schema.KindCrashed, schema.KindTimeout, schema.KindProtocol, schema.KindUnavailable:
		return &schema.Error{Component: d.GetComponent(), Kind: k, NonRetryable: d.GetNonRetryable(), Check: d.GetCheck(), Tail: d.GetTail(),
			Usage: usageFromPB(d.GetUsage()), Violations: violationsFromPB(d.GetViolations()), Err: cause(plugin, d)}
	}
	return remote(plugin, d)
}
