package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// unknownProgram judges a program harnish has no rule for whose arguments
// hold a command: a word naming a command the rules know to be dangerous
// followed by its arguments (flatpak-spawn --host rm -rf x, gosu app git
// reset --hard), or a string that is a command line (pssh -h hosts 'rm -rf
// /x', gcloud compute ssh vm --command='rm -rf /x'). Whether the program
// runs it cannot be known statically; when the command trips a rule, the
// call fails closed as shell.unresolved. Programs that only show or search
// text (mentionOnly) are exempt: their arguments are mentions.
func (e *evaluator) unknownProgram(k *call) {
	if k.sh != Bash && k.sh != "" || mentionOnly[k.name] || len(k.args) == 0 || k.depth >= e.maxDepth || k.c.Defined {
		return
	}
	probes, argvProbes := 0, 0
	for i, w := range k.args {
		t := w.Text
		if w.Dynamic() || i > 0 && messageOption(k.args[i-1].Text) {
			continue
		}
		if probes == maxProbes {
			return
		}
		var probe []shell.Word
		var line string
		switch {
		case runsCommand(t) && argvProbes < 2:
			// The first command named reads the rest as its arguments; a
			// second try covers a first that only takes a value.
			argvProbes++
			probe = k.args[i:]
		case strings.HasPrefix(t, "-") && strings.Contains(t, "=") && mayTrip(t):
			var opt string
			opt, line, _ = strings.Cut(t, "=")
			if messageOption(opt) {
				continue
			}
		case strings.ContainsAny(t, " \t;&|") && mayTrip(t):
			// A string that starts with a command (pssh ... 'rm -rf /x'),
			// not prose that mentions one; or that is a command given as a
			// value inside the argument (commands='rm -rf /x', a JSON list
			// of command lines).
			if line = valueCommand(t); line == "" {
				continue
			}
		default:
			continue
		}
		probes++
		if f, ok := e.probeFinding(k, probe, line); ok {
			e.add(RuleUnresolved, k.match(),
				"%s, a program harnish has no rule for, is given a command that trips %s (%s); whether it runs it cannot be known",
				k.name, f.Rule, f.Reason)
			return
		}
	}
}

// valueCommand returns the command line the argument t is or holds: t
// itself when it starts with a command (pssh ... 'rm -rf /x'); the value
// of NAME=VALUE when VALUE does and NAME is no message's (aws ssm
// send-command --parameters commands='rm -rf /x'); the first string of a
// JSON object or list that does ('{"commands":["rm -rf /x"]}'). "" when
// none does: prose that mentions a command.
func valueCommand(t string) string {
	starts := func(s string) bool {
		f := strings.Fields(s)
		return len(f) > 0 && runsCommand(strings.TrimLeft(f[0], "({"))
	}
	if starts(t) {
		return t
	}
	if name, value, ok := strings.Cut(t, "="); ok && plainName(strings.ToLower(name)) && !messageOption("--"+name) && starts(value) {
		return value
	}
	if s := strings.TrimSpace(t); s != "" && (s[0] == '{' || s[0] == '[') {
		key := ""
		for i, n := 0, 0; i < len(s) && n < 16; i++ {
			if s[i] != '"' {
				continue
			}
			n++
			end := i + 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				break
			}
			v := strings.ReplaceAll(s[i+1:end], `\"`, `"`)
			i = end
			if rest := strings.TrimLeft(s[end+1:], " \t\r\n"); strings.HasPrefix(rest, ":") {
				key = v // an object's key; its value follows
				continue
			}
			if !messageOption("--"+key) && starts(v) {
				return v
			}
		}
	}
	return ""
}

// maxProbes bounds the commands tried among one unknown program's
// arguments, so a long line of command names costs linear work.
const maxProbes = 8

// probeFinding judges argv, or the command line line, apart from the
// evaluator's findings and returns the first finding that is not about
// parsing or depth.
func (e *evaluator) probeFinding(k *call, argv []shell.Word, line string) (Finding, bool) {
	probe := &evaluator{p: e.p, root: e.root, maxDepth: e.maxDepth, dir: e.dir, bash: e.bash, chain: e.chain}
	if argv != nil {
		probe.argv(k.c, argv, shell.Input{}, Bash, k.depth+1)
	} else {
		probe.script(line, Bash, k.depth+1)
	}
	for _, f := range probe.found {
		if f.Rule != RuleParse && f.Rule != RuleDepth {
			return f, true
		}
	}
	return Finding{}, false
}

