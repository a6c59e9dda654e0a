package gitx

import (
	"context"
	"errors"
	"strings"
)

// FindCommit returns the hash of the newest commit reachable from HEAD at
// dir whose message has every one of the trailers ("Harnish-Task: T1") as a
// line of its own, or "" when there is none (or no commit yet). A caller
// redoing a commit after a crash asks it first, so the commit is not made
// twice.
func FindCommit(ctx context.Context, dir string, trailers ...string) (string, error) {
	if len(trailers) == 0 {
		return "", errors.New("gitx: FindCommit: no trailer to look for")
	}
	// git's --grep finds the candidates in one pass: messages holding every
	// trailer somewhere ("Harnish-Task: T10" holds "Harnish-Task: T1"); the
	// lines are then compared here.
	args := []string{"log", "-z", "--format=%H%n%B", "--fixed-strings", "--all-match"}
	for _, t := range trailers {
		if t == "" || strings.ContainsAny(t, "\r\n") {
			return "", errors.New("gitx: FindCommit: a trailer is one non-empty line")
		}
		args = append(args, "--grep="+t)
	}
	out, err := output(ctx, dir, nil, append(args, "HEAD", "--")...)
	if err != nil {
		if _, herr := output(ctx, dir, nil, "rev-parse", "-q", "--verify", "HEAD"); exitCode(herr) == 1 {
			return "", nil // no commit yet
		}
		return "", err
	}
	for _, rec := range strings.Split(out, "\x00") {
		hash, msg, _ := strings.Cut(strings.TrimPrefix(rec, "\n"), "\n")
		lines := map[string]bool{}
		for _, l := range strings.Split(msg, "\n") {
			lines[strings.TrimRight(l, " \t\r")] = true
		}
		if hash != "" && allIn(trailers, lines) {
			return hash, nil
		}
	}
	return "", nil
}

func allIn(want []string, have map[string]bool) bool {
	for _, w := range want {
		if !have[w] {
			return false
		}
	}
	return true
}
