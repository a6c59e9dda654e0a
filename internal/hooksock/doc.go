// Package hooksock carries the agents' pre-tool-use hook calls from the
// hook process to the run that started the agent, over a unix socket the
// run owns.
//
// A hook is a process an agent starts before every tool call. Judging the
// call costs far less than starting a process that links the guardrails and
// runs their package initialisation, so while a run is open it listens on
// a socket under its state directory (package hooksrv) and names it in
// the environment its agents inherit ([EnvSocket]); the hook sends the call
// there ([Ask]) and writes back the answer. The run answers with the very
// code the hook would run itself, so the answer is the same either way.
//
// Only the run's user may talk to it: the socket sits in a directory of
// mode 0700 under the state directory, never in a shared temporary
// directory, the socket itself is 0600, and where the system tells (Linux,
// SO_PEERCRED) each side checks that the other runs as the same user.
//
// The package imports nothing of harnish's public packages, nor package
// net: the hook's command line links it, and its client talks through
// plain system calls.
package hooksock
