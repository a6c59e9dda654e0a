package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Package runners and tools that run a command they are given: npx, npm
// exec, pnpm dlx, yarn dlx, bunx, uv run, uvx, poetry run, pipenv run,
// conda run, bundle exec, fd -x, watchexec, entr, at, tmux, screen,
// vagrant ssh -c, bwrap, cpulimit and the like.

var (
	npxSpec = &optSpec{valued: "p", flags: "yqn", long: longs("package call shell-auto-fallback workspace prefix registry userconfig cache loglevel"),
		longFlags: longs("yes no quiet ignore-existing include-workspace-root workspaces")}
	dlxSpec   = &optSpec{valued: "p", flags: "c", long: longs("package filter dir C"), longFlags: longs("shell-mode silent recursive")}
	uvRunSpec = &optSpec{valued: "p", flags: "qv", long: longs("with with-editable with-requirements python project directory extra group " +
		"only-group no-group env-file package index default-index extra-index-url find-links index-url config-file cache-dir " +
		"python-preference python-platform"),
		longFlags: longs("frozen locked no-sync isolated all-extras no-project no-dev dev active no-active exact all-packages " +
			"offline no-cache quiet verbose no-config script module gui-script no-env-file")}
	condaRunSpec = &optSpec{valued: "np", long: longs("name prefix cwd"), longFlags: longs("no-capture-output live-stream debug-wrapper-scripts")}
	// runSubs are the runners whose subcommand runs a command: tool -> the
	// subcommands and the options after them.
	runSubs = map[string]struct {
		subs []string
		spec *optSpec
	}{
		"npm":        {[]string{"exec", "x"}, npxSpec},
		"pnpm":       {[]string{"dlx", "exec"}, dlxSpec},
		"yarn":       {[]string{"dlx", "exec"}, dlxSpec},
		"bun":        {[]string{"x"}, npxSpec},
		"uv":         {[]string{"run"}, uvRunSpec},
		"poetry":     {[]string{"run"}, &optSpec{valued: "CP", long: longs("directory project")}},
		"pipenv":     {[]string{"run"}, &optSpec{}},
		"pdm":        {[]string{"run"}, &optSpec{valued: "p", long: longs("project venv")}},
		"hatch":      {[]string{"run"}, &optSpec{}},
		"rye":        {[]string{"run"}, &optSpec{}},
		"pixi":       {[]string{"run", "exec"}, &optSpec{valued: "e", long: longs("environment manifest-path")}},
		"conda":      {[]string{"run"}, condaRunSpec},
		"mamba":      {[]string{"run"}, condaRunSpec},
		"micromamba": {[]string{"run"}, condaRunSpec},
		"bundle":     {[]string{"exec"}, &optSpec{longFlags: longs("keep-file-descriptors gemfile")}},
		"pipx":       {[]string{"run"}, &optSpec{long: longs("spec python index-url pip-args")}},
		"lxc":        {[]string{"exec"}, &optSpec{}},
		"incus":      {[]string{"exec"}, &optSpec{}},
		"multipass":  {[]string{"exec"}, &optSpec{valued: "n", long: longs("name working-directory")}},
	}
)

