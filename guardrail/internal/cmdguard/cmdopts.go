package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// Commands that programs run from their options, their configuration and
// the environment: tar --to-command, ssh -o ProxyCommand=, git -c
// core.pager=, GIT_SSH_COMMAND=, EDITOR= and the like. Each such value is
// a command line the program hands to a shell (or runs as a program), so it
// is judged as a bash payload wherever it is written.

// commandOpt is an option whose value a program runs as a command.
type commandOpt struct {
	short string // "-P": the value follows or is attached
	long  string // "--pager": the value after "=" or the next word
	strip string // a prefix of the value that is no part of the command ("exec=")
}

// commandOpts are, per program, the options whose value it runs.
var commandOpts = map[string][]commandOpt{
	"tar": {{long: "--to-command"}, {short: "-I", long: "--use-compress-program"}, {long: "--rsh-command"},
		{short: "-F", long: "--info-script"}, {long: "--new-volume-script"}, {long: "--checkpoint-action", strip: "exec="}},
	"zip":   {{short: "-TT", long: "--unzip-command"}},
	"rsync": {{short: "-e", long: "--rsh"}, {long: "--rsync-path"}},
	"split": {{long: "--filter"}},
	"man":   {{short: "-P", long: "--pager"}},
	"scp":   {{short: "-S"}},
	"sftp":  {{short: "-S"}},
}

func init() {
	for _, n := range []string{"bsdtar", "gtar"} {
		commandOpts[n] = commandOpts["tar"]
	}
	commandOpts["gsplit"] = commandOpts["split"]
	for _, n := range []string{"ssh", "autossh", "mosh", "env"} {
		commandOpts[n] = nil // judged by commandOptions itself
	}
	handle(exportBuiltin, "export", "declare", "typeset", "local", "readonly")
}

// exportBuiltin judges export NAME=VALUE (and declare, typeset, local,
// readonly) of a variable that holds a command: programs started later run
// it.
func exportBuiltin(e *evaluator, k *call) {
	for _, w := range k.args {
		if !strings.HasPrefix(w.Text, "-") {
			e.envCommand(k.depth, w)
			if name, _, ok := strings.Cut(w.Text, "="); ok && shell.EnvVariable(name) {
				e.lineEnv = append(e.lineEnv, w)
			}
		}
	}
}

// commandOptions judges the commands k's options hand to a shell: those of
// commandOpts, ssh's -o ProxyCommand=, LocalCommand=, RemoteCommand= and
// KnownHostsCommand=, and the assignments env puts in the command's
// environment.
func (e *evaluator) commandOptions(k *call) {
	a := k.args
	switch k.name {
	case "ssh", "scp", "sftp", "autossh", "mosh":
		for i := 0; i < len(a); i++ {
			t := a[i].Text
			switch {
			case t == "-o" && i+1 < len(a):
				i++
				e.sshOption(k, a[i])
			case strings.HasPrefix(t, "-o") && len(t) > 2:
				e.sshOption(k, withText(a[i], t[2:]))
			case t == "--":
				i = len(a)
			}
		}
	case "env":
		for _, w := range a {
			if name, _, ok := strings.Cut(w.Text, "="); ok && !strings.HasPrefix(name, "-") {
				e.envCommand(k.depth, w)
			}
		}
	}
	opts := commandOpts[k.name]
	if opts == nil {
		return
	}
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if t == "--" {
			return
		}
		if len(t) < 2 || t[0] != '-' {
			continue
		}
		for _, o := range opts {
			var v shell.Word
			found := false
			switch {
			case o.long != "" && t == o.long || o.short != "" && t == o.short:
				if i+1 < len(a) {
					i++
					v, found = a[i], true
				}
			case o.long != "" && strings.HasPrefix(t, o.long+"="):
				v, found = withText(a[i], t[len(o.long)+1:]), true
			case o.short != "" && len(o.short) == 2 && strings.HasPrefix(t, o.short):
				v, found = withText(a[i], t[2:]), true
			}
			if !found {
				continue
			}
			if o.strip != "" {
				rest, ok := strings.CutPrefix(v.Text, o.strip)
				if !ok {
					break
				}
				v = withText(v, rest)
			}
			e.commandValue(k.depth, v)
			break
		}
	}
}

