package importer_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnish/harnish/task/importer"
)

// TestLongValues makes sure an error or a warning repeats only the start of
// a long value, wherever the value is.
func TestLongValues(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	longDigits := strings.Repeat("9", 1<<20)
	x80 := strings.Repeat("x", 80)
	L := func(s string) string { return strings.ReplaceAll(s, "LONG", long) }
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(L(s))} }
	progressFile := func(s string) func() (*importer.Result, error) {
		return func() (*importer.Result, error) {
			return importer.Parse(importer.FormatProgress, "w.json", []byte(L(s)))
		}
	}
	plansMD := func(s string) func() (*importer.Result, error) {
		return func() (*importer.Result, error) {
			return importer.Parse(importer.FormatPlansMD, "Plans.md", []byte(L(s)))
		}
	}
	stepTree := func(fsys fstest.MapFS) func() (*importer.Result, error) {
		return func() (*importer.Result, error) { return importer.ParseStepTree(fsys) }
	}
	steps := file(`{"steps":[{"step":0,"name":"a","status":"pending"}]}`)
	tests := []struct {
		name  string
		parse func() (*importer.Result, error)
		want  string // the error, or else the first warning
	}{
		{"progress number", progressFile(progress(`{"phase":1,"tasks":[{"id":"a","title":{"x":` + longDigits + `}}]}`)),
			`w.json:1:136: todo.phases[0].tasks[0].title: expected a string, got an object; not imported`},
		{"progress string", progressFile(strings.Replace(progress(`{"phase":1,"tasks":[{"id":"a","title":"a"}]}`), `"done":{"phases":[]}`, `"done":{"phases":[{"phase":1,"compressed":"LONG"}]}`, 1)),
			`w.json:1:79: done.phases[0].compressed: expected true or false, got string "` + x80 + `"… (1048576 bytes); taken as false`},
		{"progress dependency", progressFile(progress(`{"phase":1,"tasks":[{"id":"1-1","title":"a","depends_on":["LONG"]}]}`)),
			`w.json:1:155: todo.phases[0].tasks[0].depends_on: no task "` + x80 + `"… (1048576 bytes) in the file; dependency dropped`},
		{"progress key", progressFile(`{"metadata": {"LONG": [,]}}`),
			`importer: w.json:1:1048596: metadata.` + x80 + `… (1048576 bytes)[0]: invalid character ',' looking for beginning of value`},
		{"list marker", plansMD("## Phase 1\n\n- [ ] Build it `cc:LONG`\n"),
			`Plans.md:3:17: status: unknown status marker "cc:` + x80[3:] + `"… (1048579 bytes); taken as todo`},
		{"table status", plansMD("| Task | 内容 | Status |\n|---|---|---|\n| 1.1 | Build | LONG |\n"),
			`Plans.md:3:17: Status: no status marker in "` + x80 + `"… (1048576 bytes); taken as to do`},
		{"step status", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"a","status":"LONG"}]}`), "phases/a/index.json": steps}),
			`phases/index.json:1:32: phases[0].status: unknown status "` + x80 + `"… (1048576 bytes); the steps' own statuses are used`},
		{"step dir", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"LONG"},{"dir":"a"}]}`), "phases/a/index.json": steps}),
			`phases/index.json:1:19: phases[0].dir: phases/` + strings.Repeat("x", 313) + `… (1048594 bytes) does not exist yet; phase "` + x80 + `"… (1048576 bytes) (pending) not imported`},
		{"file in a long dir", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"LONG"}]}`), L("phases/LONG/index.json"): file(`[]`)}),
			`importer: phases/index.json: no tasks to import; first problem: phases/index.json:1:19: phases[0].dir: phase "` + x80 + `"… (1048576 bytes) not imported: ` +
				`phases/` + strings.Repeat("x", 313) + `… (1048594 bytes):1:1: expected an object, got a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.parse()
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case len(res.Warnings) == 0:
				t.Fatal("no error and no warning")
			default:
				got = res.Warnings[0].String()
				for _, w := range res.Warnings {
					if n := len(w.String()); n > 1024 {
						t.Errorf("warning of %d bytes", n)
					}
				}
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if n := len(got); n > 1024 {
				t.Errorf("message of %d bytes", n)
			}
		})
	}
}