// unwrapRunner returns the command a runner runs, or ok false when k is not
// one (or not its running subcommand).
func (e *evaluator) unwrapRunner(k *call) (inner, alt []shell.Word, ok bool) {
	a := k.args
	switch k.name {
	case "npx", "bunx", "pnpx", "uvx":
		return e.runnerArgs(k, a, npxSpec)
	case "corepack":
		// corepack PM[@VERSION] ARGS runs the package manager with ARGS;
		// its own subcommands (enable, prepare, install -g, ...) do not.
		if len(a) > 0 {
			pm, _, _ := strings.Cut(a[0].Text, "@")
			switch pm {
			case "npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg":
				return append([]shell.Word{withText(a[0], pm)}, a[1:]...), nil, true
			}
		}
		return nil, nil, false
	case "vagrant":
		// vagrant ssh [name] -c CMD; vagrant ssh [name] -- SSH_ARGS, which
		// vagrant hands to ssh after the host: their words after ssh's
		// options are the remote command.
		if len(a) > 0 && a[0].Text == "ssh" {
			for j, w := range a {
				if (w.Text == "-c" || w.Text == "--command") && j+1 < len(a) {
					e.payload(k, a[j+1], Bash)
				}
				if w.Text == "--" {
					if rest := sshRemoteWords(a[j+1:]); len(rest) > 0 {
						e.payload(k, joinPlain(rest), Bash)
					}
					break
				}
			}
			return nil, nil, true
		}
		return nil, nil, false
	case "fd", "fdfind":
		return fdExec(a)
	case "watchexec":
		i, v, _ := watchexecSpec.split(a)
		if i < len(a) {
			if _, noShell := v.get("-n"); noShell {
				return a[i:], nil, true
			}
			e.payload(k, joinPlain(a[i:]), Bash)
		}
		return nil, nil, true
	case "entr":
		i, v, _ := entrSpec.split(a)
		if _, sh := v.get("-s"); sh && i < len(a) {
			e.payload(k, a[i], Bash)
			return nil, nil, true
		}
		return a[i:], nil, true
	case "at", "batch":
		e.atCommand(k)
		return nil, nil, true
	case "tmux":
		e.tmuxCommand(k)
		return nil, nil, true
	case "screen":
		i, v, _ := screenSpec.split(a)
		if _, x := v.get("-X"); x {
			return nil, nil, true // a command to a running session
		}
		return a[i:], nil, true
	case "bwrap":
		return bwrapCommand(a), nil, true
	case "cpulimit":
		i, v, _ := cpulimitSpec.split(a)
		_, pid := v.get("-p")
		_, exe := v.get("-e")
		if pid || exe {
			return nil, nil, true // it limits a running process
		}
		return a[i:], nil, true
	}
	if r, found := runSubs[k.name]; found && len(a) > 0 && contains(r.subs, a[0].Text) {
		if k.name == "lxc" || k.name == "incus" || k.name == "multipass" {
			// lxc exec NAME [--] cmd
			for j, w := range a {
				if w.Text == "--" {
					return a[j+1:], nil, true
				}
			}
			if len(a) > 2 {
				return a[2:], nil, true
			}
			return nil, nil, true
		}
		return e.runnerArgs(k, a[1:], r.spec)
	}
	if cmds := ownCommands[k.name]; cmds != nil && len(a) > 0 && !strings.HasPrefix(a[0].Text, "-") && !a[0].Dynamic() {
		// yarn NAME, pnpm NAME, bun NAME (and yarn run NAME, bun run
		// NAME) run a package script or, when there is none by that name,
		// the installed binary NAME: judged as the binary (yarn rimraf dist).
		b := a
		if (k.name == "yarn" || k.name == "bun") && a[0].Text == "run" {
			b = a[1:]
		} else if cmds[a[0].Text] {
			return nil, nil, false
		}
		if len(b) > 0 && !strings.HasPrefix(b[0].Text, "-") {
			return b, nil, true
		}
	}
	return nil, nil, false
}

// ownCommands are the subcommands of the package managers that run an
// installed binary by any other name.
var ownCommands = map[string]map[string]bool{
	"yarn": setOf("add audit autoclean bin cache check config constraints create dedupe dlx exec explain generate-lock-entry " +
		"global help import info init install licenses link list login logout node npm outdated owner pack patch " +
		"patch-commit plugin policies publish rebuild remove run search set stage tag team unlink unplug up upgrade " +
		"upgrade-interactive version versions why workspace workspaces"),
	"pnpm": setOf("add audit bin cache cat-file cat-index ci config create dedupe deploy dlx doctor env exec fetch " +
		"find-hash help import init install install-test i it licenses link list ll ls outdated pack patch patch-commit " +
		"patch-remove prune publish rb rebuild recursive remove rm root run server setup start store t test uninstall " +
		"unlink up update why add-packages approve-builds ignored-builds self-update login logout whoami version view info"),
	"bun": setOf("add audit build create exec help info init install i link outdated patch pm publish remove rm repl run " +
		"test unlink update upgrade why x"),
}

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

// runnerArgs returns the command after a runner's options; -c/--call
// (npx -c 'cmd') and --shell-mode run a shell line.
func (e *evaluator) runnerArgs(k *call, a []shell.Word, spec *optSpec) ([]shell.Word, []shell.Word, bool) {
	for j, w := range a {
		if (w.Text == "-c" || w.Text == "--call") && j+1 < len(a) && spec == npxSpec {
			e.payload(k, a[j+1], Bash)
			return nil, nil, true
		}
		if v, ok := strings.CutPrefix(w.Text, "--call="); ok {
			e.payload(k, withText(w, v), Bash)
			return nil, nil, true
		}
	}
	i, v, altI := spec.split(a)
	_, c := v.get("-c")
	_, shellMode := v.get("--shell-mode")
	if (c || shellMode) && i < len(a) {
		e.payload(k, joinPlain(a[i:]), Bash)
		return nil, nil, true
	}
	var alt []shell.Word
	if altI > i && altI <= len(a) {
		alt = a[altI:]
	}
	return a[i:], alt, true
}

var (
	watchexecSpec = &optSpec{valued: "wWefFisdEjp", flags: "crnNoqv1h", long: longs("watch watch-non-recursive exts filter filter-file ignore ignore-file signal debounce env workdir shell on-busy-update delay-run stop-signal stop-timeout project-origin emit-events-to"),
		longFlags: longs("clear restart postpone no-vcs-ignore no-project-ignore no-global-ignore no-default-ignore no-meta notify quiet")}
	entrSpec     = &optSpec{flags: "acdnprsz"}
	screenSpec   = &optSpec{valued: "SceLhpTtX", flags: "dmDrRaAfilOqUwx"}
	cpulimitSpec = &optSpec{valued: "lpe", flags: "zikvfqh", long: longs("limit pid exe cpu"), longFlags: longs("background foreground kill lazy verbose include-children")}
)

