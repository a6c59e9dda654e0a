package executor

// The environment of an executor of kind "command": the loop runs its argv in
// the working tree with the prompt on stdin and these variables set.
const (
	EnvTaskID     = "HARNISH_TASK_ID"
	EnvPhaseID    = "HARNISH_PHASE_ID"
	EnvAttempt    = "HARNISH_ATTEMPT" // 1-based, over every attempt of the task
	EnvWorkDir    = "HARNISH_WORKDIR"
	EnvPromptFile = "HARNISH_PROMPT_FILE"
	// EnvResultFile names a file the program may write a JSON result to:
	// {"summary", "files_changed", "usage": {"input_tokens", "output_tokens", "cost_usd"}}.
	EnvResultFile = "HARNISH_RESULT_FILE"
)

// Exit statuses of an executor of kind "command". Any other status is a failed
// attempt ([KindCrashed]).
const (
	// ExitDone claims the task done: a request to verify.
	ExitDone = 0
	// ExitBlocked claims the agent is blocked; the reason is on stderr.
	ExitBlocked = 2
)
