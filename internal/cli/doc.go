// Package cli holds what the commands of harnish and harnish-hook share: the
// exit statuses, flag parsing, where a working tree's plan is found and
// kept, and the guardrail configurations a plan makes.
//
// It lives apart from cmd/harnish so that cmd/harnish-hook, which the agents
// run before every tool call, shares one implementation with the full CLI
// without linking the plugin host.
package cli
