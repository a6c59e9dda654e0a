package hook_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
)

// An embedder's binary answers its agents' hooks with harnish's built-in
// rules and one of its own (a plugin's guardrail would be combined the same
// way). Here it blocks a Codex tool call that fetches from the network.
func ExampleHandler() {
	noCurl := guardrail.Func(func(_ context.Context, a guardrail.Action) (guardrail.Decision, error) {
		if a.Kind == guardrail.KindCommand && strings.Contains(a.Command, "curl ") {
			return guardrail.Decision{Level: guardrail.Hard, Rule: "corp.network", Reason: "no downloads in this repository"}, nil
		}
		return guardrail.Decision{}, nil
	})
	h := hook.Handler{Guardrail: func(ctx context.Context, c *hook.Call) (guardrail.Guardrail, error) {
		builtin, err := hook.Builtin(ctx, c)
		if err != nil {
			return nil, err
		}
		return guardrail.All(builtin, noCurl), nil
	}}

	// What the agent's hook configuration runs: "PROGRAM hook pre-tool-use ...".
	args := []string{"hook", "pre-tool-use", "--agent", "codex"}
	call := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl -sO https://example.com/x.tgz"},"cwd":"/nonexistent"}`
	if len(args) > 0 && args[0] == hook.Command {
		code := h.Run(context.Background(), args[1:], strings.NewReader(call), os.Stdout, os.Stdout)
		fmt.Println("exit status", code)
	}
	// Output:
	// harnish guardrail corp.network blocked this: no downloads in this repository
	// exit status 2
}

// A Claude Code Write, judged by the built-in rules: the token it would
// write never reaches the disk.
func ExampleHandler_PreToolUse() {
	var h hook.Handler
	call := `{"hook_event_name":"PreToolUse","tool_name":"Write",` +
		`"tool_input":{"file_path":"/nonexistent/DEPLOY.md","content":"# Deploy\n\nPush with ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d.\n"}}`
	ans := h.PreToolUse(context.Background(), &hook.Request{Agent: hook.Claude, WorkDir: "/nonexistent", Input: strings.NewReader(call)})
	fmt.Print(ans.Message)
	fmt.Println(ans.Code, ans.Record.Decision.Rule, ans.Record.Path)
	// Output:
	// harnish guardrail edit.secret.github blocked this: DEPLOY.md:3: GitHub token added (ghp_***); read credentials from the environment or a secret store instead (in "ghp_***")
	// 2 edit.secret.github /nonexistent/DEPLOY.md
}

// The actions a Codex patch asks the guardrails to judge: one per file,
// each with its part of the patch as a diff.
func ExampleToolCall_Actions() {
	call := `{"tool_name":"apply_patch","cwd":"/nonexistent","tool_input":{"command":` +
		`"*** Begin Patch\n*** Add File: calc/div.go\n+package calc\n*** Delete File: calc/old.go\n*** End Patch\n"}}`
	c, err := hook.ParseToolCall(strings.NewReader(call))
	if err != nil {
		fmt.Println(err)
		return
	}
	acts, err := c.Actions("/nonexistent")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range acts {
		fmt.Printf("%s %s\n%s", a.Kind, a.Path, a.Diff)
	}
	// Output:
	// edit calc/div.go
	// --- /dev/null
	// +++ b/calc/div.go
	// @@ -0,0 +1,1 @@
	// +package calc
	// edit calc/old.go
	// --- a/calc/old.go
	// +++ /dev/null
}
