package importer_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

// TestLongValues makes sure an error repeats only the start of a long value,
// wherever the value is.
func TestLongValues(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	longDigits := strings.Repeat("9", 1<<20)
	x80 := strings.Repeat("x", 80)
	L := func(s string) string { return strings.ReplaceAll(s, "LONG", long) }
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(L(s))} }
	progressFile := func(s string) func() (*task.Plan, error) {
		return func() (*task.Plan, error) { return importer.ProgressFile("w.json", []byte(s)) }
	}
	plansMD := func(s string) func() (*task.Plan, error) {
		return func() (*task.Plan, error) { return importer.PlansMD("Plans.md", []byte(L(s))) }
	}
	stepTree := func(fsys fstest.MapFS) func() (*task.Plan, error) {
		return func() (*task.Plan, error) { return importer.StepTree(fsys) }
	}
	tests := []struct {
		name  string
		parse func() (*task.Plan, error)
		want  string
	}{
		{"progress number", progressFile(progress(`{"phase":1,"tasks":[{"id":"a","title":` + longDigits + `}]}`)),
			`importer: w.json:1:136: todo.phases[0].tasks[0].title: expected a string, got number ` + strings.Repeat("9", 80) + `… (1048576 bytes)`},
		{"progress string", progressFile(L(strings.Replace(progress(``), `"done":{"phases":[]}`, `"done":{"phases":[{"phase":1,"compressed":"LONG"}]}`, 1))),
			`importer: w.json:1:79: done.phases[0].compressed: expected true or false, got string "` + x80 + `"… (1048576 bytes)`},
		{"progress dependency", progressFile(L(progress(`{"phase":1,"tasks":[{"id":"1-1","title":"a","depends_on":["LONG"]}]}`))),
			`importer: w.json:1:155: todo.phases[0].tasks[0].depends_on: no task "` + x80 + `"… (1048576 bytes) in the file`},
		{"progress key", progressFile(L(`{"metadata": {"LONG": [,]}}`)),
			`importer: w.json:1:1048596: metadata.` + x80 + `… (1048576 bytes)[0]: invalid character ',' looking for beginning of value`},
		{"list marker", plansMD("## Phase 1\n\n- [ ] Build it `cc:LONG`\n"),
			`importer: Plans.md:3:17: status: unknown status marker "cc:` + x80[3:] + `"… (1048579 bytes): want one of ` + markerList},
		{"table status", plansMD("| Task | 内容 | Status |\n|---|---|---|\n| 1.1 | Build | LONG |\n"),
			`importer: Plans.md:3:17: Status: no status marker in "` + x80 + `"… (1048576 bytes): want one of ` + markerList},
		{"later phase", plansMD("## Phase 1\n- [ ] 1a: a `cc:TODO` depends:2LONG\n## Phase 2\n- [ ] 2LONG: b `cc:TODO`\n"),
			`importer: Plans.md:2:1: depends: task "2` + x80[1:] + `"… (1048577 bytes) is in a later phase; a task may depend only on tasks of its own or earlier phases`},
		{"step status", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"a","status":"LONG"}]}`)}),
			`importer: phases/index.json:1:32: phases[0].status: unknown status "` + x80 + `"… (1048576 bytes): want pending, completed, error or blocked`},
		{"step dir", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"LONG"}]}`)}),
			`importer: phases/index.json:1:19: phases[0].dir: phases/` + strings.Repeat("x", 313) + `… (1048594 bytes) does not exist`},
		{"file in a long dir", stepTree(fstest.MapFS{"phases/index.json": file(`{"phases":[{"dir":"LONG"}]}`), L("phases/LONG/index.json"): file(`[]`)}),
			`importer: phases/` + strings.Repeat("x", 313) + `… (1048594 bytes):1:1: expected an object, got a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.parse()
			checkError(t, p, err, tt.want)
			if n := len(err.Error()); n > 1024 {
				t.Errorf("error of %d bytes", n)
			}
		})
	}
}
