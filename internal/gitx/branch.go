package gitx

import (
	"context"
	"fmt"
	"strings"
)

// Branch creates branch name at HEAD and switches to it; the working tree
// and index are kept as they are.
func Branch(ctx context.Context, dir, name string) error {
	_, err := output(ctx, dir, nil, "switch", "-c", name)
	return err
}

// CurrentBranch returns the name of the branch HEAD is on at dir (one
// without a commit yet too), or "" when HEAD is detached.
func CurrentBranch(ctx context.Context, dir string) (string, error) {
	out, err := output(ctx, dir, nil, "symbolic-ref", "-q", "HEAD")
	if exitCode(err) == 1 {
		return "", nil
	}
	return strings.TrimPrefix(strings.TrimSpace(out), "refs/heads/"), err
}

// BranchExists reports whether branch name exists at dir.
func BranchExists(ctx context.Context, dir, name string) (bool, error) {
	// show-ref, unlike rev-parse, reads no revision syntax ("main^") into it.
	_, err := output(ctx, dir, nil, "show-ref", "--verify", "--quiet", "refs/heads/"+name)
	if exitCode(err) == 1 {
		return false, nil
	}
	return err == nil, err
}

// Switch switches the working tree at dir to the existing branch name: its
// files become the branch's, and untracked and ignored files stay. It refuses
// with an error wrapping [ErrDirty], naming the paths, when there are
// uncommitted changes outside the skip paths (e.g. the state directory),
// since git would carry them along; and it fails, as git does, rather than
// overwrite an ignored or untracked file the branch holds.
func Switch(ctx context.Context, dir, name string, skip ...string) error {
	switch cur, err := CurrentBranch(ctx, dir); {
	case err != nil:
		return err
	case cur == name:
		return nil
	}
	if ok, err := BranchExists(ctx, dir, name); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("gitx: switch to %s: no such branch", name)
	}
	changes, err := Changes(ctx, dir, skip...)
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		const shown = 10
		list := strings.Join(changes[:min(len(changes), shown)], ", ")
		if len(changes) > shown {
			list += fmt.Sprintf(" and %d more", len(changes)-shown)
		}
		return fmt.Errorf("%w would be carried to branch %s: %s", ErrDirty, name, list)
	}
	_, err = output(ctx, dir, nil, "switch", "--no-guess", "--no-overwrite-ignore", name)
	return err
}

// FreeBranchName returns base when no branch at dir has that name, or else
// the first of base-2, base-3, ... that is free. A name is taken, too, by a
// branch below it (base/x), since git could not create it.
func FreeBranchName(ctx context.Context, dir, base string) (string, error) {
	out, err := output(ctx, dir, nil, "for-each-ref", "--format=%(refname)", "refs/heads/")
	if err != nil {
		return "", err
	}
	var names []string
	for _, r := range strings.Fields(out) {
		n := strings.TrimPrefix(r, "refs/heads/")
		if strings.HasPrefix(base, n+"/") {
			return "", fmt.Errorf("gitx: no branch can be named %s: branch %s is in the way", base, n)
		}
		names = append(names, n)
	}
	taken := func(name string) bool {
		for _, n := range names {
			if n == name || strings.HasPrefix(n, name+"/") {
				return true
			}
		}
		return false
	}
	name := base
	for i := 2; taken(name); i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	return name, nil
}

// Push pushes branch to the same branch of remote, never forcing: a remote
// that moved on is git's rejection, returned as the error.
func Push(ctx context.Context, dir, remote, branch string) error {
	ref := "refs/heads/" + branch
	_, err := output(ctx, dir, nil, "push", "--quiet", remote, ref+":"+ref)
	return err
}
