package cmdguard

import (
	"strconv"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

func init() {
	handle(gitCommand, "git")
}

// gitCommand handles git: global options (with -c alias.NAME=... defining
// aliases, whose "!" form is a shell payload), then the subcommand.
func gitCommand(e *evaluator, k *call) {
	a := k.args
	var aliases, conf map[string]string
	saved, moved := "", false
	set := func(kv shell.Word) {
		aliases = e.gitConfig(k, kv, aliases)
		conf = setConf(conf, kv.Text)
	}
	for _, kv := range e.gitEnvConfig(k) {
		set(kv)
	}
	i := 0
	for ; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "-c" && i+1 < len(a):
			i++
			set(a[i])
		case strings.HasPrefix(t, "-c") && len(t) > 2:
			set(withText(a[i], t[2:]))
		case t == "--config-env" && i+1 < len(a):
			i++
			if kv, ok := e.gitConfigEnv(k, a[i].Text); ok {
				set(kv)
			}
		case strings.HasPrefix(t, "--config-env="):
			if kv, ok := e.gitConfigEnv(k, t[len("--config-env="):]); ok {
				set(kv)
			}
		case t == "-C" && i+1 < len(a):
			// git -C DIR runs in DIR: the paths it is given are under it.
			i++
			if !moved {
				saved, moved = e.dir, true
				defer func() { e.dir = saved }()
			}
			e.chdir(a[i])
		case t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" ||
			t == "--exec-path" || t == "--super-prefix":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			sub := strings.ToLower(t)
			value, ok := aliases[sub]
			if !ok {
				value, ok = e.gitAliases[sub]
			}
			if ok && k.depth < e.maxDepth {
				e.gitAlias(k, value, a[i+1:])
				return
			}
			saved := e.gitLocal
			e.gitLocal = conf
			e.gitSub(k, sub, a[i+1:])
			e.gitLocal = saved
			return
		}
	}
}

// gitUsage are the subcommands whose options git's option parser reads
// wherever they stand, so that -h or --help among them only prints the
// usage; subcommands that run a command of their own (bisect run,
// submodule foreach) are not among them, since -h may be that command's.
var gitUsage = map[string]bool{
	"reset": true, "clean": true, "checkout": true, "restore": true, "switch": true, "stash": true,
	"branch": true, "push": true, "worktree": true, "rm": true, "mv": true,
}

// gitConfigEnv reads --config-env's KEY=NAME: KEY set to the value of
// the environment variable NAME, when the line states it.
func (e *evaluator) gitConfigEnv(k *call, spec string) (shell.Word, bool) {
	i := strings.LastIndexByte(spec, '=')
	if i <= 0 {
		return shell.Word{}, false
	}
	v, ok := e.envValue(k, spec[i+1:])
	if !ok {
		return shell.Word{}, false
	}
	return withText(v, spec[:i+1]+v.Text), true
}

// gitEnvConfig returns, as KEY=VALUE words, the configuration git reads
// from its environment as the line states it: GIT_CONFIG_PARAMETERS
// ('key=value' words, as git quotes them) and GIT_CONFIG_COUNT with
// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n. It costs nothing when the line
// names neither.
func (e *evaluator) gitEnvConfig(k *call) []shell.Word {
	var out []shell.Word
	if v, ok := e.envValue(k, "GIT_CONFIG_PARAMETERS"); ok {
		for _, kv := range gitConfigParameters(v.Text) {
			out = append(out, withText(v, kv))
		}
	}
	n, ok := e.envValue(k, "GIT_CONFIG_COUNT")
	if !ok {
		return out
	}
	count, err := strconv.Atoi(strings.TrimSpace(n.Text))
	if err != nil || count < 0 {
		return out // git refuses to run
	}
	for i := range min(count, maxGitEnvConfig) {
		key, ok := e.envValue(k, "GIT_CONFIG_KEY_"+strconv.Itoa(i))
		if !ok {
			continue
		}
		value, _ := e.envValue(k, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
		w := withText(key, key.Text+"="+value.Text)
		if value.Dynamic() {
			w = withText(value, w.Text)
		}
		out = append(out, w)
	}
	return out
}

// maxGitEnvConfig bounds the GIT_CONFIG_KEY_n entries read.
const maxGitEnvConfig = 64

// gitConfigParameters splits GIT_CONFIG_PARAMETERS into its key=value
// entries: words of single-quoted parts ('k=v', or 'k'='v' as newer git
// writes them), \' standing for a quote, separated by blanks.
func gitConfigParameters(s string) []string {
	var out []string
	var b strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, started = !in, true
		case !in && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case !in && (c == ' ' || c == '\t' || c == '\n'):
			if started {
				out = append(out, b.String())
				b.Reset()
				started = false
			}
		default:
			b.WriteByte(c)
			started = true
		}
	}
	if started {
		out = append(out, b.String())
	}
	return out
}

