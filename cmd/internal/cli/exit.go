package cli

// Exit statuses every command shares (see the CLI contract in DESIGN.md §8).
const (
	ExitOK    = 0
	ExitError = 1 // usage or internal error, or a plan that does not validate
)