// messageOption reports whether the option o takes a message, a title or a
// description: text, not a command (-m, --message, --title, --body, ...).
func messageOption(o string) bool {
	if !strings.HasPrefix(o, "-") {
		return false
	}
	o = strings.ToLower(strings.TrimLeft(o, "-"))
	switch o {
	case "m", "t", "b", "d":
		return true
	}
	for _, w := range []string{"message", "msg", "title", "body", "summary", "description", "desc", "comment",
		"note", "subject", "text", "label", "name", "reason", "help"} {
		if strings.Contains(o, w) {
			return true
		}
	}
	return false
}

// runsCommand reports whether the word t names a command whose arguments
// the rules judge as dangerous or as a payload.
func runsCommand(t string) bool {
	name := canonical(Bash, t)
	switch name {
	case "rm", "rmdir", "unlink", "shred", "git", "find", "dd", "rsync", "wipefs", "truncate", "mv", "cp",
		"sh", "bash", "zsh", "dash", "ksh", "fish", "eval", "sudo", "xargs", "parallel", "env", "psql", "mysql",
		"mariadb", "sqlite3", "dropdb", "mysqladmin", "rimraf", "python", "python3", "node", "perl", "ruby", "tee":
		return true
	}
	return isMkfs(name)
}

// mayTrip reports whether the text s may hold a command the rules judge:
// a cheap test before parsing it.
func mayTrip(s string) bool {
	for _, w := range []string{"rm", "git", "find", "dd", "mkfs", "shred", "wipefs", "rsync", "drop", "DROP", "sh ",
		"eval", ">", "curl", "wget", "python", "node", "perl", "ruby", "fork", ":()", "truncate", "mv ", "Remove-Item"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// mentionOnly are the programs that show, search, log or describe text, so
// a command among their arguments is only mentioned.
var mentionOnly = map[string]bool{
	"echo": true, "printf": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true,
	"man": true, "info": true, "tldr": true, "help": true, "whatis": true, "apropos": true, "which": true, "type": true,
	"whereis": true, "logger": true, "notify-send": true, "say": true, "cowsay": true, "figlet": true, "banner": true,
	"jq": true, "yq": true, "test": true, "[": true, "[[": true, "true": true, ":": true, "false": true, "cat": true,
	"less": true, "more": true, "head": true, "tail": true, "wc": true, "sort": true, "uniq": true, "diff": true,
	"cmp": true, "comm": true, "column": true, "fold": true, "fmt": true, "tr": true, "cut": true, "paste": true,
	"base64": true, "md5sum": true, "sha256sum": true, "sha1sum": true, "file": true, "stat": true, "ls": true,
	"tree": true, "du": true, "df": true, "history": true, "read": true, "export": true, "declare": true,
	"local": true, "readonly": true, "typeset": true, "set": true, "unset": true, "alias": true, "unalias": true,
	"hash": true, "complete": true, "compgen": true, "bind": true, "shopt": true, "fc": true, "mapfile": true,
	"readarray": true, "let": true, "return": true, "exit": true, "break": true, "continue": true, "shift": true,
	"wait": true, "kill": true, "pkill": true, "pgrep": true, "ps": true, "pidof": true, "sleep": true, "date": true,
	"touch": true, "mkdir": true, "chmod": true, "chown": true, "ln": true, "basename": true, "dirname": true,
	"realpath": true, "readlink": true, "pwd": true, "cd": true, "pushd": true, "popd": true, "tput": true,
	"clear": true, "reset": true, "yes": true, "seq": true, "expr": true, "bc": true, "dc": true, "xxd": true,
	"od": true, "hexdump": true, "strings": true, "nl": true, "rev": true, "tac": true, "expand": true,
	"unexpand": true, "iconv": true, "envsubst": true, "gettext": true, "ngettext": true, "getopts": true,
	"zenity": true, "dialog": true, "whiptail": true, "kdialog": true, "osd_cat": true, "wall": true, "write": true,
	"mail": true, "mailx": true, "sendmail": true, "gh": true, "glab": true, "curl": true, "wget": true, "http": true,
	"xclip": true, "xsel": true, "pbcopy": true, "wl-copy": true, "clip": true, "tmux": true,
	"bat": true, "glow": true, "pandoc": true, "markdownlint": true, "prettier": true, "eslint": true, "shellcheck": true,
	"shfmt": true, "codespell": true, "aspell": true, "hunspell": true, "vale": true, "translate": true,
}
