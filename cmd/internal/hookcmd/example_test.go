package hookcmd_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/harnish/harnish/cmd/internal/hookcmd"
)

// A Codex tool call that force-pushes: the hook refuses it with exit status
// 2 and the reason on standard error, which Codex shows the model.
func ExampleRun() {
	call := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"},"cwd":"/nonexistent"}`
	code := hookcmd.Run([]string{"pre-tool-use", "--agent", "codex"}, strings.NewReader(call), os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// harnish guardrail git.force-push blocked this: git push --force rewrites shared history
	// exit status 2
}
