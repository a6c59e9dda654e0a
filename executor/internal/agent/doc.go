// Package agent holds what the executors of agent CLIs (executor/codex,
// executor/claude) share: the hook settings that point an agent's hooks back
// at harnish, the check that those hooks really ran, the convention by which
// an agent claims to be blocked, the environment of an attempt, and the
// helpers that read an agent's event stream.
package agent
