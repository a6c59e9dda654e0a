// Package web is a live status page of a harnish run, as an [http.Handler]
// a platform mounts: the plan's phases as graphs of their tasks with their
// states, each task's failed attempts with their fingerprints, review
// findings and guardrail decisions, the spend over time, what runs side by
// side and the merge queue, and the milestone gate that waits with its
// checklist.
//
// The page is rendered on the server (html/template), so the first
// response already shows every task and works without scripts; a small
// inline script then follows server-sent events that carry the parts of
// the page each committed transition changed. Nothing comes from elsewhere:
// style and script are inline, with a Content-Security-Policy that allows
// only them.
//
// A page follows a run in one of two ways:
//
//   - over a state directory (Config.Dir), the CLI's .harnish: [Follow]
//     reads what the loop's journal gains, whichever process runs the loop;
//   - over a [Store] the host's own loop commits through (Config.Store),
//     which hands the page each batch of transitions as it is committed.
//
// The page is read-only unless the host sets Config.Approve and a token:
// then a person can approve the gate the run waits at, as
// "harnish resume --approve" does. "harnish serve" is this package over a
// working tree, on a loopback address by default.
package web
