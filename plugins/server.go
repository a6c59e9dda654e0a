package plugins

import (
	"context"
	"fmt"
	"runtime/debug"

	"google.golang.org/grpc"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
	"github.com/harnish/harnish/verify"
)

// register puts p's services on s: Describe always, the components p has.
// Serve and the in-process harness share it, so tests go through the same
// path as a real plugin.
func register(s grpc.ServiceRegistrar, p *Plugin) {
	pluginpb.RegisterDescribeServer(s, &describeServer{p: p})
	if p.Verifier != nil {
		pluginpb.RegisterVerifierServer(s, &verifierServer{v: p.Verifier})
	}
	if p.Reviewer != nil {
		pluginpb.RegisterReviewerServer(s, &reviewerServer{r: p.Reviewer})
	}
	if p.Guardrail != nil {
		pluginpb.RegisterGuardrailServer(s, &guardrailServer{g: p.Guardrail})
	}
	if p.Executor != nil {
		pluginpb.RegisterExecutorServer(s, &executorServer{e: p.Executor})
	}
	if p.Debugger != nil {
		pluginpb.RegisterDebuggerServer(s, &debuggerServer{d: p.Debugger})
	}
	if p.Advisor != nil {
		pluginpb.RegisterAdvisorServer(s, &advisorServer{a: p.Advisor})
	}
}

// recovered turns a panic of the plugin's implementation into a crashed
// diagnostic, so one bad call does not end the plugin and every call in it.
func recovered(set func(*pluginpb.Diagnostic)) {
	if v := recover(); v != nil {
		set(&pluginpb.Diagnostic{
			Kind:    string(verify.KindCrashed),
			Message: fmt.Sprintf("panic: %v", v),
			Tail:    string(debug.Stack()),
		})
	}
}

func protocolDiagnostic(err error) *pluginpb.Diagnostic {
	return &pluginpb.Diagnostic{Kind: string(verify.KindProtocol), Message: err.Error()}
}

type describeServer struct {
	pluginpb.UnimplementedDescribeServer
	p *Plugin
}

func (s *describeServer) Describe(ctx context.Context, req *pluginpb.DescribeRequest) (resp *pluginpb.DescribeResponse, _ error) {
	resp = &pluginpb.DescribeResponse{Name: s.p.Name, Version: s.p.Version, ApiVersions: s.p.APIVersions}
	if resp.ApiVersions == nil {
		resp.ApiVersions = []string{APIVersion}
	}
	for _, c := range s.p.capabilities() {
		resp.Capabilities = append(resp.Capabilities, string(c))
	}
	defer recovered(func(d *pluginpb.Diagnostic) { resp.Diagnostic = d })
	if s.p.Configure != nil {
		settings := req.GetSettings()
		if settings == nil {
			settings = map[string]string{}
		}
		resp.Diagnostic = diagnosticOf(s.p.Configure(ctx, settings))
	}
	return resp, nil
}

type verifierServer struct {
	pluginpb.UnimplementedVerifierServer
	v verify.Verifier
}

func (s *verifierServer) Verify(ctx context.Context, req *pluginpb.VerifyRequest) (resp *pluginpb.VerifyResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.VerifyResponse{Diagnostic: d} })
	rep, err := s.v.Verify(ctx, verifyRequestFromPB(req))
	switch {
	case err != nil:
		return &pluginpb.VerifyResponse{Diagnostic: diagnosticOf(err)}, nil
	case rep == nil:
		return &pluginpb.VerifyResponse{Diagnostic: protocolDiagnostic(fmt.Errorf("verifier returned neither a report nor an error"))}, nil
	}
	return reportToPB(rep), nil
}

type reviewerServer struct {
	pluginpb.UnimplementedReviewerServer
	r verify.Reviewer
}

func (s *reviewerServer) Review(ctx context.Context, req *pluginpb.ReviewRequest) (resp *pluginpb.ReviewResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.ReviewResponse{Diagnostic: d} })
	rev, err := s.r.Review(ctx, reviewRequestFromPB(req))
	switch {
	case err != nil:
		return &pluginpb.ReviewResponse{Diagnostic: diagnosticOf(err)}, nil
	case rev == nil:
		return &pluginpb.ReviewResponse{Diagnostic: protocolDiagnostic(fmt.Errorf("reviewer returned neither a review nor an error"))}, nil
	}
	return reviewToPB(rev), nil
}

type guardrailServer struct {
	pluginpb.UnimplementedGuardrailServer
	g guardrail.Guardrail
}

func (s *guardrailServer) Check(ctx context.Context, req *pluginpb.CheckRequest) (resp *pluginpb.CheckResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.CheckResponse{Diagnostic: d} })
	d, err := s.g.Check(ctx, actionFromPB(req))
	if err != nil {
		return &pluginpb.CheckResponse{Diagnostic: diagnosticOf(err)}, nil
	}
	return decisionToPB(d), nil
}

type executorServer struct {
	pluginpb.UnimplementedExecutorServer
	e executor.Executor
}

func (s *executorServer) Execute(ctx context.Context, req *pluginpb.ExecuteRequest) (resp *pluginpb.ExecuteResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.ExecuteResponse{Diagnostic: d} })
	res, err := s.e.Execute(ctx, executeRequestFromPB(req))
	switch {
	case err != nil:
		return &pluginpb.ExecuteResponse{Diagnostic: diagnosticOf(err)}, nil
	case res == nil:
		return &pluginpb.ExecuteResponse{Diagnostic: protocolDiagnostic(fmt.Errorf("executor returned neither a result nor an error"))}, nil
	}
	return resultToPB(res), nil
}

type debuggerServer struct {
	pluginpb.UnimplementedDebuggerServer
	d executor.Debugger
}

func (s *debuggerServer) Debug(ctx context.Context, req *pluginpb.DebugRequest) (resp *pluginpb.DebugResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.DebugResponse{Diagnostic: d} })
	diag, err := s.d.Debug(ctx, debugRequestFromPB(req))
	switch {
	case err != nil:
		return &pluginpb.DebugResponse{Diagnostic: diagnosticOf(err)}, nil
	case diag == nil:
		return &pluginpb.DebugResponse{Diagnostic: protocolDiagnostic(fmt.Errorf("debugger returned neither a diagnosis nor an error"))}, nil
	}
	return &pluginpb.DebugResponse{Diagnosis: diagnosisToPB(diag)}, nil
}

type advisorServer struct {
	pluginpb.UnimplementedAdvisorServer
	a executor.Advisor
}

func (s *advisorServer) Advise(ctx context.Context, req *pluginpb.AdviseRequest) (resp *pluginpb.AdviseResponse, _ error) {
	defer recovered(func(d *pluginpb.Diagnostic) { resp = &pluginpb.AdviseResponse{Diagnostic: d} })
	adv, err := s.a.Advise(ctx, adviceRequestFromPB(req))
	switch {
	case err != nil:
		return &pluginpb.AdviseResponse{Diagnostic: diagnosticOf(err)}, nil
	case adv == nil:
		return &pluginpb.AdviseResponse{Diagnostic: protocolDiagnostic(fmt.Errorf("advisor returned neither advice nor an error"))}, nil
	}
	return &pluginpb.AdviseResponse{Advice: &pluginpb.Advice{Verdict: string(adv.Verdict), Text: adv.Text}}, nil
}
