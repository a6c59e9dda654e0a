package cmdguard

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// More package managers for pkg.install, beside install.go's: each installs
// the packages it names after its install subcommand. A bare install (cabal
// install, deno install) builds or fetches what the project declares and is
// allowed, as npm install is.

// installer is a package manager: the subcommand words that install, the
// ecosystem (the plan's guardrails.packages key), and its options that
// take a value.
type installer struct {
	subs   [][]string
	eco    string
	valued string // short options taking a value
	long   string // long options taking a value
	// skipFirst skips the first operand when more follow (flatpak
	// install REMOTE REF).
	skipFirst bool
}

func subs(s ...string) [][]string {
	var out [][]string
	for _, x := range s {
		out = append(out, strings.Fields(x)) // "" gives no words
	}
	return out
}

var installers = map[string]installer{
	"zypper":     {subs: subs("install", "in"), eco: "zypper", valued: "rt", long: "repo from type"},
	"snap":       {subs: subs("install"), eco: "snap", long: "channel revision"},
	"flatpak":    {subs: subs("install"), eco: "flatpak", long: "arch subpath installation", skipFirst: true},
	"port":       {subs: subs("install"), eco: "macports"},
	"pkg":        {subs: subs("install", "add"), eco: "pkg", valued: "rjC"},
	"pkg_add":    {subs: subs(""), eco: "pkg"},
	"scoop":      {subs: subs("install"), eco: "scoop", valued: "a", long: "arch"},
	"composer":   {subs: subs("require", "global require"), eco: "composer", valued: "d", long: "working-dir"},
	"luarocks":   {subs: subs("install"), eco: "luarocks", long: "tree server only-server"},
	"cpanm":      {subs: subs(""), eco: "cpan", valued: "lL", long: "local-lib local-lib-contained mirror"},
	"gh":         {subs: subs("extension install", "ext install", "extensions install"), eco: "gh"},
	"deno":       {subs: subs("install", "add"), eco: "deno", valued: "cnrL", long: "config name root location lock import-map"},
	"cabal":      {subs: subs("install"), eco: "hackage"},
	"stack":      {subs: subs("install"), eco: "hackage"},
	"opam":       {subs: subs("install"), eco: "opam", valued: "j"},
	"dart":       {subs: subs("pub add", "pub global activate"), eco: "pub"},
	"flutter":    {subs: subs("pub add"), eco: "pub"},
	"micromamba": {subs: subs("install", "create"), eco: "conda", valued: "cnpf", long: "channel name prefix file"},
	"pixi":       {subs: subs("add", "global install"), eco: "conda", valued: "e", long: "feature platform manifest-path"},
	"rye":        {subs: subs("add"), eco: "pypi"},
	"pdm":        {subs: subs("add"), eco: "pypi", valued: "Gp", long: "group project"},
	"vcpkg":      {subs: subs("install"), eco: "vcpkg", long: "triplet x-install-root"},
	"nimble":     {subs: subs("install"), eco: "nimble"},
	"raco":       {subs: subs("pkg install"), eco: "racket"},
	"krew":       {subs: subs("install"), eco: "krew"},
	"kubectl":    {subs: subs("krew install"), eco: "krew"},
	"mix":        {subs: subs("archive.install hex", "escript.install hex"), eco: "hex"},
	"swift":      {subs: subs("package add-dependency"), eco: "swift"},
	"sdk":        {subs: subs("install"), eco: "sdkman"},
	"asdf":       {subs: subs("plugin add"), eco: "asdf"},
	"yay":        {}, // pacman's
	"paru":       {},
	"pacman":     {},
	"nix-env":    {},
	"nix":        {subs: subs("profile install", "profile add"), eco: "nix"},
	"cpan":       {},
}

// packageInstall judges a package manager of installers.
func (e *evaluator) packageInstall(k *call, in installer) {
	a := k.args
	switch k.name {
	case "pacman", "yay", "paru":
		e.pacmanInstall(k)
		return
	case "nix-env":
		opts, ops, _ := operands(a, "fpI", "file profile")
		if hasShort(opts, "i", "--install") {
			for _, w := range ops {
				e.install(k, "nix", w)
			}
		}
		return
	case "cpan":
		opts, ops, _ := operands(a, "", "")
		if len(opts) == 0 || hasShort(opts, "i", "") || hasShort(opts, "f", "") || hasShort(opts, "T", "") {
			for _, w := range ops {
				e.install(k, "cpan", w)
			}
		}
		return
	}
	_, ops, _ := operands(a, in.valued, in.long)
	for _, sub := range in.subs {
		n := len(sub) // 0: the operands are the packages (cpanm NAME)
		if len(ops) < n || !equalWords(wordsText(ops[:n]), sub) {
			continue
		}
		pkgs := ops[n:]
		if in.skipFirst && len(pkgs) > 1 {
			pkgs = pkgs[1:]
		}
		for _, w := range pkgs {
			if isLocal(w.Text) {
				continue
			}
			name := w.Text
			if in.eco == "composer" {
				name, _, _ = strings.Cut(name, ":")
			}
			e.install(k, in.eco, withText(w, name))
		}
		return
	}
}

func wordsText(ws []shell.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// pacmanInstall judges pacman -S (and yay's and paru's): a sync operation
// with package names installs them; -Ss, -Si, -Sc, -Sg, -Sl and -Sp only
// search, show, clean, list or print.
func (e *evaluator) pacmanInstall(k *call) {
	opts, ops, _ := operands(k.args, "bro", "dbpath root config cachedir gpgdir hookdir logfile arch ignore ignoregroup overwrite assume-installed")
	syncing, readOnly := false, false
	for _, o := range opts {
		if strings.HasPrefix(o, "--") {
			switch o {
			case "--sync":
				syncing = true
			case "--search", "--info", "--clean", "--groups", "--list", "--print":
				readOnly = true
			}
			continue
		}
		if strings.HasPrefix(o, "-S") {
			syncing = true
		}
		if strings.ContainsAny(o[1:], "sicglp") && syncing {
			readOnly = true
		}
		if strings.HasPrefix(o, "-U") {
			syncing = true // installing package files
		}
	}
	if !syncing || readOnly {
		return
	}
	for _, w := range ops {
		if isLocal(w.Text) || strings.HasSuffix(w.Text, ".pkg.tar.zst") || strings.HasSuffix(w.Text, ".pkg.tar.xz") {
			continue
		}
		e.install(k, k.name, w)
	}
}

// codeInstalls are the calls in interpreter code that install a package,
// by language: R's install.packages and the remotes, devtools, pak and
// BiocManager installers, Julia's Pkg.add.
var codeInstalls = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"R":     regexp.MustCompile(`\b(?:install\.packages|(?:remotes|devtools)::install_\w+|pak::pkg_install|pak::pak|BiocManager::install)\s*\(\s*(?:c\(\s*|\[\s*)?["']([^"']+)["']`),
		"Julia": regexp.MustCompile(`\bPkg\.add\(\s*(?:\[\s*)?(?:name\s*=\s*)?"([^"]+)"`),
	}
})

// codeInstall judges interpreter code that installs a package.
func (e *evaluator) codeInstall(k *call, l *lang, src string) {
	if l.name != "R" && l.name != "Julia" || !strings.Contains(src, "install") && !strings.Contains(src, "Pkg.add") {
		return
	}
	re := codeInstalls()[l.name]
	eco := map[string]string{"R": "cran", "Julia": "julia"}[l.name]
	for _, m := range re.FindAllStringSubmatch(src, 8) {
		e.install(k, eco, shell.Lit(m[1]))
	}
}
