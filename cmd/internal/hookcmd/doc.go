// Package hookcmd is "harnish hook": the command line of the answer to the
// hooks of the agent CLIs that harnish runs, its help, over the public
// package hook, which holds the hook protocols. It answers with the zero
// [hook.Handler]: the built-in guardrails with the plan in the working
// tree, the task's acceptance checks.
//
// Both cmd/harnish ("harnish hook") and cmd/harnish-hook run it. The second
// links only what the hooks need, so the process an agent starts before
// each tool call starts fast; nothing this package imports may bring in the
// plugin host (gRPC, protobuf, go-plugin), which cmd/harnish-hook's tests
// check.
package hookcmd
