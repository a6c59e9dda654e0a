package guardrail

import (
	"path"
	"strings"

	"github.com/harnish/harnish/schema"
)

// PluginManifest is the plugin manifest a working tree keeps at its root,
// protected always: an agent that rewrote it would choose the code the
// next run starts.
const PluginManifest = "harnish-plugins.yaml"

// GitDir is the repository's own directory, protected always: a command
// that deleted or moved it would take the history with it, and a hook
// written into it would run at the loop's next commit.
const GitDir = ".git"

// Protected is a set of paths no action may delete, move, truncate or
// overwrite. An entry names a file or, with or without a trailing slash, a
// directory and everything under it. The zero value protects only [schema.StateDir],
// GitDir and PluginManifest.
// It is safe for concurrent use.
type Protected struct {
	entries []string // cleaned, slash-separated, relative; never empty
}

// NewProtected returns the set of [schema.StateDir], GitDir, PluginManifest
// and paths (relative to the working tree's root, slash- or
// backslash-separated).
func NewProtected(paths ...string) *Protected {
	p := &Protected{}
	for _, e := range append([]string{schema.StateDir + "/", GitDir + "/", PluginManifest}, paths...) {
		if c := cleanRel(e); c != "" && c != "." {
			p.entries = append(p.entries, c)
		}
	}
	return p
}

// Match reports whether name (relative to the working tree's root, or
// absolute under root) is protected, and by which entry. Matching ignores
// ASCII case, because Windows and macOS file systems do.
func (p *Protected) Match(name, root string) (entry string, ok bool) {
	if p == nil || len(p.entries) == 0 {
		p = NewProtected()
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if root != "" {
		root = strings.TrimSuffix(strings.ReplaceAll(root, `\`, "/"), "/")
		if rel, found := strings.CutPrefix(path.Clean(name), root+"/"); found {
			name = rel
		} else if path.Clean(name) == root {
			name = "."
		}
	}
	c := cleanRel(name)
	for _, e := range p.entries {
		switch {
		case e == GitDir && gitLock(c):
			continue
		case c == "." || c == "":
			// The whole tree holds every protected path.
			return e, true
		case strings.EqualFold(c, e), len(c) > len(e) && strings.EqualFold(c[:len(e)], e) && c[len(e)] == '/':
			return e, true
		case len(e) > len(c) && strings.EqualFold(e[:len(c)], c) && e[len(c)] == '/':
			// A parent of a protected path: deleting or moving it takes the path along.
			return e, true
		}
	}
	return "", false
}

// gitLock reports whether the clean relative path c is a lock file under
// .git (index.lock, refs/heads/x.lock, ...). It is left out of GitDir's
// protection: removing one that a crashed git left behind is what an agent
// does after "Unable to create '.git/index.lock'", and it destroys nothing.
func gitLock(c string) bool {
	return len(c) > len(GitDir)+len(".lock") && strings.EqualFold(c[:len(GitDir)+1], GitDir+"/") &&
		strings.EqualFold(c[len(c)-len(".lock"):], ".lock")
}

// cleanRel cleans a relative path; "./a//b/" becomes "a/b".
func cleanRel(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "/")
}
