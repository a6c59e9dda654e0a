package gitx

import (
	"context"
	"strings"
)

// CommitFiles returns the paths a commit changed against its first parent
// (against nothing, for a root commit), slash-separated, as git names them.
func CommitFiles(ctx context.Context, dir, commit string) ([]string, error) {
	out, err := output(ctx, dir, nil, "diff-tree", "--no-commit-id", "--name-only", "-r", "-z", "--root", "-m", "--first-parent", commit, "--")
	if err != nil {
		return nil, err
	}
	files := []string{}
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}
