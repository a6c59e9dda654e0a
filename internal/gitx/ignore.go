package gitx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/harnish/harnish/internal/fsx"
)

// ignoreAll is the .gitignore IgnoreDir writes: it matches every file
// under its directory, itself included, so the directory never shows in
// git status and never enters a commit by git add -A. Paths added with
// git add -f (a run's records) are tracked all the same.
const ignoreAll = "# harnish's state and runtime files stay out of git status and commits;\n" +
	"# a run commits its records itself (git add -f).\n*\n"

// IgnoreDir writes dir/.gitignore ignoring everything under dir, when dir
// has none. One the user wrote or changed is left as it is.
func IgnoreDir(dir string) error {
	path := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fsx.ReplaceFile(path, []byte(ignoreAll), 0o644)
}