// setConf records the -c key=value kv in conf, keys lowercased.
func setConf(conf map[string]string, kv string) map[string]string {
	key, value, _ := strings.Cut(kv, "=")
	if conf == nil {
		conf = map[string]string{}
	}
	conf[strings.ToLower(key)] = value
	return conf
}

// gitConf returns the value of the configuration key (lowercased) given
// by -c to this git or by git config earlier in the command line.
func (e *evaluator) gitConf(key string) (string, bool) {
	if v, ok := e.gitLocal[key]; ok {
		return v, true
	}
	v, ok := e.gitSet[key]
	return v, ok
}

// gitConfMatch returns the value of the first key, lowercased, that
// matches prefix*suffix.
func (e *evaluator) gitConfMatch(prefix, suffix string) (string, bool) {
	for _, m := range []map[string]string{e.gitLocal, e.gitSet} {
		for key, v := range m {
			if strings.HasPrefix(key, prefix) && strings.HasSuffix(key, suffix) && len(key) > len(prefix)+len(suffix) {
				return v, true
			}
		}
	}
	return "", false
}

func gitTrue(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "yes", "on", "1":
		return true
	}
	return false
}

// gitAlias judges a call of a git alias with the call's arguments: a "!"
// alias runs its text through the shell with them appended, any other is
// git run with the alias's words and then them.
func (e *evaluator) gitAlias(k *call, value string, args []shell.Word) {
	if sh, ok := strings.CutPrefix(value, "!"); ok {
		line := sh
		for _, w := range args {
			line += " " + shellQuote(w.Text)
		}
		e.payload(k, shell.Lit(line), Bash)
		return
	}
	words := []shell.Word{shell.Lit("git")}
	for _, f := range strings.Fields(value) {
		words = append(words, shell.Lit(strings.Trim(f, `'"`)))
	}
	e.argv(k.c, append(words, args...), shell.Input{}, Bash, k.depth+1)
}

// gitConfig judges a -c key=value: aliases run what they say. It returns
// aliases with the alias it defines added.
func (e *evaluator) gitConfig(k *call, kv shell.Word, aliases map[string]string) map[string]string {
	key, value, _ := strings.Cut(kv.Text, "=")
	name, ok := strings.CutPrefix(strings.ToLower(key), "alias.")
	if !ok {
		e.gitCommandConfig(k.depth, key, withText(kv, value))
		return aliases
	}
	if aliases == nil {
		aliases = map[string]string{}
	}
	aliases[name] = value
	if sh, ok := strings.CutPrefix(value, "!"); ok {
		e.payload(k, shell.Lit(sh), Bash)
		return aliases
	}
	e.payload(k, shell.Lit("git "+value), Bash)
	return aliases
}

// gitConfigAlias records an alias git config defines (git config [--global]
// alias.NAME VALUE), which later calls in the same command line run.
func (e *evaluator) gitConfigAlias(a []shell.Word) {
	var ops []shell.Word
	for _, w := range a {
		if !strings.HasPrefix(w.Text, "-") {
			ops = append(ops, w)
		}
	}
	if len(ops) > 0 && ops[0].Text == "set" {
		ops = ops[1:]
	}
	if len(ops) != 2 {
		return
	}
	if !ops[1].Dynamic() {
		if e.gitSet == nil {
			e.gitSet = map[string]string{}
		}
		e.gitSet[strings.ToLower(ops[0].Text)] = ops[1].Text
	}
	name, ok := strings.CutPrefix(strings.ToLower(ops[0].Text), "alias.")
	if !ok || name == "" || ops[1].Dynamic() {
		return
	}
	if e.gitAliases == nil {
		e.gitAliases = map[string]string{}
	}
	e.gitAliases[name] = ops[1].Text
}

