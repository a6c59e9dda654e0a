package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(goCommand, "go")
	handle(npmCommand, "npm", "pnpm", "yarn", "bun")
	handle(pipCommand, "pip", "pip3", "pipx", "pipenv")
	handle(pythonCommand, "python", "python3", "py")
	handle(uvCommand, "uv")
	handle(poetryCommand, "poetry")
	handle(cargoCommand, "cargo")
	handle(gemCommand, "gem")
	handle(bundleCommand, "bundle")
	handle(systemPackages, "apt", "apt-get", "dnf", "yum", "apk", "brew", "choco", "winget", "conda", "mamba")
	handle(dotnetCommand, "dotnet")
	handle(installModule, "install-module", "install-script", "install-package")
}

// install judges installing pkg of ecosystem.
func (e *evaluator) install(k *call, ecosystem string, pkg shell.Word) {
	if e.p.Allowed != nil && !pkg.Dynamic() && e.p.Allowed(ecosystem, pkg.Text) {
		return
	}
	e.add(RuleInstall, k.match(), "installing %s package %q is not allowed by the plan (guardrails.packages.%s)",
		ecosystem, pkg.Text, ecosystem)
}

// isLocal reports whether a package argument is a path, not a name.
func isLocal(s string) bool {
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		s = s[:i] // pip's extras: .[dev], ./pkg[test]
	}
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "file:") ||
		strings.HasPrefix(s, `.\`) || isAbs(strings.ReplaceAll(s, `\`, "/"))
}

func goCommand(e *evaluator, k *call) {
	if len(k.args) == 0 {
		return
	}
	sub := k.args[0].Text
	_, ops, _ := operands(k.args[1:], "", "modfile tags o C pkgdir toolexec gcflags ldflags asmflags")
	switch sub {
	case "get":
		for _, w := range ops {
			mod, ver, _ := strings.Cut(w.Text, "@")
			if isLocal(mod) || ver == "none" || strings.HasPrefix(mod, "-") {
				continue
			}
			e.install(k, "go", withText(w, mod))
		}
	case "install", "run":
		for _, w := range ops {
			mod, _, versioned := strings.Cut(w.Text, "@")
			if versioned && !isLocal(mod) {
				e.install(k, "go", withText(w, mod))
			}
			if sub == "run" {
				break // the rest are the program's arguments
			}
		}
	}
}

// withText returns w with its text replaced, keeping whether it is dynamic.
func withText(w shell.Word, text string) shell.Word {
	if w.Dynamic() {
		return dynamicWord(text)
	}
	return shell.Lit(text)
}

var npmInstall = map[string]bool{
	"install": true, "i": true, "in": true, "ins": true, "inst": true, "insta": true, "instal": true,
	"isnt": true, "isnta": true, "isntal": true, "isntall": true, "add": true, "install-test": true, "it": true,
}

func npmCommand(e *evaluator, k *call) {
	if k.name == "bun" {
		interpreterCommand(e, k) // bun -e CODE
	}
	valued := "wC" // npm's -w WORKSPACE; pnpm's -w is --workspace-root
	if k.name == "pnpm" {
		valued = "C"
	}
	_, ops, _ := operands(k.args, valued, "registry prefix tag workspace omit include userconfig cache loglevel save-prefix cwd filter")
	if len(ops) == 0 {
		return
	}
	sub := ops[0].Text
	pkgs := ops[1:]
	if k.name == "npm" || k.name == "pnpm" {
		npmScripts(e, k, sub, k.args)
	}
	if sub == "config" && len(pkgs) > 1 && pkgs[0].Text == "set" {
		// npm config set KEY VALUE (or KEY=VALUE) writes ~/.npmrc.
		e.configSecret(".npmrc", pkgs[1:], "=")
		return
	}
	if k.name == "yarn" && sub == "global" && len(pkgs) > 0 {
		sub, pkgs = pkgs[0].Text, pkgs[1:]
	}
	if k.name == "yarn" && sub == "workspace" && len(pkgs) > 1 {
		// yarn workspace NAME add PKG: the workspace's own install.
		sub, pkgs = pkgs[1].Text, pkgs[2:]
	}
	if !npmInstall[sub] || k.name == "yarn" && sub != "add" {
		return
	}
	for _, w := range pkgs {
		if isLocal(w.Text) {
			continue
		}
		e.install(k, "npm", withText(w, npmName(w.Text)))
	}
}

// npmName strips the version from an npm package spec.
func npmName(s string) string {
	if strings.Contains(s, "://") || strings.Contains(s, ":") && !strings.HasPrefix(s, "@") {
		return s
	}
	at := strings.Index(s[min(1, len(s)):], "@")
	if at < 0 {
		return s
	}
	return s[:at+min(1, len(s))]
}

func pipCommand(e *evaluator, k *call) {
	if k.name == "pipx" && len(k.args) > 2 && k.args[0].Text == "inject" {
		// pipx inject APP PKG...: the packages go into APP's environment.
		e.pipInstall(k, append([]shell.Word{}, k.args[2:]...))
		return
	}
	if len(k.args) == 0 || k.args[0].Text != "install" {
		return
	}
	e.pipInstall(k, k.args[1:])
}

func pythonCommand(e *evaluator, k *call) {
	a := k.args
	if scriptSQL(e, k, a) || e.scriptDBTask(k, a) {
		return
	}
	for i := 0; i < len(a)-2; i++ {
		if a[i].Text == "-m" && (a[i+1].Text == "pip" || a[i+1].Text == "pipx") && a[i+2].Text == "install" {
			e.pipInstall(k, a[i+3:])
			return
		}
		if a[i].Text == "-m" && a[i+1].Text == "json.tool" {
			// python -m json.tool IN OUT writes OUT.
			if _, ops, _ := operands(a[i+2:], "", "indent"); len(ops) == 2 {
				e.write(ops[1], k.match(), "writes")
			}
			return
		}
		if a[i].Text == "-m" && (a[i+1].Text == "IPython" || a[i+1].Text == "ipython") {
			// python -m IPython -c CODE: IPython's code, shell escapes included.
			interpreterCommand(e, &call{c: k.c, name: "ipython", args: a[i+2:], stdin: k.stdin, sh: k.sh, depth: k.depth})
			return
		}
		if a[i].Text == "-c" || !strings.HasPrefix(a[i].Text, "-") {
			break
		}
	}
	interpreterCommand(e, k)
}

func uvCommand(e *evaluator, k *call) {
	a := k.args
	switch {
	case len(a) > 1 && a[0].Text == "pip" && a[1].Text == "install":
		e.pipInstall(k, a[2:])
	case len(a) > 0 && a[0].Text == "add":
		e.pipInstall(k, a[1:])
	case len(a) > 2 && a[0].Text == "tool" && a[1].Text == "install":
		e.pipInstall(k, a[2:])
	}
}

func poetryCommand(e *evaluator, k *call) {
	if len(k.args) > 0 && k.args[0].Text == "add" {
		e.pipInstall(k, k.args[1:])
	}
}

// pipInstall judges pip install arguments: requirement files, constraints
// and local paths install what the repository declares; names are checked.
func (e *evaluator) pipInstall(k *call, a []shell.Word) {
	_, ops, v := operands(a, "rcietf", "requirement constraint index-url extra-index-url target prefix root find-links "+
		"trusted-host platform python-version implementation abi src upgrade-strategy progress-bar log cache-dir proxy "+
		"timeout retries exists-action config-settings editable group extra python optional")
	for _, key := range []string{"-e", "--editable"} {
		if w, ok := v.get(key); ok && !isLocal(w.Text) {
			e.install(k, "pypi", withText(w, pypiName(w.Text)))
		}
	}
	for _, w := range ops {
		if isLocal(w.Text) || strings.HasSuffix(w.Text, ".whl") && !strings.Contains(w.Text, "://") {
			continue
		}
		e.install(k, "pypi", withText(w, pypiName(w.Text)))
	}
}

var (
	pypiSpec = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9._-]+`)
	})
	pypiSep = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[-_.]+`)
	})
)

// pypiName returns the normalized project name of a requirement (PEP 503).
func pypiName(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	name := pypiSpec().FindString(s)
	if name == "" {
		return s
	}
	return strings.ToLower(pypiSep().ReplaceAllString(name, "-"))
}

func cargoCommand(e *evaluator, k *call) {
	if len(k.args) == 0 || k.args[0].Text != "add" && k.args[0].Text != "install" && k.args[0].Text != "binstall" {
		return
	}
	_, ops, v := operands(k.args[1:], "Fpj", "features rename registry package branch tag rev target manifest-path "+
		"version vers root bin example index path git")
	if g, ok := v.get("--git"); ok {
		e.install(k, "cargo", g)
		return
	}
	if _, ok := v.get("--path"); ok {
		return
	}
	for _, w := range ops {
		name, _, _ := strings.Cut(w.Text, "@")
		e.install(k, "cargo", withText(w, name))
	}
}

func gemCommand(e *evaluator, k *call) {
	if len(k.args) == 0 || k.args[0].Text != "install" {
		return
	}
	_, ops, _ := operands(k.args[1:], "visn", "version install-dir source bindir")
	for _, w := range ops {
		if isLocal(w.Text) || strings.HasSuffix(w.Text, ".gem") {
			continue
		}
		e.install(k, "gem", w)
	}
}

func bundleCommand(e *evaluator, k *call) {
	if len(k.args) == 0 || k.args[0].Text != "add" {
		return
	}
	_, ops, _ := operands(k.args[1:], "vgs", "version group source git github path branch ref")
	for _, w := range ops {
		e.install(k, "gem", w)
	}
}

// systemPackages handles the system package managers; their ecosystem is the
// tool's name (yum counts as dnf, mamba as conda).
func systemPackages(e *evaluator, k *call) {
	eco := map[string]string{"apt-get": "apt", "yum": "dnf", "mamba": "conda"}[k.name]
	if eco == "" {
		eco = k.name
	}
	_, ops, v := operands(k.args, "toXcns", "target-release option repository virtual channel name source id version scope location override")
	sub := map[string]string{"apk": "add"}[k.name]
	if sub == "" {
		sub = "install"
	}
	if len(ops) == 0 || ops[0].Text != sub {
		return
	}
	if id, ok := v.get("--id"); ok {
		e.install(k, eco, id)
	}
	for _, w := range ops[1:] {
		if isLocal(w.Text) {
			continue
		}
		name := w.Text
		if eco == "apt" {
			name, _, _ = strings.Cut(name, "=")
			name, _, _ = strings.Cut(name, "/")
		}
		e.install(k, eco, withText(w, strings.ToLower(name)))
	}
}

func dotnetCommand(e *evaluator, k *call) {
	a := k.args
	for i := 0; i+1 < len(a); i++ {
		if a[i].Text == "package" && i > 0 && a[0].Text == "add" {
			e.install(k, "nuget", a[i+1])
			return
		}
	}
	if len(a) > 2 && a[0].Text == "tool" && a[1].Text == "install" {
		_, ops, _ := operands(a[2:], "", "version add-source tool-path framework configfile")
		for _, w := range ops {
			e.install(k, "nuget", w)
		}
	}
}

// installModule handles Install-Module, Install-Script (the PowerShell
// Gallery, "psgallery") and Install-Package ("nuget").
func installModule(e *evaluator, k *call) {
	eco := "psgallery"
	if k.name == "install-package" {
		eco = "nuget"
	}
	ps := psArgs(k.args, psInstallModule)
	for _, w := range ps.named["name"] {
		for _, n := range splitList(w) {
			e.install(k, eco, n)
		}
	}
}

// npmScripts judges package scripts a command defines: npm pkg set
// scripts.NAME=CMD and npm set-script NAME CMD write a command that npm run
// NAME (and npm's lifecycle: install, test, build) runs, judged as bash.
func npmScripts(e *evaluator, k *call, sub string, a []shell.Word) {
	switch sub {
	case "pkg":
		for _, w := range a {
			if name, v, ok := strings.Cut(w.Text, "="); ok && strings.HasPrefix(name, "scripts.") {
				e.payload(k, withText(w, v), Bash)
			}
		}
	case "set-script":
		_, ops, _ := operands(a, "", "")
		if len(ops) == 3 {
			e.payload(k, ops[2], Bash)
		}
	}
}
