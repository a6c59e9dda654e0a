package acp_test

import (
	"fmt"

	"github.com/harnish/harnish/executor/acp"
)

// A plan's executor: {kind: acp, agent: gemini} is this Executor; the
// profile supplies the flags and workarounds of each agent it knows.
func ExampleExecutor() {
	ex := &acp.Executor{Agent: acp.Gemini, Model: "gemini-2.5-pro",
		Env: map[string]string{"GEMINI_API_KEY": "..."}}
	p, _ := acp.Lookup(ex.Agent)
	fmt.Println(p.Program, p.Args, p.ModelArgs(ex.Model))
	fmt.Println(acp.Agents())
	// Output:
	// gemini [--acp] [-m gemini-2.5-pro]
	// [claude codex gemini]
}
