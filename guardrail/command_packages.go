package guardrail

import (
	"regexp"
	"strings"
	"sync"
)

// allowed reports whether the plan allows installing pkg of ecosystem.
func (g *CommandGuard) allowed(ecosystem, pkg string) bool {
	for _, a := range g.cfg.Packages[ecosystem] {
		if a == "*" || packageMatches(ecosystem, a, pkg) {
			return true
		}
	}
	return false
}

var pypiSeparators = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-_.]+`) })

// packageMatches compares an allowlist entry with a package name the way
// the ecosystem does.
func packageMatches(ecosystem, allowed, pkg string) bool {
	switch ecosystem {
	case "go":
		// A module path allows its packages.
		allowed = strings.TrimSuffix(allowed, "/...")
		return pkg == allowed || strings.HasPrefix(pkg, allowed+"/")
	case "pypi":
		norm := func(s string) string { return strings.ToLower(pypiSeparators().ReplaceAllString(s, "-")) }
		return norm(allowed) == norm(pkg)
	}
	return strings.EqualFold(allowed, pkg)
}
