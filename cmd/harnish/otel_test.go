package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/harnish/harnish/internal/testkit"
)

// receiver is an OTLP receiver on loopback: what the exporters sent,
// decoded with the protocol's own protobuf messages.
type receiver struct {
	coltracepb.UnimplementedTraceServiceServer
	colmetricpb.UnimplementedMetricsServiceServer

	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	metrics []*colmetricpb.ExportMetricsServiceRequest
}

func (r *receiver) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.traces = append(r.traces, req)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// metricsServer is the receiver as the metrics service (whose Export has
// another signature).
type metricsServer struct{ *receiver }

func (m metricsServer) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.metrics = append(m.metrics, req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// ServeHTTP is OTLP/HTTP with binary protobuf: POST /v1/traces, /v1/metrics.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	if err != nil || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		m := &coltracepb.ExportTraceServiceRequest{}
		if err = proto.Unmarshal(body, m); err == nil {
			resp, err = r.Export(req.Context(), m)
		}
	case "/v1/metrics":
		m := &colmetricpb.ExportMetricsServiceRequest{}
		if err = proto.Unmarshal(body, m); err == nil {
			resp, err = metricsServer{r}.Export(req.Context(), m)
		}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// otelEnv clears every OTEL_* variable the test does not set.
func otelEnv(t *testing.T, set map[string]string) {
	for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_SERVICE_NAME",
		"OTEL_RESOURCE_ATTRIBUTES", "OTEL_TRACES_SAMPLER", "OTEL_EXPORTER_OTLP_HEADERS", "TRACEPARENT", "TRACESTATE"} {
		t.Setenv(k, set[k])
	}
}

// TestOTLPExport runs a plan with the OTLP exporters the OTEL_* variables
// ask for, over both protocols, against a receiver on loopback that decodes
// the official protobuf: the spans of the run arrive, inside the trace of
// the TRACEPARENT harnish was started with, and so do the metrics.
func TestOTLPExport(t *testing.T) {
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(strings.ReplaceAll(protocol, "/", "-"), func(t *testing.T) {
			rcv := &receiver{}
			var endpoint string
			if protocol == "grpc" {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				srv := grpc.NewServer()
				coltracepb.RegisterTraceServiceServer(srv, rcv)
				colmetricpb.RegisterMetricsServiceServer(srv, metricsServer{rcv})
				go srv.Serve(ln)
				defer srv.Stop()
				endpoint = "http://" + ln.Addr().String()
			} else {
				srv := httptest.NewServer(rcv)
				defer srv.Close()
				endpoint = srv.URL
			}
			otelEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
				"TRACEPARENT": "00-" + traceID + "-" + parentID + "-01"})

			dir := testkit.WriteTree(t, map[string]string{"harnish.yaml": testkit.TwoTaskPlan, "agent.sh": agentScript})
			var out, errb bytes.Buffer
			if code := run([]string{"run", "--dir", dir, "--yes"}, &out, &errb); code != 0 {
				t.Fatalf("run: exit %d\n%s%s", code, out.String(), errb.String())
			}

			rcv.mu.Lock()
			defer rcv.mu.Unlock()
			var names []string
			var runSpan *tracepb.Span
			for _, req := range rcv.traces {
				for _, rs := range req.ResourceSpans {
					if got := stringAttr(rs.Resource.GetAttributes(), "service.name"); got != "harnish" {
						t.Errorf("service.name = %q, want harnish", got)
					}
					for _, ss := range rs.ScopeSpans {
						for _, s := range ss.Spans {
							names = append(names, s.Name)
							if s.Name == "harnish.run" {
								runSpan = s
							}
						}
					}
				}
			}
			slices.Sort(names)
			names = slices.Compact(names)
			want := []string{"harnish.attempt", "harnish.check", "harnish.gate", "harnish.phase", "harnish.run", "harnish.task"}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("span names (-want +got):\n%s", diff)
			}
			if runSpan == nil {
				t.Fatal("no harnish.run span")
			}
			if got := hex.EncodeToString(runSpan.TraceId); got != traceID {
				t.Errorf("harnish.run is in trace %s, want the caller's %s", got, traceID)
			}
			if got := hex.EncodeToString(runSpan.ParentSpanId); got != parentID {
				t.Errorf("harnish.run's parent is %s, want the caller's span %s", got, parentID)
			}
			if got := stringAttr(runSpan.Attributes, "harnish.plan.name"); got != "cli-test" {
				t.Errorf("harnish.plan.name = %q", got)
			}

			attempts := int64(0)
			for _, req := range rcv.metrics {
				for _, rm := range req.ResourceMetrics {
					for _, sm := range rm.ScopeMetrics {
						for _, m := range sm.Metrics {
							if m.Name == "harnish.attempts" {
								for _, p := range m.GetSum().GetDataPoints() {
									attempts += p.GetAsInt()
								}
							}
						}
					}
				}
			}
			if attempts != 3 {
				t.Errorf("harnish.attempts sums to %d, want 3 (T1 once, T2 twice)", attempts)
			}
		})
	}
}

func stringAttr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

func TestTelemetryFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name            string
		env             map[string]string
		traces, metrics bool
		err             string
	}{
		{name: "nothing set: off", env: nil},
		{name: "an endpoint: both", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, traces: true, metrics: true},
		{name: "a traces endpoint: traces", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}, traces: true},
		{name: "exporter otlp, default endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, traces: true},
		{name: "metrics none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none"}, traces: true},
		{name: "disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}},
		{name: "grpc", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, traces: true},
		{name: "another exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: `OTEL_TRACES_EXPORTER="zipkin": harnish exports otlp, or none`},
		{name: "another protocol", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json"},
			err: `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL="http/json": harnish speaks http/protobuf or grpc`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := telemetryFromEnv(t.Context(), func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.shutdown(t.Context(), io.Discard)
			if got := [2]bool{s.tp != nil, s.mp != nil}; got != [2]bool{tc.traces, tc.metrics} {
				t.Errorf("traces, metrics = %v, want %v", got, [2]bool{tc.traces, tc.metrics})
			}
		})
	}
}
