package plugins_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/internal/pluginpb"
)

// The benchmarks interleave the measured operation with its baseline in
// one loop, so both see the same noise, and report medians and their ratio.
//
//	go test -run '^$' -bench . -benchtime 200x ./plugins/

const payload = 4 << 10

func median(xs []time.Duration) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

func report(b *testing.B, ours, base []time.Duration, unit string) {
	mo, mb := median(ours), median(base)
	b.ReportMetric(mo, "ns/"+unit)
	b.ReportMetric(mb, "ns/baseline")
	b.ReportMetric(mo/mb, "ratio")
	b.ReportMetric(0, "ns/op")
}

// bareClient is go-plugin alone: the Verifier service of testplugin-bare,
// called with a prebuilt request and no conversion.
type bareClient struct{ plugin.NetRPCUnsupportedPlugin }

func (bareClient) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error { return nil }

func (bareClient) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pluginpb.NewVerifierClient(c), nil
}

// BenchmarkVerifyRoundTrip compares a Verify through a Host (conversion,
// deadline, diagnostics, error mapping) with a bare go-plugin gRPC call
// carrying the same payload.
func BenchmarkVerifyRoundTrip(b *testing.B) {
	h, _ := open(b, spec(b, "testplugin"))
	v, err := h.Verifier("tp")
	if err != nil {
		b.Fatal(err)
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "HARNISH_PLUGIN", MagicCookieValue: "bench"},
		Plugins:          plugin.PluginSet{"harnish": bareClient{}},
		Cmd:              exec.Command(bin(b, "testplugin-bare")),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
	})
	defer client.Kill()
	rpc, err := client.Client()
	if err != nil {
		b.Fatal(err)
	}
	raw, err := rpc.Dispense("harnish")
	if err != nil {
		b.Fatal(err)
	}
	bare := raw.(pluginpb.VerifierClient)

	req := verifyReq("ok", strings.Repeat("x", payload))
	breq := &pluginpb.VerifyRequest{
		Task:    &pluginpb.Task{Id: req.Task.ID, Title: req.Task.Title, Objective: req.Task.Objective, Budget: &pluginpb.Budget{}},
		PhaseId: req.PhaseID,
		Attempt: 1,
	}
	ctx := b.Context()
	var ours, base []time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := bare.Verify(ctx, breq); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		rep, err := v.Verify(ctx, req)
		if err != nil || !rep.Passed {
			b.Fatal(rep, err)
		}
		t2 := time.Now()
		base, ours = append(base, t1.Sub(t0)), append(ours, t2.Sub(t1))
	}
	report(b, ours, base, "verify")
}

// BenchmarkStartToFirstCall compares starting a plugin through Open (its
// checksum, handshake, Describe) up to the end of its first Verify with
// running the same binary to an immediate exit, and with go-plugin alone
// doing the same: its own SecureConfig checksum, handshake and one Verify.
//
// SHA-256 of the binary, which no checked start may skip, is timed on its
// bytes in memory: start-and-exit plus that is the floor of any start that
// checks the whole binary, before a byte of handshake (floor-ratio).
func BenchmarkStartToFirstCall(b *testing.B) {
	s := spec(b, "testplugin")
	m := &plugins.Manifest{Plugins: []plugins.Spec{s}}
	req := verifyReq("ok", "")
	checksum, _ := hex.DecodeString(s.SHA256)
	image, err := os.ReadFile(s.Path)
	if err != nil {
		b.Fatal(err)
	}
	bareReq := &pluginpb.VerifyRequest{Task: &pluginpb.Task{Id: "T1", Budget: &pluginpb.Budget{}}, Attempt: 1}
	ctx := b.Context()
	var ours, base, bare, hash []time.Duration
	for b.Loop() {
		th := time.Now()
		sha256.Sum256(image)
		hash = append(hash, time.Since(th))
		t0 := time.Now()
		cmd := exec.Command(s.Path)
		cmd.Env = append(os.Environ(), "HARNISH_TESTPLUGIN_EXIT=1")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		h, err := plugins.Open(ctx, plugins.Config{Manifest: m})
		if err != nil {
			b.Fatal(err)
		}
		v, _ := h.Verifier("tp")
		if _, err := v.Verify(ctx, req); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		h.Close()
		t3 := time.Now()
		client := plugin.NewClient(&plugin.ClientConfig{
			HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: 1, MagicCookieKey: "HARNISH_PLUGIN", MagicCookieValue: "bench"},
			Plugins:          plugin.PluginSet{"harnish": bareClient{}},
			Cmd:              exec.Command(bin(b, "testplugin-bare")),
			SecureConfig:     &plugin.SecureConfig{Checksum: checksum, Hash: sha256.New()},
			AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
			Logger:           hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		})
		rpc, err := client.Client()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := rpc.Dispense("harnish")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := raw.(pluginpb.VerifierClient).Verify(ctx, bareReq); err != nil {
			b.Fatal(err)
		}
		t4 := time.Now()
		client.Kill()
		base, ours, bare = append(base, t1.Sub(t0)), append(ours, t2.Sub(t1)), append(bare, t4.Sub(t3))
	}
	report(b, ours, base, "start")
	mo, mb, mh, mg := median(ours), median(base), median(hash), median(bare)
	b.ReportMetric(mh, "ns/checksum")
	b.ReportMetric((mb+mh)/mb, "floor-ratio")
	b.ReportMetric(mo/(mb+mh), "ratio-over-floor")
	b.ReportMetric(mg, "ns/go-plugin")
	b.ReportMetric(mo/mg, "ratio-vs-go-plugin")
}
