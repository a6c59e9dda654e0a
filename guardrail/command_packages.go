package guardrail

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/cmdguard"
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

// Installs returns the package installs the command line of a names, as
// [KindInstall] actions carrying a's Task, in the order the command line
// says them: what the command rules judge as pkg.install, given to
// guardrails that judge packages on their own (a company's registry, a
// license check). A package the command line only knows at run time (a
// variable) is not among them; the command rules judge that. A command of
// an unknown shell, and an action of another kind, yield nil.
func Installs(a Action) []Action {
	if a.Kind != KindCommand {
		return nil
	}
	sh := a.Shell
	switch sh {
	case "":
		sh = ShellBash
	case ShellBash, ShellPowerShell, ShellCmd:
	default:
		return nil
	}
	var out []Action
	record := cmdguard.Policy{Allowed: func(ecosystem, pkg string) bool {
		out = append(out, Action{Kind: KindInstall, Ecosystem: ecosystem, Package: pkg, Task: a.Task})
		return true
	}}
	cmdguard.Check(&record, a.Command, string(sh))
	return out
}
