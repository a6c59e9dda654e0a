// Package asset keeps the experience a run gains, so later tasks and later
// runs start from it: failures and how they were resolved, patterns that
// worked first time, guardrail lessons, decisions, snippets. Each is an
// [Asset]; a [Store] records, queries, compresses and purges them.
//
// The loop queries the store before every attempt, for the task's tags, and
// injects what it finds into the prompt. After a task is done it records what
// the rules call for: a failure that was resolved after repeating becomes a
// failure asset; a first-try success the executor marked generalizable
// becomes a pattern. People and scripts use the same store through
// harnish assets query|record|compress|purge.
//
//	loop ─ Query(task tags) ─> Store ─> assets in the prompt ─> executor
//	loop ─ Record(failure / pattern) ─> Store            (after the task is done)
//
// The store of record is the JSONL file .harnish/assets.jsonl; this package
// holds the contract and the record, and the JSONL store and the
// asset/assettest conformance suite are built on them. It imports nothing else
// of harnish.
package asset
