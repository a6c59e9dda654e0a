// Package hookcmd is "harnish hook": the answer to the hooks of the agent
// CLIs that harnish runs. Claude Code and Codex call it before every tool
// call (pre-tool-use: judge the call by the plan's guardrails) and when the
// agent wants to stop (stop: run the task's acceptance checks and send the
// agent back while they fail), each answer in the agent's own protocol: exit
// status 2 and a reason on standard error to refuse.
//
// Both cmd/harnish ("harnish hook") and cmd/harnish-hook run it. The second
// links only what the hooks need, so the process an agent starts before
// each tool call starts fast; nothing this package imports may bring in the
// plugin host (gRPC, protobuf, go-plugin), which cmd/harnish-hook's tests
// check.
package hookcmd