func (e *evaluator) gitSub(k *call, sub string, a []shell.Word) {
	valued := gitValued[sub]
	opts, ops, _ := operands(a, valued.short, valued.long)
	if known, ok := gitLongs[sub]; ok {
		opts = expandLongs(opts, known)
	}
	if gitUsage[sub] && (contains(opts, "--help") || contains(opts, "-h")) {
		// git's option parser prints the usage at -h or --help wherever
		// they stand before "--", and the command does nothing.
		return
	}
	switch sub {
	case "clone":
		cloneCommand(e, k, a)
	case "send-pack":
		// The plumbing under push: --force (or a +refspec) updates the
		// remote's refs whatever they hold.
		for _, o := range opts {
			if o == "--force" || !strings.HasPrefix(o, "--") && strings.Contains(o[1:], "f") || o == "--mirror" {
				e.add(RuleForcePush, k.match(), "git send-pack %s rewrites shared history", o)
				return
			}
		}
		for _, w := range ops {
			if strings.HasPrefix(w.Text, "+") {
				e.add(RuleForcePush, k.match(), "the refspec %q force-pushes and rewrites shared history", w.Text)
				return
			}
		}
	case "push":
		for _, o := range opts {
			switch {
			case o == "--force" || o == "--force-with-lease" || o == "--force-if-includes" || o == "--mirror" ||
				strings.HasPrefix(o, "--force-with-lease") || strings.HasPrefix(o, "--force-if-includes"):
				e.add(RuleForcePush, k.match(), "git push %s rewrites shared history", o)
				return
			case !strings.HasPrefix(o, "--") && strings.Contains(o[1:], "f"):
				e.add(RuleForcePush, k.match(), "git push %s rewrites shared history", o)
				return
			}
		}
		for _, w := range ops {
			if strings.HasPrefix(w.Text, "+") {
				e.add(RuleForcePush, k.match(), "the refspec %q force-pushes and rewrites shared history", w.Text)
				return
			}
		}
		if v, ok := e.gitConfMatch("remote.", ".mirror"); ok && gitTrue(v) {
			e.add(RuleForcePush, k.match(), "git push to a remote configured as a mirror force-pushes every ref")
			return
		}
		if v, ok := e.gitConfMatch("remote.", ".push"); ok && strings.HasPrefix(v, "+") && len(ops) < 2 {
			e.add(RuleForcePush, k.match(), "git push with the configured refspec %q force-pushes", v)
			return
		}
	case "reset":
		if contains(opts, "--hard") {
			e.add(RuleDiscard, k.match(), "git reset --hard discards uncommitted work")
		} else if contains(opts, "--merge") {
			e.add(RuleDiscard, k.match(), "git reset --merge discards uncommitted work in files the reset touches")
		}
	case "branch":
		// -D, -d with -f (--delete --force, -df) delete a branch whether or
		// not it is merged, and -f (--force) moves an existing branch: the
		// commits only it held are lost. -d alone refuses an unmerged branch,
		// and -M, which renames over a branch of that name, is left alone as
		// the peers leave it (git branch -M main after git init).
		del := hasShort(opts, "dD", "--delete")
		force := hasShort(opts, "fD", "--force")
		listing := hasShort(opts, "lavr", "--list", "--all", "--remotes", "--show-current", "--contains",
			"--no-contains", "--merged", "--no-merged", "--points-at")
		renames := hasShort(opts, "mMcC", "--move", "--copy")
		switch {
		case del && force:
			e.add(RuleDiscard, k.match(), "git branch %s deletes a branch with commits no other branch may hold", strings.Join(opts, " "))
		case renames && hasShort(opts, "f", "--force"):
			e.add(RuleDiscard, k.match(), "git branch %s overwrites an existing branch", strings.Join(opts, " "))
		case force && !renames && !listing && len(ops) > 0:
			e.add(RuleDiscard, k.match(), "git branch --force moves the branch %s, dropping the commits only it held", ops[0].Text)
		}
	case "worktree":
		// git worktree remove --force deletes a worktree with uncommitted or
		// untracked work in it.
		if len(ops) > 0 && ops[0].Text == "remove" && hasShort(opts, "f", "--force") {
			e.add(RuleDiscard, k.match(), "git worktree remove --force deletes the worktree's uncommitted work")
		}
	case "checkout-index":
		// checkout-index -f -a overwrites every tracked file in the tree.
		if hasShort(opts, "f", "--force") && hasShort(opts, "a", "--all") && !contains(opts, "--prefix") {
			e.add(RuleDiscard, k.match(), "git checkout-index -f -a overwrites uncommitted work in the whole tree")
		}
	case "read-tree":
		// read-tree -u --reset (or -u -m) rewrites the working tree from the index.
		if hasShort(opts, "u", "-u") && (contains(opts, "--reset") || hasShort(opts, "m", "-m")) {
			e.add(RuleDiscard, k.match(), "git read-tree -u --reset overwrites uncommitted work")
		}
	case "clean":
		force := hasShort(opts, "f", "--force")
		dry := hasShort(opts, "n", "--dry-run")
		if v, ok := e.gitConf("clean.requireforce"); ok && !gitTrue(v) && !hasShort(opts, "i", "--interactive") {
			force = true // clean.requireForce=false: clean deletes without -f
		}
		if hasShort(opts, "i", "--interactive") && k.stdin.Kind != shell.Inherited {
			force = true // git clean -i answered from a pipe or a file deletes as told
		}
		if force && !dry {
			e.add(RuleDiscard, k.match(), "git clean %s deletes untracked files", strings.Join(opts, " "))
		}
	case "checkout":
		if hasShort(opts, "f", "--force") {
			e.add(RuleDiscard, k.match(), "git checkout --force discards uncommitted work")
			return
		}
		if p := wholeTree(checkoutPaths(a)); p != "" {
			e.add(RuleDiscard, k.match(), "git checkout %s discards uncommitted work in the whole tree", p)
		}
		if i := indexText(a, "--"); i >= 0 {
			for _, w := range a[i+1:] {
				e.write(w, k.match(), "overwrites")
			}
		}
	case "restore":
		staged := hasShort(opts, "S", "--staged")
		worktree := hasShort(opts, "W", "--worktree")
		if staged && !worktree {
			return
		}
		if p := wholeTree(ops); p != "" {
			e.add(RuleDiscard, k.match(), "git restore %s discards uncommitted work in the whole tree", p)
		}
		for _, w := range ops {
			e.write(w, k.match(), "overwrites")
		}
	case "switch":
		if contains(opts, "--discard-changes") || hasShort(opts, "f", "--force") {
			e.add(RuleDiscard, k.match(), "git switch --discard-changes discards uncommitted work")
		}
	case "stash":
		if len(ops) > 0 && ops[0].Text == "clear" {
			e.add(RuleDiscard, k.match(), "git stash clear discards every stash")
		} else if len(ops) > 0 && ops[0].Text == "drop" {
			e.add(RuleDiscard, k.match(), "git stash drop discards a stash")
		}
	case "rm":
		if hasShort(opts, "n", "--cached", "--dry-run") {
			return // it removes from the index only, or nothing
		}
		if hasShort(opts, "r") {
			e.add(RuleRecursiveDelete, k.match(), "git rm -r deletes recursively")
		}
		for _, w := range ops {
			e.write(w, k.match(), "deletes")
		}
	case "mv":
		for _, w := range ops {
			e.write(w, k.match(), "moves")
		}
	case "submodule":
		// git submodule foreach [--recursive] CMD runs CMD through a shell in
		// every submodule.
		if len(ops) > 0 && ops[0].Text == "foreach" {
			i := 0
			for i < len(a) && a[i].Text != "foreach" {
				i++
			}
			rest := a[min(i+1, len(a)):]
			for len(rest) > 0 && strings.HasPrefix(rest[0].Text, "-") {
				rest = rest[1:]
			}
			if len(rest) > 0 {
				e.payload(k, joinPlain(rest), Bash)
			}
		}
	case "rebase":
		// git rebase -x CMD / --exec CMD runs CMD after each commit.
		for j, w := range a {
			switch {
			case (w.Text == "-x" || w.Text == "--exec") && j+1 < len(a):
				e.payload(k, a[j+1], Bash)
			case strings.HasPrefix(w.Text, "--exec="):
				e.payload(k, withText(w, strings.TrimPrefix(w.Text, "--exec=")), Bash)
			case strings.HasPrefix(w.Text, "-x") && len(w.Text) > 2:
				e.payload(k, withText(w, w.Text[2:]), Bash)
			}
		}
	case "difftool", "mergetool":
		// difftool -x CMD / --extcmd=CMD runs CMD on each pair of files.
		e.gitCommandOpts(k, a, "-x", "--extcmd")
	case "filter-branch":
		e.gitCommandOpts(k, a, "", "--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
			"--msg-filter", "--commit-filter", "--tag-name-filter", "--setup")
	case "send-email":
		e.gitCommandOpts(k, a, "", "--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd")
	case "grep":
		e.gitCommandOpts(k, a, "-O", "--open-files-in-pager")
	case "apply":
		// git apply reads a diff from standard input when given no file
		// (or -): judged as patch's.
		listing := contains(opts, "--check") || contains(opts, "--stat") || contains(opts, "--numstat") || contains(opts, "--summary")
		if !listing && (len(ops) == 0 || len(ops) == 1 && ops[0].Text == "-") {
			e.stdinDiff(k)
		}
	case "bisect":
		// git bisect run CMD ARGS runs CMD.
		// Its options are the command's: take the words after run as written.
		if len(ops) > 1 && ops[0].Text == "run" {
			for j, w := range a {
				if w.Text == "run" {
					e.argv(k.c, a[j+1:], shell.Input{}, k.sh, k.depth)
					break
				}
			}
		}
	case "config":
		e.gitConfigAlias(a)
		if f, ok := optionValue(a, "--file", "-f"); ok && len(ops) > 1 && !contains(opts, "--get") && !contains(opts, "--list") {
			// git config --file PATH KEY VALUE writes PATH.
			e.write(f, k.match(), "writes")
		}
		// git config [--global] KEY VALUE writes a configuration file; a
		// value git runs as a command is judged as one.
		if cfg := gitConfigOperands(ops); len(cfg) == 2 {
			e.gitCommandConfig(k.depth, cfg[0].Text, cfg[1])
		}
		if len(ops) > 1 && !strings.HasPrefix(ops[0].Text, "-") {
			e.configSecret(".gitconfig", ops, " = ")
		}
	case "remote":
		// git remote add NAME URL, set-url NAME URL: the URL lands in
		// .git/config.
		if len(ops) > 2 && (ops[0].Text == "add" || ops[0].Text == "set-url") {
			e.configSecret(".git/config", append([]shell.Word{shell.Lit("url")}, ops[2:]...), " = ")
		}
	}
}