// sshOption judges an ssh -o KEY=VALUE (or "KEY VALUE") whose value is a
// command ssh runs.
func (e *evaluator) sshOption(k *call, w shell.Word) {
	t := strings.TrimSpace(w.Text)
	i := strings.IndexAny(t, "= \t")
	if i < 0 {
		return
	}
	switch strings.ToLower(t[:i]) {
	case "proxycommand", "localcommand", "remotecommand", "knownhostscommand":
		e.commandValue(k.depth, withText(w, strings.TrimLeft(t[i:], "= \t")))
	}
}

// commandValue judges the value of an option, a configuration key or a
// variable that a program runs as a command line. A value wholly known
// only at run time is the user's own setting and is left alone ("$EDITOR").
func (e *evaluator) commandValue(depth int, v shell.Word) {
	if v.Dynamic() && strings.TrimSpace(v.Static()) == "" {
		return
	}
	t := strings.TrimSpace(v.Text)
	if t == "" || t == "none" {
		return
	}
	e.script(t, Bash, depth+1)
}

// envCommand judges an environment assignment NAME=VALUE whose variable
// holds a command programs run (GIT_SSH_COMMAND, EDITOR, PAGER, ...).
func (e *evaluator) envCommand(depth int, w shell.Word) {
	name, value, ok := strings.Cut(w.Text, "=")
	if !ok || !shell.CommandVariable(name) {
		return
	}
	if name == "LESSOPEN" || name == "LESSCLOSE" {
		value = strings.TrimLeft(value, "|-")
	}
	e.commandValue(depth, withText(w, value))
}

// gitCommandKey reports whether the git configuration key (lowercased)
// holds a command git runs: core.pager, core.editor, core.sshCommand,
// core.fsmonitor (when not a boolean), sequence.editor, diff.external,
// pager.CMD, diff.DRIVER.command and .textconv, difftool and mergetool
// .cmd, merge.DRIVER.driver, filter.DRIVER.clean, .smudge and .process,
// credential.helper starting with "!", and the like.
func gitCommandKey(key, value string) bool {
	switch key {
	case "core.pager", "core.editor", "core.sshcommand", "core.askpass", "sequence.editor", "diff.external",
		"gpg.program", "gpg.ssh.program", "gpg.x509.program", "sendemail.tocmd", "sendemail.cccmd",
		"sendemail.headercmd", "interactive.difffilter", "uploadpack.packobjectshook", "core.gitproxy":
		return true
	case "core.fsmonitor":
		return !gitBool(value)
	case "credential.helper":
		return strings.HasPrefix(value, "!")
	}
	if strings.HasPrefix(key, "pager.") {
		return !gitBool(value)
	}
	for _, p := range [...]struct{ prefix, suffix string }{
		{"diff.", ".command"}, {"diff.", ".textconv"}, {"difftool.", ".cmd"}, {"mergetool.", ".cmd"},
		{"merge.", ".driver"}, {"filter.", ".clean"}, {"filter.", ".smudge"}, {"filter.", ".process"},
		{"credential.", ".helper"},
	} {
		if strings.HasPrefix(key, p.prefix) && strings.HasSuffix(key, p.suffix) && len(key) > len(p.prefix)+len(p.suffix) {
			return p.suffix != ".helper" || strings.HasPrefix(value, "!")
		}
	}
	return false
}

func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0", "":
		return true
	}
	return false
}

// gitCommandConfig judges a git configuration KEY=VALUE given by -c or
// written by git config: a value git runs as a command is judged now, since
// the configuration arms it for later commands too.
func (e *evaluator) gitCommandConfig(depth int, key string, value shell.Word) {
	key = strings.ToLower(key)
	if !gitCommandKey(key, value.Text) {
		return
	}
	if key == "credential.helper" || strings.HasPrefix(key, "credential.") {
		value = withText(value, strings.TrimPrefix(value.Text, "!"))
	}
	e.commandValue(depth, value)
}
