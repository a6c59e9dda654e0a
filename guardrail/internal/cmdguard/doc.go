// Package cmdguard is the engine of guardrail's command guard: it parses a
// command line with package shell, unwraps wrappers, recurses into payloads
// and applies the hard rules to every command it finds. Package guardrail
// exposes it as [guardrail.CommandGuard]; the rules are documented there.
package cmdguard
