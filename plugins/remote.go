package plugins

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/verify"
)

// The host's side of each component: the public interface, over the
// protocol. A plugin's own error comes back rebuilt from its diagnostic; a
// fault of the boundary is an [*Error], wrapped in the component's error
// type where it has one.

type remoteVerifier struct{ hd *handle }

func (r remoteVerifier) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	preq := verifyRequestToPB(req)
	resp, err := call(ctx, r.hd, CapVerifier, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.VerifyResponse, error) {
		return pluginpb.NewVerifierClient(c).Verify(ctx, preq)
	})
	if err != nil {
		return nil, asVerifyError(err)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return nil, verifyErrorOf(r.hd.spec.Name, d)
	}
	rep, err := reportFromPB(resp)
	if err != nil {
		return nil, asVerifyError(&Error{Plugin: r.hd.spec.Name, Kind: KindProtocol, Err: err})
	}
	return rep, nil
}

type remoteReviewer struct{ hd *handle }

func (r remoteReviewer) Review(ctx context.Context, req *verify.ReviewRequest) (*verify.Review, error) {
	preq := reviewRequestToPB(req)
	resp, err := call(ctx, r.hd, CapReviewer, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.ReviewResponse, error) {
		return pluginpb.NewReviewerClient(c).Review(ctx, preq)
	})
	if err != nil {
		return nil, asVerifyError(err)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return nil, verifyErrorOf(r.hd.spec.Name, d)
	}
	rev, err := reviewFromPB(resp)
	if err != nil {
		return nil, asVerifyError(&Error{Plugin: r.hd.spec.Name, Kind: KindProtocol, Err: err})
	}
	return rev, nil
}

type remoteGuardrail struct{ hd *handle }

// Check returns errors unwrapped: guardrail.Evaluate turns any error into
// a hard decision, whatever its kind.
func (r remoteGuardrail) Check(ctx context.Context, a guardrail.Action) (guardrail.Decision, error) {
	preq := actionToPB(a)
	resp, err := call(ctx, r.hd, CapGuardrail, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.CheckResponse, error) {
		return pluginpb.NewGuardrailClient(c).Check(ctx, preq)
	})
	if err != nil {
		return guardrail.Decision{}, err
	}
	if d := resp.GetDiagnostic(); d != nil {
		return guardrail.Decision{}, remote(r.hd.spec.Name, d)
	}
	dec, err := decisionFromPB(resp)
	if err != nil {
		return guardrail.Decision{}, &Error{Plugin: r.hd.spec.Name, Kind: KindProtocol, Err: err}
	}
	return dec, nil
}

type remoteExecutor struct{ hd *handle }

func (r remoteExecutor) Execute(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	preq := executeRequestToPB(req)
	resp, err := call(ctx, r.hd, CapExecutor, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.ExecuteResponse, error) {
		return pluginpb.NewExecutorClient(c).Execute(ctx, preq)
	})
	if err != nil {
		return nil, asExecutorError(err)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return nil, executorErrorOf(r.hd.spec.Name, d)
	}
	return resultFromPB(resp), nil
}

// asVerifyError wraps a boundary fault in a verify.Error of the matching
// kind, so verify.IsRetryable answers for it; a cancellation stays as is.
func asVerifyError(err error) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return &verify.Error{Kind: errorKind[verify.ErrorKind](e.Kind), Err: err}
	}
	return err
}

// asExecutorError is asVerifyError for executor.Error.
func asExecutorError(err error) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return &executor.Error{Kind: errorKind[executor.ErrorKind](e.Kind), Err: err}
	}
	return err
}

// errorKind is k as verify's or executor's error kind, which name crashed,
// timeout and protocol alike; every other fault of a plugin makes it
// unavailable.
func errorKind[K ~string](k Kind) K {
	switch k {
	case KindCrashed, KindTimeout, KindProtocol:
		return K(k)
	}
	return K(KindUnavailable)
}