// fdExec returns the command fd runs for what it finds (-x, --exec, -X,
// --exec-batch), up to a ";" word, with the found paths appended (or put
// in for {}).
func fdExec(a []shell.Word) ([]shell.Word, []shell.Word, bool) {
	for j, w := range a {
		switch w.Text {
		case "-x", "--exec", "-X", "--exec-batch":
			var inner []shell.Word
			hasPlaceholder := false
			for _, x := range a[j+1:] {
				if x.Text == ";" {
					break
				}
				if strings.Contains(x.Text, "{") {
					hasPlaceholder = true
					x = replaceDynamic(x, "{}")
				}
				inner = append(inner, x)
			}
			if len(inner) > 0 && !hasPlaceholder {
				inner = append(inner, dynamicWord("{fd match}"))
			}
			return inner, nil, true
		}
	}
	return nil, nil, true
}

// atCommand judges at and batch: the commands they read from standard
// input (a here-document, a here-string, echo) run later through sh; -f
// FILE is judged by its name, and -l, -d, -r, -c only list or remove jobs.
func (e *evaluator) atCommand(k *call) {
	for _, w := range k.args {
		switch w.Text {
		case "-l", "-d", "-r", "-c", "-f", "-V", "-h", "--help":
			return
		}
	}
	if k.stdin.Kind == shell.Inherited {
		return // it would read the terminal
	}
	e.stdinScript(k, Bash)
}

// tmuxSubs are tmux's commands that run a shell command given last.
var tmuxSubs = map[string]bool{
	"new-session": true, "new": true, "new-window": true, "neww": true, "split-window": true, "splitw": true,
	"respawn-pane": true, "respawnp": true, "respawn-window": true, "respawnw": true, "run-shell": true, "run": true,
	"display-popup": true, "popup": true,
}

var tmuxSubSpec = &optSpec{valued: "cefFlnpstxyTS", flags: "AabdDEhIkPvXZ"}

// tmuxCommand judges tmux new-session, new-window, split-window,
// run-shell and the like: their last words are a shell command; send-keys
// types its keys into a shell.
func (e *evaluator) tmuxCommand(k *call) {
	a := k.args
	i := 0
	for i < len(a) && strings.HasPrefix(a[i].Text, "-") {
		switch a[i].Text {
		case "-L", "-S", "-f", "-c", "-T":
			i++
		}
		i++
	}
	if i >= len(a) {
		return
	}
	sub := a[i].Text
	rest := a[i+1:]
	switch {
	case tmuxSubs[sub]:
		j, _, _ := tmuxSubSpec.split(rest)
		if j < len(rest) {
			e.payload(k, joinPlain(rest[j:]), Bash)
		}
	case sub == "send-keys" || sub == "send":
		j, _, _ := (&optSpec{valued: "tNc", flags: "lXRMFHK"}).split(rest)
		var keys []shell.Word
		for _, w := range rest[j:] {
			switch w.Text {
			case "Enter", "C-m", "KPEnter":
				continue
			}
			keys = append(keys, w)
		}
		if len(keys) > 0 {
			e.payload(k, joinPlain(keys), Bash)
		}
	}
}

// bwrapArgs are bubblewrap's options by how many values they take.
var bwrapArgs = map[string]int{
	"--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--bind-try": 2, "--ro-bind-try": 2, "--dev-bind-try": 2,
	"--symlink": 2, "--setenv": 2, "--file": 2, "--bind-data": 2, "--ro-bind-data": 2, "--chmod": 2,
	"--chdir": 1, "--tmpfs": 1, "--proc": 1, "--dev": 1, "--mqueue": 1, "--dir": 1, "--unsetenv": 1, "--uid": 1,
	"--gid": 1, "--hostname": 1, "--remount-ro": 1, "--lock-file": 1, "--sync-fd": 1, "--seccomp": 1,
	"--add-seccomp-fd": 1, "--args": 1, "--cap-add": 1, "--cap-drop": 1, "--perms": 1, "--size": 1,
	"--info-fd": 1, "--json-status-fd": 1, "--block-fd": 1, "--userns-block-fd": 1, "--userns": 1,
	"--userns2": 1, "--pidns": 1, "--exec-label": 1, "--file-label": 1, "--overlay-src": 1, "--argv0": 1,
	"--overlay": 3, "--tmp-overlay": 2, "--ro-overlay": 2,
}

// bwrapCommand returns the command bubblewrap runs: after its options,
// each skipping its values.
func bwrapCommand(a []shell.Word) []shell.Word {
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			return a[i+1:]
		case strings.HasPrefix(t, "--"):
			i += bwrapArgs[t]
		default:
			return a[i:]
		}
	}
	return nil
}

// sshRemoteWords returns the words of ssh arguments given after the host
// (vagrant ssh -- ARGS) that form the remote command: what follows ssh's
// options and their values.
func sshRemoteWords(a []shell.Word) []shell.Word {
	for len(a) > 0 && strings.HasPrefix(a[0].Text, "-") && len(a[0].Text) > 1 {
		o := a[0].Text
		a = a[1:]
		if len(o) == 2 && strings.Contains("bcDEeFIiJLlmOopQRSWw", o[1:]) && len(a) > 0 {
			a = a[1:] // the option's value
		}
	}
	return a
}
