// Package preflight checks, before a run starts, what would otherwise stop
// it half-way or let the agent improvise: the plan loads and every task to
// do has a check that runs; the working tree is clean; the run's budget is
// capped; the files the plan says exist do; no task's scope or text
// contradicts the tree (see contradict.go: a path it names that the tree
// lacks, where a file of the same name moved, the task says it changes the
// path, or a directory is misspelt, in English, Japanese, Korean or
// Chinese; a path the task creates never stops it); the programs the checks
// run are on PATH (with their versions).
//
// A contradiction is reported as a person would be asked it:
//
//	Expected: internal/cache/client.go exists (task T3: "Modify internal/cache/client.go ...")
//	Found: no such file; client.go is at pkg/cache/client.go
//	How should I proceed?
//
// [Run] returns a [Report]; the CLI's "harnish preflight" prints it, and
// "harnish run" runs the same checks first.
package preflight
