// Package guardrail decides whether an agent's action may go ahead. A
// [Guardrail] judges one [Action] (a shell command, a file edit, or a package
// install) and returns a [Decision]: [Allow], [Soft] (warn, continue, and tell
// the agent) or [Hard] (stop), with a stable rule ID and a reason.
//
// The loop consults guardrails twice. During an attempt, every tool call the
// agent makes reaches harnish through the agent's own hook (harnish hook
// pre-tool-use) and is judged before it runs. After the attempt, the diff is
// judged again, file by file, because an agent's hook can fail to run. A hard
// decision stops the loop at once and is never retried: the agent does not
// get to try another spelling of the same command.
//
// Guardrails fail closed. An error returned by a guardrail, or a panic inside
// one, counts as a hard decision with the rule [RuleError]. Callers get that
// behaviour by calling a guardrail through [Evaluate] rather than directly;
// [All] combines guardrails, and the most severe decision wins.
//
//	agent ─ tool call ─> hook ─> Evaluate(All(rules...)) ─┬─ allow ─> runs
//	                                                      ├─ soft  ─> runs, agent warned
//	                                                      └─ hard  ─> blocked, loop stops
//
// This package holds the contract, the combinators and, later, the built-in
// rules and the shell parsers they use. It imports nothing else of harnish.
package guardrail
