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
// The store of record is the JSONL file .harnish/harnish-assets.jsonl
// ([StorePath]), kept by [FileStore] (see [OpenFile]): one record a line (or
// spread over lines, as the engine's reader allows), in the harnish engine's
// format, so the engine's scripts and harnish share one file, each seeing
// every record once. [Decoder] reads such a file strictly; [Import] brings
// another history into a store. [Render] turns a query's result into prompt
// text within a byte budget; [FileStore.Stats] counts what a store holds.
//
// A query is cheap in a new process too: a FileStore keeps an index file
// beside the JSONL file (a cache, checked against the file's bytes) and
// decodes only the records a query returns. Accesses a query marks go to an
// access log beside the file, not into it, and are folded into the records
// from time to time, so reads never grow the file.
//
// Compress folds a tag of 5 or more records into one summary record
// (marked "summary_of", never folded again); Purge removes assets by
// selectors, or by age per type ([DefaultRetention]: decisions 365 days,
// failures 90, snippets 180, patterns and guardrails never). Both support a
// dry run. [Export] turns a query's result into a skill (SKILL.md) or an
// AGENTS.md section a person reviews and commits (the engine's
// "skillify"); [Check] reports the weak records (no body, no tags, a
// duplicate title, stale), the engine's quality gate. A FileStore appends what they remove to its archive file (the
// engine's harnish-assets-archive.jsonl) and rewrites its file
// crash-safely under the same lock appends take; other stores on the file,
// in other processes too, notice the new file and reindex. The engine
// summarizes its own way (a record "compressed-TAG", the originals kept
// in the file marked "compressed": true); harnish reads those as summaries
// and folded records. The asset/assettest package holds
// the conformance suite every Store passes. This package imports nothing else
// of harnish but its internal file primitives.
package asset
