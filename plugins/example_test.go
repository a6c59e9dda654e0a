package plugins_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"strings"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/plugins/plugintest"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// A host starts the plugins of its manifest once and hands their components
// to the loop as ordinary values.
func Example() {
	ctx := context.Background()
	m, err := plugins.LoadManifest(".harnish/plugins.yaml")
	if err != nil {
		log.Fatal(err)
	}
	host, err := plugins.Open(ctx, plugins.Config{Manifest: m, Logger: slog.Default()})
	if err != nil {
		log.Fatal(err) // a missing binary, a checksum or version mismatch
	}
	defer host.Close()

	v, err := host.Verifier("msvc")
	if err != nil {
		log.Fatal(err)
	}
	rep, err := v.Verify(ctx, &verify.Request{Task: &task.Task{ID: "T1"}})
	if err != nil {
		log.Fatal(err) // e.g. plugins.ErrPluginCrashed, wrapped in a *verify.Error
	}
	fmt.Println(rep.Passed)
}

// A plugin program is one call to Serve in main.
func ExampleServe() {
	plugins.Serve(plugins.Plugin{
		Name:    "no-sudo",
		Version: "1.0.0",
		Guardrail: guardrail.Func(func(_ context.Context, a guardrail.Action) (guardrail.Decision, error) {
			if strings.HasPrefix(a.Command, "sudo ") {
				return guardrail.Decision{Level: guardrail.Hard, Rule: "no-sudo", Reason: "no root", Match: a.Command}, nil
			}
			return guardrail.Decision{}, nil
		}),
	})
}

// The same plugin value, served in process through the real protocol, as
// its author's tests would use it.
func Example_inProcess() {
	ctx := context.Background()
	host, err := plugintest.Open(ctx, plugins.Plugin{
		Name:    "no-sudo",
		Version: "1.0.0",
		Guardrail: guardrail.Func(func(_ context.Context, a guardrail.Action) (guardrail.Decision, error) {
			if strings.HasPrefix(a.Command, "sudo ") {
				return guardrail.Decision{Level: guardrail.Hard, Rule: "no-sudo", Reason: "no root", Match: a.Command}, nil
			}
			return guardrail.Decision{}, nil
		}),
	}, plugintest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer host.Close()
	g, _ := host.Guardrail(plugintest.Name)
	d, err := g.Check(ctx, guardrail.Action{Kind: guardrail.KindCommand, Command: "sudo rm -rf /"})
	fmt.Println(d.Level, d.Rule, err)
	fmt.Println(host.Plugins()[0].Capabilities)
	// Output:
	// hard no-sudo <nil>
	// [guardrail]
}
