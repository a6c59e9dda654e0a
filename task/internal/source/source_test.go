package source_test

import (
	"testing"

	"github.com/harnish/harnish/task/internal/source"
)

func TestFile(t *testing.T) {
	f := &source.File{Name: "plan.yaml", Pos: map[string]source.Position{
		"":                    {Line: 1, Col: 1},
		"phases[0]":           {Line: 4, Col: 5},
		"phases[0].title":     {Line: 5, Col: 12},
		"phases[0].milestone": {Line: 6, Col: 16, Null: true},
	}}
	for _, c := range []struct {
		field   string
		line    int
		written bool
	}{
		{"phases[0].title", 5, true},
		{"phases[0].milestone", 6, false}, // written as null
		{"phases[0].tasks", 4, false},     // missing: its phase's position
		{"budget.attempts", 1, false},     // missing: the plan's
	} {
		at, ok := f.Locate(c.field)
		if !ok || at.Line != c.line || f.Written(c.field) != c.written {
			t.Errorf("%s: Locate = %v, %v; Written = %v; want line %d, written %v", c.field, at, ok, f.Written(c.field), c.line, c.written)
		}
	}
	var none *source.File // a plan built in code
	if _, ok := none.Locate("name"); ok || none.Written("name") {
		t.Error("a nil File locates or has written a field")
	}
}

func TestUnread(t *testing.T) {
	u := source.NewUnread()
	u.Add("phases[0].tasks[1].title")
	for _, c := range []struct {
		field        string
		covers, near bool
	}{
		{"phases[0].tasks[1].title", true, true},
		{"phases[0].tasks[1]", false, true},            // holds it: "title: required" may repeat it
		{"phases[0].tasks[1].acceptance", false, true}, // beside it: it may be the one missing
		{"phases[0].tasks[0].title", false, false},
	} {
		if u.Covers(c.field) != c.covers || u.Near(c.field) != c.near {
			t.Errorf("%s: Covers = %v, Near = %v; want %v, %v", c.field, u.Covers(c.field), u.Near(c.field), c.covers, c.near)
		}
	}
	var none *source.Unread
	if none.Covers("name") || none.Near("name") {
		t.Error("a nil Unread covers a field")
	}
}

func TestJoin(t *testing.T) {
	for _, c := range [][3]string{{"", "name", "name"}, {"executor.env", "HOME", "executor.env.HOME"}} {
		if got := source.Join(c[0], c[1]); got != c[2] {
			t.Errorf("Join(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
		if got := source.Parent(c[2]); got != c[0] {
			t.Errorf("Parent(%q) = %q, want %q", c[2], got, c[0])
		}
	}
}
