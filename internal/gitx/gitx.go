// Package gitx reads a working tree through real git without touching the
// repository's index, HEAD or refs: a snapshot is a tree object written from a
// private index, and a diff compares two snapshots.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish/internal/proc"
)

// MaxDiff bounds the diff Diff returns; a larger one is an error, since a
// change that large is not one to judge line by line.
const MaxDiff = 64 << 20

// Snapshot returns the hash of a git tree holding the working tree at dir as
// it is now: tracked and untracked files, minus ignored ones, plus the force
// paths (e.g. the state directory) even when ignored.
func Snapshot(ctx context.Context, dir string, force ...string) (string, error) {
	gitDir, err := output(ctx, dir, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp("", "harnish-index-")
	if err != nil {
		return "", err
	}
	index := tmp.Name()
	defer os.Remove(index)
	// Start from the real index, so unchanged files are not hashed again.
	if src, err := os.Open(filepath.Join(strings.TrimSpace(gitDir), "index")); err == nil {
		_, err = io.Copy(tmp, src)
		src.Close()
		if err != nil {
			tmp.Close()
			return "", err
		}
	}
	tmp.Close()
	env := []string{"GIT_INDEX_FILE=" + index}
	if _, err := output(ctx, dir, env, "add", "-A"); err != nil {
		return "", err
	}
	for _, p := range force {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			if _, err := output(ctx, dir, env, "add", "-A", "-f", "--", p); err != nil {
				return "", err
			}
		}
	}
	tree, err := output(ctx, dir, env, "write-tree")
	return strings.TrimSpace(tree), err
}

// Diff returns the unified diff from one snapshot to another, as git diff
// prints it.
func Diff(ctx context.Context, dir, from, to string) (string, error) {
	return output(ctx, dir, nil, "diff", "--no-color", "--no-ext-diff", from, to)
}

func output(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	out := &limited{max: MaxDiff}
	argv := append([]string{"git", "-c", "core.quotepath=off"}, args...)
	_, err := proc.Run(ctx, proc.Spec{Stage: "git " + args[0], Argv: argv, Root: dir, Env: env, Stdout: out})
	if err != nil {
		return "", fmt.Errorf("gitx: %w", err)
	}
	if out.over {
		return "", errors.New("gitx: git " + args[0] + ": output larger than the limit")
	}
	return out.buf.String(), nil
}

type limited struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		l.over = true
		return len(p), nil
	}
	return l.buf.Write(p)
}