// gitConfigOperands returns git config's KEY VALUE operands (after "set"
// in the newer spelling), or nil.
func gitConfigOperands(ops []shell.Word) []shell.Word {
	if len(ops) > 0 && ops[0].Text == "set" {
		ops = ops[1:]
	}
	if len(ops) != 2 || strings.HasPrefix(ops[0].Text, "-") {
		return nil
	}
	return ops
}

// gitCommandOpts judges the values of a git subcommand's options that it
// runs as shell commands: short (attached or not) and long (with = or not).
func (e *evaluator) gitCommandOpts(k *call, a []shell.Word, short string, long ...string) {
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		if t == "--" {
			return
		}
		switch {
		case short != "" && t == short || contains(long, t):
			if i+1 < len(a) {
				i++
				e.commandValue(k.depth, a[i])
			}
		case short != "" && strings.HasPrefix(t, short) && len(t) > len(short) && !strings.HasPrefix(t, "--"):
			e.commandValue(k.depth, withText(a[i], t[len(short):]))
		case strings.HasPrefix(t, "--"):
			if name, v, ok := strings.Cut(t, "="); ok && contains(long, name) {
				e.commandValue(k.depth, withText(a[i], v))
			}
		}
	}
}

// gitValued are, per subcommand, the options that take a value, so that
// what follows them is not read as more options (checkout -bfix is -b fix,
// not -f).
var gitValued = map[string]struct{ short, long string }{
	"push":     {"o", "repo receive-pack exec push-option"},
	"checkout": {"bB", "orphan conflict pathspec-from-file"},
	"switch":   {"cC", "create force-create orphan conflict"},
	"restore":  {"s", "source pathspec-from-file conflict"},
	"clean":    {"e", "exclude"},
	"reset":    {"", "pathspec-from-file"},
	"rm":       {"", "pathspec-from-file"},
	"stash":    {"m", "message pathspec-from-file"},
	"branch":   {"ut", "set-upstream-to track contains no-contains merged no-merged points-at sort format color column"},
	"worktree": {"bB", "reason"},
}

