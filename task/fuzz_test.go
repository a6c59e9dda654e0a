package task_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/harnish/harnish/task"
)

// maxProblem bounds the text of one problem, its file name aside: messages
// repeat only the start of a value.
const maxProblem = 1024

var classes = []error{task.ErrSyntax, task.ErrSchema, task.ErrUnsupportedVersion, task.ErrCycle, task.ErrNoAcceptance, task.ErrTooLarge}

// seedPlans adds the plans of testdata, and some hostile ones, to f; with
// name set, as data alone.
func seedPlans(f *testing.F, ext string, withName bool) {
	files, err := filepath.Glob("testdata/*" + ext)
	if err != nil {
		f.Fatal(err)
	}
	add := func(name string, data []byte) {
		if withName {
			f.Add(name, data)
		} else if strings.HasSuffix(name, ext) {
			f.Add(data)
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		add(filepath.Base(file), data)
	}
	add("alias.yaml", []byte("a: &a [x, x]\nb: &b [*a, *a]\nphases: [*b, *b]\n"))
	add("bad.yaml", []byte(head+"budget: {attempts: x}\nphases: [{id: p1, title: 3, tasks: [{id: T1, title: t, depends_on: [T1]}]}]\n"))
	add("deep.json", []byte(`{"phases":[[[[[[[[]]]]]]]]}`))
	add("bad.json", []byte(`{"version": 1, "name": "p", "x": 1, "phases": [{"id": "p1", "title": "t", "tasks": [{"id": "T1", "title": "t", "depends_on": ["T1"]}]}]}`))
}

// checkParse holds Parse to its contract: no panic; failures as Problems,
// each with a class, a message and a bounded size; a plan only when there is
// no error, which then validates the same, and again after a trip through
// JSON.
func checkParse(t *testing.T, name string, data []byte) {
	p, err := task.Parse(name, data)
	if err != nil {
		var ps task.Problems
		if !errors.As(err, &ps) {
			t.Fatalf("Parse error is %T, not task.Problems: %v", err, err)
		}
		if len(ps.Errors()) == 0 {
			t.Fatalf("Parse failed on warnings alone:\n%v", ps)
		}
		for _, pr := range ps {
			if pr.Message == "" {
				t.Fatalf("problem without a message: %#v", pr)
			}
			if n := len(pr.Error()) - len(pr.File); n > maxProblem {
				t.Fatalf("problem of %d bytes: %.2000s", n, pr.Error())
			}
			if !slices.Contains(classes, pr.Err) {
				t.Fatalf("problem of no class: %#v", pr)
			}
		}
		if p != nil {
			t.Fatal("Parse returned both a plan and an error")
		}
		return
	}
	ps := p.Validate()
	if err := ps.Err(); err != nil {
		t.Fatalf("accepted plan does not validate:\n%v", err)
	}
	if diff := cmp.Diff(ps.Error(), p.Validate().Error()); diff != "" {
		t.Fatalf("Validate differs from one call to the next (-first +second):\n%s", diff)
	}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	back, err := task.Parse("plan.json", js)
	if err != nil {
		t.Fatalf("the plan as JSON does not parse: %v\n%s", err, js)
	}
	if diff := cmp.Diff(p, back, cmpopts.IgnoreUnexported(task.Plan{}), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("the plan changed on a trip through JSON (-parsed +again):\n%s", diff)
	}
}

// FuzzParse feeds Parse arbitrary plans under arbitrary names, which pick the
// reader.
func FuzzParse(f *testing.F) {
	seedPlans(f, "", true)
	f.Fuzz(checkParse)
}

// FuzzParseYAML feeds Parse arbitrary YAML plans.
func FuzzParseYAML(f *testing.F) {
	seedPlans(f, ".yaml", false)
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "plan.yaml", data) })
}

// FuzzParseJSON feeds Parse arbitrary JSON plans.
func FuzzParseJSON(f *testing.F) {
	seedPlans(f, ".json", false)
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "plan.json", data) })
}

// FuzzDuration: a Duration's text either is refused briefly or reads back
// the same after MarshalText.
func FuzzDuration(f *testing.F) {
	for _, s := range []string{"90s", "1h30m", "-1.5h", "0", "", "30", "1e3s", strings.Repeat("9", 200) + "s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var d task.Duration
		if err := d.UnmarshalText([]byte(s)); err != nil {
			if n := len(err.Error()); n > maxProblem {
				t.Fatalf("error of %d bytes", n)
			}
			return
		}
		text, err := d.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var again task.Duration
		if err := again.UnmarshalText(text); err != nil || again != d {
			t.Fatalf("%q reads as %v, whose text %q reads as %v, %v", s, d, text, again, err)
		}
	})
}
