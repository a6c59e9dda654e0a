// Package source records where a parsed plan's fields were written, so that
// the plan model's Validate can place each problem at file:line:column.
// Package task fills a File while it decodes a plan and attaches it to the
// plan; package model reads it. Field paths are those of the problems:
// "phases[0].tasks[1].budget.attempts".
package source

import (
	"strings"

	"github.com/harnish/harnish/task/internal/quote"
)

// Attach records f as the source of plan, a *model.Plan, whose field for it
// is unexported. Package model sets Attach when it is initialized, so it is
// set before package task, which imports model, can call it.
var Attach func(plan any, f *File)

// File is where a parsed plan came from.
type File struct {
	Name string              // the file name problems carry
	Pos  map[string]Position // where each field's value starts, by field path
	// Unread holds the fields the decoder could not read; nil for none.
	Unread *Unread
}

// Position is where a field's value starts in the file.
type Position struct {
	Line, Col int  // 1-based
	Null      bool // the value was written as null, which leaves the zero value
}

// Written reports whether the file gave field a value other than null. A nil
// File, a plan built in code, wrote nothing.
func (f *File) Written(field string) bool {
	if f == nil {
		return false
	}
	at, ok := f.Pos[field]
	return ok && !at.Null
}

// Locate returns the position of field or, when the file has none for it
// (a field that is missing), of the nearest object that holds it.
func (f *File) Locate(field string) (Position, bool) {
	if f == nil {
		return Position{}, false
	}
	for ; ; field = Parent(field) {
		if at, ok := f.Pos[field]; ok {
			return at, true
		}
		if field == "" {
			return Position{}, false
		}
	}
}

// Parent strips the last ".name" or "[i]" from a field path.
func Parent(field string) string {
	i := strings.LastIndexAny(field, ".[")
	if i < 0 {
		return ""
	}
	return field[:i]
}

// Join appends a key to a field path, cut short when long: the path is
// quoted in problems.
func Join(field, name string) string {
	if field == "" {
		return quote.Bare(name)
	}
	return field + "." + quote.Bare(name)
}

// Unread holds the fields a decoder could not read and skipped, so that
// validation leaves out problems that may only repeat them: "title:
// required" after "title: 2024" (a number, to be quoted), or a task without
// acceptance criteria after "acceptence:" (an unknown field).
type Unread struct {
	fields  map[string]bool
	holders map[string]bool // the objects and lists holding those fields
}

// NewUnread returns an empty Unread.
func NewUnread() *Unread {
	return &Unread{fields: map[string]bool{}, holders: map[string]bool{}}
}

// Add records that field could not be read.
func (u *Unread) Add(field string) {
	u.fields[field] = true
	u.holders[Parent(field)] = true
}

// Covers reports whether field is, or is inside, a field that was not read.
func (u *Unread) Covers(field string) bool {
	if u == nil {
		return false
	}
	for f := field; ; f = Parent(f) {
		if u.fields[f] {
			return true
		}
		if f == "" {
			return false
		}
	}
}

// Near reports whether field, or the object that holds it, holds a field
// that was not read: it may be the one field says is missing.
func (u *Unread) Near(field string) bool {
	return u != nil && (u.holders[field] || u.holders[Parent(field)])
}
