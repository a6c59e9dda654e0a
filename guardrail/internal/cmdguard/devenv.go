package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Programs that set up an environment (variables, secrets, a toolchain, a
// container, a terminal) and then run the command they are given, and
// watchers and task runners that run a command line when something
// happens. Each runs its command as argv after its options, after "--", or
// as one shell line given to an option.

// envWrappers run the rest of their arguments as argv after their options
// and, for cross-env, NAME=value assignments.
var envWrappers = map[string]*optSpec{
	"cross-env": {},
	"dotenv":    {valued: "evpf", flags: "co", long: longs("file"), longFlags: longs("debug quiet no-expand override")},
	"env-cmd": {valued: "fre", long: longs("file rc-file environments"),
		longFlags: longs("fallback no-override silent use-shell verbose expand-envs recursive")},
	"ifne":                  {flags: "n"},
	"lckdo":                 {long: longs("W"), longFlags: longs("w q"), positional: 1},
	"run-one":               {},
	"run-this-one":          {},
	"keep-one-running":      {},
	"run-one-constantly":    {},
	"run-one-until-success": {},
	"run-one-until-failure": {},
	"retry":                 {valued: "tsmxfd", long: longs("tries times sleep delay min max fail until")},
}

// subRunners run a command after a subcommand (op run, aws-vault exec,
// asdf exec, ...): the subcommand, how many operands follow it before the
// command, and its options.
var subRunners = map[string]struct {
	sub        string
	positional int
	spec       *optSpec
}{
	"op":      {"run", 0, &optSpec{long: longs("env-file account config session cache"), longFlags: longs("no-masking")}},
	"doppler": {"run", 0, &optSpec{valued: "pct", long: longs("project config token scope fallback mount mount-format mount-template name-transformer config-dir api-host dashboard-host")}},
	"infisical": {"run", 0, &optSpec{long: longs("env projectId path token domain tags watch-interval project-config-dir"),
		longFlags: longs("expand include-imports recursive silent watch")}},
	"aws-vault": {"exec", 1, &optSpec{valued: "dt", long: longs("duration mfa-token region prompt"),
		longFlags: longs("no-session json server ec2-server ecs-server stdout lazy")}},
	"asdf":    {"exec", 0, &optSpec{}},
	"rbenv":   {"exec", 0, &optSpec{}},
	"pyenv":   {"exec", 0, &optSpec{}},
	"nodenv":  {"exec", 0, &optSpec{}},
	"goenv":   {"exec", 0, &optSpec{}},
	"plenv":   {"exec", 0, &optSpec{}},
	"jenv":    {"exec", 0, &optSpec{}},
	"direnv":  {"exec", 1, &optSpec{}},
	"fnm":     {"exec", 0, &optSpec{long: longs("using log-level fnm-dir arch version-file-strategy corepack-enabled resolve-engines"), longFlags: longs("using-file")}},
	"volta":   {"run", 0, &optSpec{long: longs("node npm pnpm yarn env"), longFlags: longs("bundled-npm no-yarn verbose quiet")}},
	"devbox":  {"run", 0, &optSpec{valued: "ce", long: longs("config environment env-file"), longFlags: longs("pure quiet")}},
	"toolbox": {"run", 0, &optSpec{valued: "cdr", long: longs("container distro release")}},
}

// terminals run the command after -e, -x, --command or "--" in a new
// terminal window.
var terminals = setOf("xterm uxterm urxvt rxvt st alacritty konsole terminator xfce4-terminal tilix gnome-terminal " +
	"mate-terminal lxterminal qterminal sakura termite x-terminal-emulator wezterm foot ghostty kitty")

// lineOptions are the options that give a runner its command as a shell
// line: nix-shell --run 'cmd', nodemon --exec 'cmd', chokidar -c 'cmd'.
var lineOptions = map[string][]string{
	"nix-shell": {"--run", "--command"},
	"nodemon":   {"--exec", "-x"},
	"chokidar":  {"--command", "-c"},
}

// unwrapDevEnv returns the command an environment wrapper, a
// dev-environment runner or a terminal runs; one given as a shell line is
// judged here as a payload. ok is false when k is none of them or runs
// nothing.
func (e *evaluator) unwrapDevEnv(k *call) (inner, alt []shell.Word, ok bool) {
	a := k.args
	if spec, found := envWrappers[k.name]; found {
		i, _, altI := spec.split(a)
		inner = a[i:]
		if k.name == "cross-env" {
			inner = skipAssigns(a)
		}
		if k.name == "dotenv" && len(inner) > 0 && inner[0].Text == "run" {
			// python-dotenv: dotenv [-f FILE] run [--] COMMAND
			inner = inner[1:]
			if len(inner) > 0 && inner[0].Text == "--" {
				inner = inner[1:]
			}
		}
		if altI > i && altI <= len(a) {
			alt = a[altI:]
		}
		return inner, alt, true
	}
	if opts, found := lineOptions[k.name]; found {
		if line, ok := optionValue(a, opts...); ok {
			e.payload(k, line, Bash)
			return nil, nil, true
		}
		return nil, nil, false
	}
	if r, found := subRunners[k.name]; found {
		if len(a) == 0 || a[0].Text != r.sub {
			return nil, nil, false
		}
		if line, ok := optionValue(a[1:], "--command"); ok {
			e.payload(k, line, Bash) // doppler run --command 'cmd'
			return nil, nil, true
		}
		if rest, ok := afterDashes(a[1:]); ok {
			return rest, nil, true
		}
		i, _, altI := (&optSpec{valued: r.spec.valued, flags: r.spec.flags, long: r.spec.long,
			longFlags: r.spec.longFlags, positional: r.positional}).split(a[1:])
		if altI > i && altI <= len(a)-1 {
			alt = a[1+altI:]
		}
		return a[1+i:], alt, true
	}
	switch k.name {
	case "cross-env-shell":
		if rest := skipAssigns(a); len(rest) > 0 {
			e.payload(k, joinPlain(rest), Bash)
		}
		return nil, nil, true
	case "sops":
		// sops exec-env FILE 'cmd', sops exec-file FILE 'cmd {}'
		if len(a) > 0 && (a[0].Text == "exec-env" || a[0].Text == "exec-file") {
			ops := nonOptions(a[1:], "user")
			if len(ops) > 1 {
				e.payload(k, ops[1], Bash)
			}
			return nil, nil, true
		}
	case "nix":
		if len(a) > 0 && (a[0].Text == "develop" || a[0].Text == "shell") {
			for j, w := range a {
				if w.Text == "-c" || w.Text == "--command" {
					return a[j+1:], nil, true
				}
			}
		}
	case "mise", "rtx":
		if len(a) > 0 && (a[0].Text == "exec" || a[0].Text == "x") {
			if line, ok := optionValue(a[1:], "-c", "--command"); ok {
				e.payload(k, line, Bash)
				return nil, nil, true
			}
			if rest, ok := afterDashes(a[1:]); ok {
				return rest, nil, true
			}
		}
	case "nvm":
		if len(a) > 0 && a[0].Text == "exec" {
			rest := a[1:]
			for len(rest) > 0 && strings.HasPrefix(rest[0].Text, "--") {
				rest = rest[1:]
			}
			if len(rest) > 0 && nodeVersion(rest[0].Text) {
				rest = rest[1:]
			}
			return rest, nil, true
		}
	case "distrobox", "distrobox-enter":
		if rest, ok := afterDashes(a); ok {
			return rest, nil, true
		}
	case "ddev":
		// ddev exec runs its words through bash -c in the container.
		if len(a) > 0 && a[0].Text == "exec" {
			i, _, _ := (&optSpec{valued: "sd", long: longs("service dir"), longFlags: longs("raw")}).split(a[1:])
			if rest := a[1+i:]; len(rest) > 0 {
				e.payload(k, joinPlain(rest), Bash)
			}
			return nil, nil, true
		}
	case "adb":
		i, _, _ := (&optSpec{valued: "stHPL", flags: "adeR"}).split(a)
		if i < len(a) && a[i].Text == "shell" {
			j, _, _ := (&optSpec{flags: "nTtx"}).split(a[i+1:])
			if rest := a[i+1+j:]; len(rest) > 0 {
				e.payload(k, joinPlain(rest), Bash) // the device's shell runs the line
			}
			return nil, nil, true
		}
	case "start-stop-daemon":
		return startStopDaemon(a), nil, true
	case "onchange":
		if rest, ok := afterDashes(a); ok {
			return rest, nil, true
		}
	case "concurrently", "conc":
		concurrentlyCommands(e, k)
		return nil, nil, true
	case "machinectl":
		// machinectl shell [USER@]MACHINE [PROGRAM ARGS...]
		if len(a) > 2 && a[0].Text == "shell" {
			return a[2:], nil, true
		}
	case "systemd-nspawn":
		i, _, altI := nspawnSpec.split(a)
		if altI > i && altI <= len(a) {
			alt = a[altI:]
		}
		return a[i:], alt, true
	case "mosh":
		// mosh [options] HOST -- COMMAND: the remote side runs it.
		if rest, ok := afterDashes(a); ok && len(rest) > 0 {
			e.payload(k, joinPlain(rest), Bash)
			return nil, nil, true
		}
	case "tsh":
		// tsh ssh [options] [USER@]HOST COMMAND...
		if len(a) > 1 && a[0].Text == "ssh" {
			i, _, _ := (&optSpec{valued: "lLRpJ", long: longs("login proxy cluster port user"), positional: 1}).split(a[1:])
			if rest := a[1+i:]; len(rest) > 0 {
				e.payload(k, joinPlain(rest), Bash)
			}
			return nil, nil, true
		}
	case "fab":
		// fab -H HOST -- COMMAND runs the command on each host.
		if rest, ok := afterDashes(a); ok && len(rest) > 0 {
			e.payload(k, joinPlain(rest), Bash)
			return nil, nil, true
		}
	case "psexec", "psexec64", "paexec":
		// psexec [\\HOST] [options] PROGRAM ARGS: a command on Windows.
		i := 0
		for i < len(a) && (strings.HasPrefix(a[i].Text, `\\`) || strings.HasPrefix(a[i].Text, "-")) {
			if t := strings.ToLower(a[i].Text); t == "-u" || t == "-p" || t == "-w" || t == "-n" || t == "-a" {
				i++
			}
			i++
		}
		if i < len(a) {
			e.argv(k.c, a[i:], shell.Input{}, Cmd, k.depth)
		}
		return nil, nil, true
	case "wmic":
		// wmic process call create "COMMAND LINE"
		for j := 0; j+3 < len(a); j++ {
			if strings.EqualFold(a[j].Text, "process") && strings.EqualFold(a[j+1].Text, "call") && strings.EqualFold(a[j+2].Text, "create") {
				e.payload(k, a[j+3], Cmd)
				return nil, nil, true
			}
		}
	case "runas":
		// runas /user:NAME "program args": a command line for cmd.
		if n := len(a); n > 0 && !strings.HasPrefix(a[n-1].Text, "/") {
			e.payload(k, a[n-1], Cmd)
			return nil, nil, true
		}
	case "schtasks":
		// schtasks /create ... /tr "command": the task's command line.
		for j, w := range a {
			if strings.EqualFold(w.Text, "/tr") && j+1 < len(a) {
				e.payload(k, a[j+1], Cmd)
				return nil, nil, true
			}
		}
	}
	if terminals[k.name] {
		return e.terminalCommand(k)
	}
	return nil, nil, false
}

// optionValue returns the value of the first of names among a (--name
// value, --name=value, -x value).
func optionValue(a []shell.Word, names ...string) (shell.Word, bool) {
	for j, w := range a {
		if w.Text == "--" {
			break
		}
		for _, n := range names {
			switch {
			case w.Text == n && j+1 < len(a):
				return a[j+1], true
			case strings.HasPrefix(n, "--") && strings.HasPrefix(w.Text, n+"="):
				return withText(w, w.Text[len(n)+1:]), true
			}
		}
	}
	return shell.Word{}, false
}

// afterDashes returns the words after the first "--".
func afterDashes(a []shell.Word) ([]shell.Word, bool) {
	for j, w := range a {
		if w.Text == "--" {
			return a[j+1:], true
		}
	}
	return nil, false
}

// nonOptions returns the words of a that are not options nor the values of
// the long options named in valued.
func nonOptions(a []shell.Word, valued string) []shell.Word {
	vs := strings.Fields(valued)
	var out []shell.Word
	for j := 0; j < len(a); j++ {
		t := a[j].Text
		switch {
		case strings.HasPrefix(t, "--") && contains(vs, t[2:]):
			j++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			out = append(out, a[j])
		}
	}
	return out
}

// nodeVersion reports whether s names a Node version for nvm (20, v20.1,
// lts/iron, node, stable, system).
func nodeVersion(s string) bool {
	if s == "" {
		return false
	}
	if s[0] >= '0' && s[0] <= '9' || s[0] == 'v' && len(s) > 1 && s[1] >= '0' && s[1] <= '9' {
		return true
	}
	return strings.HasPrefix(s, "lts/") || s == "node" || s == "stable" || s == "system" || s == "iojs" || s == "default"
}

// startStopDaemon returns what start-stop-daemon --start runs: --startas
// or --exec, with the arguments after "--".
func startStopDaemon(a []shell.Word) []shell.Word {
	var prog shell.Word
	found := false
	for j := 0; j < len(a); j++ {
		t := a[j].Text
		switch {
		case t == "--":
			if found {
				return append([]shell.Word{prog}, a[j+1:]...)
			}
			return nil
		case t == "-K" || t == "--stop" || t == "-T" || t == "--status":
			return nil
		case (t == "--exec" || t == "-x" || t == "--startas" || t == "-a") && j+1 < len(a):
			j++
			if !found || t == "--startas" || t == "-a" {
				prog, found = a[j], true
			}
		case strings.HasPrefix(t, "--exec=") || strings.HasPrefix(t, "--startas="):
			name, v, _ := strings.Cut(t, "=")
			if !found || name == "--startas" {
				prog, found = withText(a[j], v), true
			}
		}
	}
	if found {
		return []shell.Word{prog}
	}
	return nil
}

// terminalCommand returns the command a terminal emulator runs: -x, -e or
// "--" followed by argv; -e, --command or --command= followed by one line,
// which runs as a shell line when it holds blanks.
func (e *evaluator) terminalCommand(k *call) ([]shell.Word, []shell.Word, bool) {
	a := k.args
	for j, w := range a {
		t := w.Text
		switch {
		case t == "--" || t == "-x" || t == "--execute" || t == "-e" && j+2 < len(a):
			return a[j+1:], nil, true
		case (t == "-e" || t == "--command") && j+1 < len(a):
			if strings.ContainsAny(a[j+1].Text, " \t") {
				e.payload(k, a[j+1], Bash)
				return nil, nil, true
			}
			return a[j+1:], nil, true
		case strings.HasPrefix(t, "--command="):
			e.payload(k, withText(w, t[len("--command="):]), Bash)
			return nil, nil, true
		}
	}
	if k.name == "wezterm" && len(a) > 0 && a[0].Text == "start" {
		return nil, nil, true
	}
	return nil, nil, false
}

var concurrentlySpec = &optSpec{valued: "ncpsmtl",
	long: longs("names prefix-colors prefix success max-processes timestamp-format prefix-length restart-tries restart-after " +
		"default-input-target names-separator kill-signal pad-prefix"),
	longFlags: longs("kill-others kill-others-on-fail raw hide no-color handle-input group timings passthrough-arguments")}

// concurrentlyCommands judges each command line concurrently runs; npm:,
// yarn:, pnpm: and bun: name package scripts.
func concurrentlyCommands(e *evaluator, k *call) {
	a := k.args
	for j := 0; j < len(a); j++ {
		t := a[j].Text
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			if valued, _ := valuedOption(concurrentlySpec, t); valued && !strings.Contains(t, "=") {
				j++
			}
			continue
		}
		if p, _, ok := strings.Cut(t, ":"); ok && (p == "npm" || p == "yarn" || p == "pnpm" || p == "bun") {
			continue
		}
		e.payload(k, a[j], Bash)
	}
}

var nspawnSpec = &optSpec{valued: "DiMuSEZL", flags: "bqxa", long: longs("directory image machine user setenv bind bind-ro tmpfs overlay " +
	"network-interface network-bridge network-zone port private-users capability drop-capability slice property uuid chdir " +
	"register link-journal resolv-conf timezone console pivot-root kill-signal"),
	longFlags: longs("boot quiet ephemeral as-pid2 private-network network-veth read-only keep-unit")}
