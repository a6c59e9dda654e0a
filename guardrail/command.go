package guardrail

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/cmdguard"
)

// The command rules; see "Command rules" in the package documentation. Every
// one of them is [Hard].
const (
	RuleRecursiveDelete = cmdguard.RuleRecursiveDelete // "fs.recursive-delete"
	RuleProtectedPath   = cmdguard.RuleProtected       // "fs.protected"
	RuleForcePush       = cmdguard.RuleForcePush       // "git.force-push"
	RuleDiscardWorktree = cmdguard.RuleDiscard         // "git.discard"
	RuleSQLDrop         = cmdguard.RuleSQLDrop         // "sql.drop"
	RuleSQLDestroy      = cmdguard.RuleSQLDestroy      // "sql.destroy"
	RulePackageInstall  = cmdguard.RuleInstall         // "pkg.install"
	RuleUnresolved      = cmdguard.RuleUnresolved      // "shell.unresolved"
	RuleUnparsable      = cmdguard.RuleParse           // "shell.parse"
	RuleTooDeep         = cmdguard.RuleDepth           // "shell.depth"
	RuleInteractive     = cmdguard.RuleInteractive     // "shell.interactive"
	RuleDisk            = cmdguard.RuleDisk            // "sys.disk"
	RuleForkBomb        = cmdguard.RuleForkBomb        // "sys.fork-bomb"
	RuleSystemFiles     = cmdguard.RuleSystemFiles     // "sys.files"
)

// DefaultMaxDepth is the default of [CommandConfig.MaxDepth].
const DefaultMaxDepth = cmdguard.DefaultMaxDepth

// CommandConfig configures a [CommandGuard]. The zero value protects
// [schema.StateDir], allows no package installs and judges paths relative to an
// unknown working tree root.
type CommandConfig struct {
	// Protected is the set of paths no command may delete, move, truncate
	// or overwrite. Nil protects [schema.StateDir] and PluginManifest only.
	Protected *Protected
	// Packages lists, per ecosystem, the packages a command may install:
	// the plan's guardrails.packages. An entry "*" allows every package of
	// its ecosystem. An ecosystem that is not listed allows none. Names
	// compare as the ecosystem does: Go module paths by prefix, PyPI names
	// normalized (PEP 503), the others exactly but for ASCII case.
	Packages map[string][]string
	// Root is the working tree's root, where commands run: an absolute path,
	// slash- or backslash-separated. Absolute paths under it are judged as
	// relative ones. Empty means unknown: then any absolute path whose tail
	// names a protected path is taken to be under the root.
	Root string
	// MaxDepth bounds how deeply payloads may nest (bash -c inside eval
	// inside ...); a deeper command is hard ([RuleTooDeep]). Zero means
	// DefaultMaxDepth.
	MaxDepth int
	// RefuseInteractive makes a shell or REPL started without a script
	// (bash, python3 -i, sudo sh, ...; not bash -c, a script file, a pipe or
	// a here-document into it, nor python3 --version) hard
	// ([RuleInteractive]): what an agent types into it later, as Codex's
	// write_stdin does, reaches no guard.
	RefuseInteractive bool
}

// CommandGuard is the [Guardrail] of the command rules. It judges
// [KindCommand] actions by parsing them for their shell, and [KindInstall]
// actions against the package allowlist; it allows every other kind. It is
// safe for concurrent use.
type CommandGuard struct {
	cfg    CommandConfig
	policy cmdguard.Policy
}

// NewCommandGuard returns the guard of cfg, or an error for a relative Root
// or a negative MaxDepth.
func NewCommandGuard(cfg CommandConfig) (*CommandGuard, error) {
	if cfg.MaxDepth < 0 {
		return nil, fmt.Errorf("guardrail: negative MaxDepth %d", cfg.MaxDepth)
	}
	root := strings.ReplaceAll(cfg.Root, `\`, "/")
	if root != "" && !path.IsAbs(root) && !isDriveAbs(root) {
		return nil, fmt.Errorf("guardrail: Root %q is not absolute", cfg.Root)
	}
	if len(root) > 1 {
		root = strings.TrimSuffix(root, "/")
	}
	if cfg.Protected == nil {
		cfg.Protected = NewProtected()
	}
	g := &CommandGuard{cfg: cfg}
	g.policy = cmdguard.Policy{
		Protected: cfg.Protected.matchCommandPath,
		Allowed:   g.allowed,
		Root:      root,
		MaxDepth:  cfg.MaxDepth,

		RefuseInteractive: cfg.RefuseInteractive,
		Secret:            writtenSecret,
	}
	return g, nil
}

func isDriveAbs(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// Check judges a: it returns the first of [CommandGuard.CheckCommand]'s
// decisions, with how many more there were, or [Allow].
func (g *CommandGuard) Check(ctx context.Context, a Action) (Decision, error) {
	ds, err := g.CheckCommand(ctx, a)
	if err != nil || len(ds) == 0 {
		return Decision{}, err
	}
	d := ds[0]
	if len(ds) > 1 {
		d.Reason += fmt.Sprintf(" (and %d more)", len(ds)-1)
	}
	return d, nil
}

// CheckAll returns every decision of [CommandGuard.CheckCommand].
func (g *CommandGuard) CheckAll(ctx context.Context, a Action) ([]Decision, error) {
	return g.CheckCommand(ctx, a)
}

// ErrUnknownShell is the error for a command action whose shell is not
// bash, powershell or cmd.
var ErrUnknownShell = errors.New("guardrail: unknown shell")

// CheckCommand returns every decision about a, in the order the command
// line says them (a payload's commands where the payload is); nil when
// everything is allowed. Each decision's Match is the offending command as
// written (inside a payload, as the payload writes it). An unknown shell is
// an error wrapping [ErrUnknownShell], which [Evaluate] makes hard.
func (g *CommandGuard) CheckCommand(ctx context.Context, a Action) ([]Decision, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("guardrail: %w", err)
	}
	switch a.Kind {
	case KindCommand:
	case KindInstall:
		if g.allowed(a.Ecosystem, a.Package) {
			return nil, nil
		}
		return []Decision{{Level: Hard, Rule: RulePackageInstall, Match: a.Package,
			Reason: fmt.Sprintf("installing %s package %q is not allowed by the plan (guardrails.packages.%s)",
				a.Ecosystem, a.Package, a.Ecosystem)}}, nil
	default:
		return nil, nil
	}
	sh := a.Shell
	switch sh {
	case "":
		sh = ShellBash
	case ShellBash, ShellPowerShell, ShellCmd:
	default:
		return nil, fmt.Errorf("%w %q", ErrUnknownShell, a.Shell)
	}
	var out []Decision
	for _, f := range cmdguard.Check(&g.policy, a.Command, string(sh)) {
		out = append(out, Decision{Level: Hard, Rule: f.Rule, Reason: f.Reason, Match: f.Match})
	}
	return out, nil
}

// writtenSecret judges text a command writes into the file name (a
// here-document or echo redirected, tee) by the edit guard's secret rules,
// so a key written by a shell is stopped before it reaches the disk.
func writtenSecret(name, text string) (rule, reason, match string, ok bool) {
	ss := ScanSecrets(path.Clean(strings.ReplaceAll(name, `\`, "/")), text)
	if len(ss) == 0 {
		return "", "", "", false
	}
	s := ss[0]
	// What is a name as a person writes it (AWS secret access key, GitHub
	// token): quoted whole, not lowercased into the sentence.
	return s.Rule, fmt.Sprintf("the command writes a credential into %s: %s (%s); read credentials from the environment or a secret store instead",
		name, s.What, s.Masked), s.Masked, true
}
