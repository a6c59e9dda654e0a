// Policytest shows how to unit-test a loop policy: the rules a team relies
// on (the two-strike rule, the reviewer gate, budgets, escalation of a task
// without acceptance criteria) pinned down as a table test over the public
// API, with the scripted parts from [looptest]. It runs in milliseconds: no
// agent, no processes, a fake clock and an in-memory store.
//
// Copy policy_test.go into your own repository, put your plan in it, and
// state what must happen.
package policytest
