package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoot is wrapped by [Confine] (and so by [Run]) for a directory that
// is, or resolves to, a place outside the repository root.
var ErrOutsideRoot = errors.New("proc: directory outside the repository root")

// Confine resolves dir against root and returns the absolute, symlink-free
// directory it names, provided that lies inside root (or is root). dir may be
// relative to root, or absolute and inside it. A ".." that climbs out, an
// absolute path elsewhere and a symlink (anywhere on the way) leading out are
// errors wrapping [ErrOutsideRoot]; a directory that does not exist is an
// error too. An empty root means the current directory.
func Confine(root, dir string) (string, error) {
	if root == "" {
		root = "."
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("proc: repository root: %w", err)
	}
	realRoot, err := filepath.EvalSymlinks(absRoot)
	if err != nil {
		return "", fmt.Errorf("proc: repository root: %w", err)
	}
	target := dir
	if !filepath.IsAbs(dir) {
		if !filepath.IsLocal(dir) && filepath.Clean(dir) != "." {
			return "", fmt.Errorf("%w: %q climbs out of %s", ErrOutsideRoot, dir, absRoot)
		}
		target = filepath.Join(absRoot, dir)
	} else if !within(absRoot, filepath.Clean(dir)) && !within(realRoot, filepath.Clean(dir)) {
		return "", fmt.Errorf("%w: %q is not inside %s", ErrOutsideRoot, dir, absRoot)
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", fmt.Errorf("proc: directory %q: %w", dir, err)
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("%w: %q resolves to %s", ErrOutsideRoot, dir, real)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("proc: directory %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("proc: %q is not a directory", dir)
	}
	return real, nil
}

// within reports whether path is root or below it; both are clean and absolute.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel)) && !strings.HasPrefix(rel, "..")
}
