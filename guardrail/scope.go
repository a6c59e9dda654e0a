package guardrail

import (
	"fmt"
	"path"
	"strings"
)

// scope is the edit.scope rule: a file changed outside the declared files of
// the action's task. A rename is judged on both its paths, since it takes a
// file away from where it was.
func (g *EditGuard) scope(task string, f *FileDiff) []EditDecision {
	entries := g.cfg.Scope[task]
	if task == "" || len(entries) == 0 {
		return nil
	}
	compiled := g.scopes[task]
	paths := []string{f.Path}
	if f.Status == StatusRenamed {
		paths = append(paths, f.OldPath)
	}
	for _, p := range paths {
		if !compiled.holds(p) {
			return []EditDecision{{
				Decision: Decision{Level: Soft, Rule: RuleEditScope,
					Reason: p + " is outside the declared files of task " + task + " (" + listed(entries, 5) + ")"},
				Path: f.Path,
			}}
		}
	}
	return nil
}

// InScope reports whether name (relative to the working tree's root) is
// among entries, a task's declared files: an entry names the file itself, a
// directory holding it at any depth (with or without a trailing slash), or is
// a path.Match glob matching it or one of its directories ("cmd/*" holds
// cmd/harnish/main.go). A malformed glob matches nothing.
func InScope(entries []string, name string) bool {
	return compileScope(entries).holds(name)
}

// scopeEntries are a task's declared files as [InScope] reads them,
// cleaned, and globs compiled, once per guard rather than per file.
type scopeEntries []scopeEntry

type scopeEntry struct {
	name string // clean; "." holds everything
	// isGlob says name has a glob's metacharacters, compiled in glob; a
	// plain name matches a path or one of its directories only where it
	// equals it, which the prefix test already answers.
	isGlob bool
	glob   glob
}

func compileScope(entries []string) scopeEntries {
	out := make(scopeEntries, 0, len(entries))
	for _, e := range entries {
		e = cleanRel(e)
		if e == "" {
			continue
		}
		se := scopeEntry{name: e}
		if strings.ContainsAny(e, `*?[\`) {
			se.isGlob, se.glob = true, compileGlob(e)
		}
		out = append(out, se)
	}
	return out
}

// holds is InScope of the entries.
func (s scopeEntries) holds(name string) bool {
	name = cleanRel(name)
	for i := range s {
		e := &s[i]
		if e.name == "." || name == e.name || strings.HasPrefix(name, e.name) && len(name) > len(e.name) && name[len(e.name)] == '/' {
			return true
		}
		if !e.isGlob {
			continue
		}
		for p := name; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if e.glob.match(p) {
				return true
			}
		}
	}
	return false
}

// listed joins up to n entries, noting how many more there are.
func listed(entries []string, n int) string {
	if len(entries) <= n {
		return strings.Join(entries, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(entries[:n], ", "), len(entries)-n)
}