// gitLongs are, per subcommand judged, its long options: git takes any
// unique prefix of one (git reset --ha is --hard).
var gitLongs = map[string][]string{
	"push": longs("all branches mirror tags follow-tags no-follow-tags atomic no-atomic dry-run porcelain delete prune " +
		"force force-with-lease no-force-with-lease force-if-includes no-force-if-includes repo set-upstream thin no-thin " +
		"quiet verbose progress no-progress recurse-submodules no-recurse-submodules verify no-verify push-option signed " +
		"no-signed ipv4 ipv6 exec receive-pack"),
	"reset": longs("soft mixed hard merge keep quiet no-quiet recurse-submodules no-recurse-submodules pathspec-from-file " +
		"pathspec-file-nul intent-to-add no-intent-to-add refresh no-refresh patch"),
	"clean": longs("force dry-run quiet exclude interactive"),
	"checkout": longs("quiet progress no-progress force ours theirs track no-track guess no-guess orphan " +
		"ignore-skip-worktree-bits merge conflict patch ignore-other-worktrees overwrite-ignore no-overwrite-ignore " +
		"recurse-submodules no-recurse-submodules pathspec-from-file pathspec-file-nul detach overlay no-overlay"),
	"switch": longs("create force-create detach guess no-guess discard-changes force merge conflict quiet progress " +
		"no-progress track no-track orphan ignore-other-worktrees recurse-submodules no-recurse-submodules"),
	"restore": longs("source patch worktree staged merge conflict ours theirs quiet progress no-progress overlay no-overlay " +
		"ignore-unmerged ignore-skip-worktree-bits recurse-submodules no-recurse-submodules pathspec-from-file pathspec-file-nul"),
	"branch": longs("delete create-reflog force move copy color no-color list abbrev no-abbrev column no-column sort " +
		"merged no-merged contains no-contains points-at ignore-case omit-empty format track no-track set-upstream-to " +
		"unset-upstream edit-description show-current all remotes verbose quiet recurse-submodules"),
	"worktree": longs("force detach checkout no-checkout lock reason orphan track no-track guess-remote no-guess-remote " +
		"relative-paths no-relative-paths quiet verbose expire porcelain"),
	"rm": longs("force dry-run cached ignore-unmatch quiet sparse pathspec-from-file pathspec-file-nul"),
}

