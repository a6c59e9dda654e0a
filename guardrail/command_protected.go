package guardrail

import (
	"path"
	"strings"
)

// matchCommandPath is [Protected.Match] for the command rules, which also ask
// whether a glob pattern (as a shell expands it) may match a protected path.
func (p *Protected) matchCommandPath(name, root string, glob bool) (string, bool) {
	if !glob {
		return p.Match(name, root)
	}
	if p == nil || len(p.entries) == 0 {
		p = NewProtected()
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if root != "" {
		root = strings.TrimSuffix(strings.ReplaceAll(root, `\`, "/"), "/")
		rel, found := strings.CutPrefix(path.Clean(name), root+"/")
		if !found {
			return "", false
		}
		name = rel
	}
	c := cleanRel(name)
	pat := strings.Split(strings.ToLower(c), "/")
	for _, e := range p.entries {
		if e == GitDir && gitLock(c) {
			continue
		}
		ent := strings.Split(strings.ToLower(e), "/")
		if globPrefixMatch(pat, ent) {
			return e, true
		}
	}
	return "", false
}

// globPrefixMatch reports whether the pattern's components match the
// entry's as far as both go: the pattern may then name the entry, a parent
// of it or something under it. As in the shells, a wildcard does not match a
// leading dot.
func globPrefixMatch(pat, ent []string) bool {
	for i := 0; i < len(pat) && i < len(ent); i++ {
		if strings.HasPrefix(ent[i], ".") && !strings.HasPrefix(pat[i], ".") {
			return false
		}
		if ok, err := path.Match(pat[i], ent[i]); !ok || err != nil {
			return false
		}
	}
	return true
}
