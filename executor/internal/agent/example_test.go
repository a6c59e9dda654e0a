package agent_test

import (
	"fmt"

	"github.com/harnish/harnish/executor/internal/agent"
)

// An executor appends the convention to its prompt and reads the claim from
// the agent's final message.
func ExampleBlocked() {
	final := "The tests need a database I cannot start.\nHARNISH-BLOCKED: a PostgreSQL server for the integration tests"
	reason, blocked := agent.Blocked(final)
	fmt.Println(blocked, reason)
	// Output: true a PostgreSQL server for the integration tests
}
