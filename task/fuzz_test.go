package task_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/task"
)

// FuzzParse feeds Parse arbitrary plans, as YAML and as JSON (the file name
// picks the reader). It must not panic, must report failures as Problems with
// a message each, and a plan it accepts must validate without errors.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(file), data)
	}
	f.Add("alias.yaml", []byte("a: &a [x, x]\nb: &b [*a, *a]\nphases: [*b, *b]\n"))
	f.Add("deep.json", []byte(`{"phases":[[[[[[[[]]]]]]]]}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		p, err := task.Parse(name, data)
		if err != nil {
			var ps task.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Parse error is %T, not task.Problems: %v", err, err)
			}
			if len(ps) == 0 {
				t.Fatal("Parse returned empty Problems")
			}
			for _, pr := range ps {
				if pr.Message == "" {
					t.Fatalf("problem without a message: %#v", pr)
				}
			}
			if len(ps.Errors()) == 0 {
				t.Fatalf("Parse failed on warnings alone:\n%v", ps)
			}
			if p != nil {
				t.Fatal("Parse returned both a plan and an error")
			}
			return
		}
		if err := p.Validate().Err(); err != nil {
			t.Fatalf("accepted plan does not validate:\n%v", err)
		}
	})
}
