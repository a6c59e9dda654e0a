// Package cli holds what the commands of harnish and harnish-hook share:
// the exit statuses. (Where a plan is found and kept, and the guardrail
// configurations a plan makes, are library concepts: task.Locate,
// loop.KeepPlan, guardrail.PlanCommandConfig; flag parsing is flagx.)
//
// It lives apart from cmd/harnish so that cmd/harnish-hook, which the agents
// run before every tool call, shares one implementation with the full CLI
// without linking the plugin host.
package cli