// checkoutPaths returns the pathspecs of git checkout: what follows "--",
// or a lone "." given without it.
func checkoutPaths(a []shell.Word) []shell.Word {
	for i, w := range a {
		if w.Text == "--" {
			return a[i+1:]
		}
	}
	var out []shell.Word
	for _, w := range a {
		if isWholeTree(w.Text) {
			out = append(out, w)
		}
	}
	return out
}

// wholeTree returns the first pathspec that covers the whole tree.
func wholeTree(ps []shell.Word) string {
	for _, w := range ps {
		if isWholeTree(w.Text) || topLevelWord(w) {
			return w.Text
		}
	}
	return ""
}

// topLevelWord reports whether w is, at run time, the top of the working
// tree or the current directory: "$(git rev-parse --show-toplevel)",
// "$(pwd)", "$PWD", optionally followed by "/".
func topLevelWord(w shell.Word) bool {
	if !w.Dynamic() {
		return false
	}
	t := strings.TrimSuffix(strings.Trim(w.Text, `"`), "/")
	switch t {
	case "$PWD", "${PWD}", "$(pwd)", "`pwd`":
		return true
	}
	if len(w.Subst) == 1 && strings.HasPrefix(t, "$(") && strings.HasSuffix(t, ")") {
		c := w.Subst[0]
		if len(c.Args) == 3 && c.Args[0].Text == "git" && c.Args[1].Text == "rev-parse" && c.Args[2].Text == "--show-toplevel" {
			return true
		}
	}
	return false
}

func isWholeTree(p string) bool {
	switch p {
	case ".", "./", ":/", ":(top)", "*", ":/*", "..", "../":
		return true
	}
	return false
}

// indexText returns the index of the first word whose text is t, or -1.
func indexText(a []shell.Word, t string) int {
	for i, w := range a {
		if w.Text == t {
			return i
		}
	}
	return -1
}
