package asset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// SchemaVersion is the version of the asset record this package writes. A
// store refuses records of a newer version with [ErrSchema].
const SchemaVersion = 1

// Asset is one piece of experience. Its JSON form is a record of
// .harnish/harnish-assets.jsonl (see [Asset.MarshalJSON]).
type Asset struct {
	Type Type `json:"type"`
	// Slug identifies the asset in its store: any text with a non-space
	// character and no control character. Slugs a store derives ([Slugify])
	// are lowercase letters, digits and '-'; the engine's summaries keep
	// their tag's case ("compressed-API"). Empty means the store derives one
	// from the title when recording.
	Slug string `json:"slug"`
	// Title says in one line what the asset is about.
	Title string `json:"title"`
	// Tags are what queries match, usually a task's tags. A tag has a
	// non-space character and no control character (it may hold spaces, as
	// the engine's do); tags compare without regard to case.
	Tags []string `json:"tags,omitempty"`
	// Date is when the asset was recorded. The zero value means the store
	// sets it when recording. A record keeps the day in "date", as the
	// engine does, and the time in "recorded_at" (see [Asset.MarshalJSON]).
	Date time.Time `json:"date,omitzero"`
	// Scope says who the asset is good for. Empty means [ScopeProject].
	Scope Scope `json:"scope,omitempty"`
	// Body is the asset itself: what happened and what to do, as text an
	// agent can read.
	Body string `json:"body,omitempty"`
	// Context is where the asset came from: the plan, task and attempt, the
	// fingerprint, the files.
	Context string `json:"context,omitempty"`
	// Session identifies the run that recorded the asset; empty for an asset
	// recorded by hand.
	Session string `json:"session,omitempty"`
	// SchemaVersion is the version of the record. Zero means [SchemaVersion]
	// when recording. Version 1 is the engine's "0.0.2" (and "0.0.1").
	SchemaVersion int `json:"schema_version,omitempty"`

	// LastAccessed is when a query last injected the asset; zero if never.
	// Retention keys on it.
	LastAccessed time.Time `json:"last_accessed_at,omitzero"`
	// AccessCount counts the queries that injected the asset.
	AccessCount int `json:"access_count,omitempty"`

	// Resolved says whether the failure was resolved. [TypeFailure] only;
	// nil means not known.
	Resolved *bool `json:"resolved,omitempty"`
	// Stability says how settled a pattern or snippet is: the engine writes
	// 1, people write "experimental" or "stable". A Stability that is a
	// number is written as a JSON number. [TypePattern] and [TypeSnippet]
	// only.
	Stability string `json:"stability,omitempty"`
	// Level is the guardrail level the lesson is about: "soft" or "hard".
	// [TypeGuardrail] only.
	Level string `json:"level,omitempty"`
	// Confidence says how sure the decision is, e.g. "low", "medium" or
	// "high". [TypeDecision] only.
	Confidence string `json:"confidence,omitempty"`

	// Extra holds the record's fields this package does not know, such as
	// those a newer harnish engine writes, by JSON key with their JSON
	// values. They are written back unchanged, so a record survives a round
	// trip through an older reader.
	Extra map[string]json.RawMessage `json:"-"`
}

// Type says what kind of experience an [Asset] holds.
type Type string

// The asset types.
const (
	// TypeFailure: a failure mode and how it was (or was not) resolved.
	TypeFailure Type = "failure"
	// TypePattern: an approach that worked, worth repeating.
	TypePattern Type = "pattern"
	// TypeGuardrail: a guardrail an agent ran into, and how to stay clear of it.
	TypeGuardrail Type = "guardrail"
	// TypeDecision: a design decision and its reasons.
	TypeDecision Type = "decision"
	// TypeSnippet: a piece of code or configuration to reuse.
	TypeSnippet Type = "snippet"
)

// Valid reports whether t is one of the asset types.
func (t Type) Valid() bool {
	switch t {
	case TypeFailure, TypePattern, TypeGuardrail, TypeDecision, TypeSnippet:
		return true
	}
	return false
}

// Scope says who an [Asset] is good for.
type Scope string

// The scopes.
const (
	// ScopeGeneric: true anywhere, for any project.
	ScopeGeneric Scope = "generic"
	// ScopeProject: true for this project (the default).
	ScopeProject Scope = "project"
	// ScopeTeam: true for the team's projects, shared between them.
	ScopeTeam Scope = "team"
)

// Valid reports whether s is one of the scopes.
func (s Scope) Valid() bool {
	return s == ScopeGeneric || s == ScopeProject || s == ScopeTeam
}

// wellFormed reports whether s, a slug or a tag, has a non-space character
// and no control character.
func wellFormed(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return !isSpace(r) }) && !strings.ContainsFunc(s, unicode.IsControl)
}

// Validate checks what a caller must get right in an asset: a known type, a
// title, well-formed tags and slug, a known scope, a schema version this
// package reads, and extras only on the type they belong to. Fields a store
// fills in (Slug, Date, Scope, SchemaVersion) may be zero. Every problem is
// reported, in an error wrapping [ErrInvalid], or [ErrSchema] for a newer
// schema version.
func (a *Asset) Validate() error {
	if a.SchemaVersion > SchemaVersion {
		return fmt.Errorf("%w: version %d, newer than %d", ErrSchema, a.SchemaVersion, SchemaVersion)
	}
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !a.Type.Valid() {
		add("unknown type %q", a.Type)
	}
	if a.Slug != "" && !wellFormed(a.Slug) {
		add("malformed slug %q", a.Slug)
	}
	if strings.TrimSpace(a.Title) == "" {
		add("no title")
	}
	for _, tag := range a.Tags {
		if !wellFormed(tag) {
			add("malformed tag %q", tag)
		}
	}
	if a.Scope != "" && !a.Scope.Valid() {
		add("unknown scope %q", a.Scope)
	}
	if a.SchemaVersion < 0 {
		add("negative schema version %d", a.SchemaVersion)
	}
	if a.AccessCount < 0 {
		add("negative access count %d", a.AccessCount)
	}
	extra := func(set bool, name string, owners ...Type) {
		if set && !slices.Contains(owners, a.Type) {
			add("%s is for %s assets, not %s", name, joinTypes(owners), a.Type)
		}
	}
	extra(a.Resolved != nil, "resolved", TypeFailure)
	extra(a.Stability != "", "stability", TypePattern, TypeSnippet)
	extra(a.Level != "", "level", TypeGuardrail)
	extra(a.Confidence != "", "confidence", TypeDecision)
	if a.Level != "" && a.Level != "soft" && a.Level != "hard" {
		add("level %q is not soft or hard", a.Level)
	}
	if problems != nil {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(problems, "; "))
	}
	return nil
}

func joinTypes(ts []Type) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, " and ")
}
