package plugins

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/schema"
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
		return nil, componentErrorOf(r.hd.spec.Name, d)
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
		return nil, componentErrorOf(r.hd.spec.Name, d)
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
		return nil, componentErrorOf(r.hd.spec.Name, d)
	}
	return resultFromPB(resp), nil
}

type remoteDebugger struct{ hd *handle }

func (r remoteDebugger) Debug(ctx context.Context, req *executor.DebugRequest) (*executor.Diagnosis, error) {
	preq := debugRequestToPB(req)
	resp, err := call(ctx, r.hd, CapDebugger, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.DebugResponse, error) {
		return pluginpb.NewDebuggerClient(c).Debug(ctx, preq)
	})
	if err != nil {
		return nil, asExecutorError(err)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return nil, componentErrorOf(r.hd.spec.Name, d)
	}
	diag := diagnosisFromPB(resp.GetDiagnosis())
	if diag.Found && (diag.RootCause == "" || diag.Fix == "") {
		return nil, asExecutorError(&Error{Plugin: r.hd.spec.Name, Kind: KindProtocol,
			Err: errors.New("the debugger found a root cause but gave no root_cause or fix")})
	}
	return diag, nil
}

type remoteAdvisor struct{ hd *handle }

func (r remoteAdvisor) Advise(ctx context.Context, req *executor.AdviceRequest) (*executor.Advice, error) {
	preq := adviceRequestToPB(req)
	resp, err := call(ctx, r.hd, CapAdvisor, func(ctx context.Context, c grpc.ClientConnInterface) (*pluginpb.AdviseResponse, error) {
		return pluginpb.NewAdvisorClient(c).Advise(ctx, preq)
	})
	if err != nil {
		return nil, asExecutorError(err)
	}
	if d := resp.GetDiagnostic(); d != nil {
		return nil, componentErrorOf(r.hd.spec.Name, d)
	}
	a := resp.GetAdvice()
	adv := &executor.Advice{Verdict: schema.Verdict(a.GetVerdict()), Text: a.GetText()}
	if err := adv.Check(); err != nil {
		return nil, asExecutorError(&Error{Plugin: r.hd.spec.Name, Kind: KindProtocol, Err: err})
	}
	return adv, nil
}

// asVerifyError makes a boundary fault the verifier's or reviewer's error:
// of the matching kind and, since a plugin that answered what does not decode
// would answer it again, a protocol fault not retryable. A cancellation
// stays as is.
func asVerifyError(err error) error { return asComponentError(err, false) }

// asExecutorError is asVerifyError for an executor, whose protocol faults
// may be tried again: agents are not deterministic.
func asExecutorError(err error) error { return asComponentError(err, true) }

func asComponentError(err error, protocolRetryable bool) error {
	e, ok := errors.AsType[*Error](err)
	if !ok {
		return err
	}
	kind := schema.KindUnavailable // a handshake, checksum or version mismatch: it cannot be used
	switch e.Kind {
	case KindCrashed, KindTimeout, KindProtocol:
		kind = schema.ErrorKind(e.Kind)
	}
	return &schema.Error{Kind: kind, NonRetryable: kind == schema.KindProtocol && !protocolRetryable, Err: err}
}
