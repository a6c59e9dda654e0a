package plugins

import (
	"errors"
	"testing"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/verify"
)

// A plugin's fault becomes the component error of the same kind; the faults
// of starting it make it unavailable. Whether it is tried again is the
// error's to say: a protocol fault is retried for an executor (agents are
// not deterministic), not for a verifier.
func TestComponentError(t *testing.T) {
	for k, want := range map[Kind]schema.ErrorKind{
		KindCrashed: schema.KindCrashed, KindTimeout: schema.KindTimeout, KindProtocol: schema.KindProtocol, KindUnavailable: schema.KindUnavailable,
		KindHandshake: schema.KindUnavailable, KindChecksum: schema.KindUnavailable, KindVersion: schema.KindUnavailable,
	} {
		fault := &Error{Plugin: "p", Kind: k, Err: errors.New("boom")}
		v, e := asVerifyError(fault), asExecutorError(fault)
		for _, err := range []error{v, e} {
			se, ok := errors.AsType[*schema.Error](err)
			if !ok || se.Kind != want || !errors.Is(err, fault) {
				t.Errorf("%s: %#v, want kind %s wrapping the fault", k, err, want)
			}
		}
		retryable := k == KindCrashed || k == KindTimeout
		if got := verify.IsRetryable(v); got != retryable {
			t.Errorf("%s: verify.IsRetryable = %v, want %v", k, got, retryable)
		}
		if got := executor.IsRetryable(e); got != (retryable || k == KindProtocol) {
			t.Errorf("%s: executor.IsRetryable = %v", k, got)
		}
	}
	if err := errors.New("plain"); asVerifyError(err) != err {
		t.Error("an error that is no fault of the boundary changed")
	}
}
