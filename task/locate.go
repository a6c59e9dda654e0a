package task

import (
	"os"
	"path/filepath"
)

// DefaultFiles are the plan files harnish looks for in a working tree when
// no plan file is named, in order.
var DefaultFiles = []string{"harnish.yaml", "harnish.yml", "harnish.json", "plan.yaml", "plan.yml", "plan.json"}

// Locate loads the plan in file, or, when file is empty, the first of
// [DefaultFiles] in dir. It returns the file it loaded, and a nil plan when
// there is none; a plan that exists but does not load is an error.
func Locate(file, dir string) (*Plan, string, error) {
	if file == "" {
		if file, _ = LocateFile(dir); file == "" {
			return nil, "", nil
		}
	}
	plan, err := Load(file)
	if err != nil {
		return nil, file, err
	}
	return plan, file, nil
}

// LocateFile returns the first of [DefaultFiles] in dir and its file
// information, or "" when there is none.
func LocateFile(dir string) (string, os.FileInfo) {
	for _, name := range DefaultFiles {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil {
			return p, st
		}
	}
	return "", nil
}
