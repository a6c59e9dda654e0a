package guardrail_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harnish/harnish/guardrail"
)

// A guardrail that panics does not take the host down, and does not let the
// action through: Evaluate turns the panic into a hard decision.
func ExampleEvaluate() {
	buggy := guardrail.Func(func(ctx context.Context, a guardrail.Action) (guardrail.Decision, error) {
		var rules map[string]string
		rules[a.Command] = "seen" // assignment to a nil map
		return guardrail.Decision{}, nil
	})
	d := guardrail.Evaluate(context.Background(), buggy, guardrail.Action{Kind: guardrail.KindCommand, Command: "ls"})
	fmt.Println(d.Level, d.Rule)
	fmt.Println(d.Reason)
	// Output:
	// hard guardrail.error
	// guardrail: panic: assignment to entry in nil map
}

func ExampleAll() {
	noForcePush := guardrail.Func(func(ctx context.Context, a guardrail.Action) (guardrail.Decision, error) {
		if a.Kind == guardrail.KindCommand && strings.Contains(a.Command, "push --force") {
			return guardrail.Decision{Level: guardrail.Hard, Rule: "git.force-push", Reason: "force-pushing rewrites shared history"}, nil
		}
		return guardrail.Decision{}, nil
	})
	noSudo := guardrail.Func(func(ctx context.Context, a guardrail.Action) (guardrail.Decision, error) {
		if strings.HasPrefix(a.Command, "sudo ") {
			return guardrail.Decision{Level: guardrail.Soft, Rule: "shell.sudo", Reason: "the task should not need root"}, nil
		}
		return guardrail.Decision{}, nil
	})
	g := guardrail.All(noSudo, noForcePush)

	for _, cmd := range []string{"go test ./...", "sudo apt-get update", "sudo git push --force"} {
		a := guardrail.Action{Kind: guardrail.KindCommand, Shell: guardrail.ShellBash, Command: cmd}
		d := guardrail.Evaluate(context.Background(), g, a)
		fmt.Printf("%-22s %s", cmd, d.Level)
		if d.Rule != "" {
			fmt.Printf(" (%s)", d.Rule)
		}
		fmt.Println()
		if v, ok := errors.AsType[*guardrail.Violation](d.Err(a)); ok {
			fmt.Println("  refused:", v)
		}
	}
	// Output:
	// go test ./...          allow
	// sudo apt-get update    soft (shell.sudo)
	// sudo git push --force  hard (git.force-push)
	//   refused: guardrail: git.force-push: force-pushing rewrites shared history
}
