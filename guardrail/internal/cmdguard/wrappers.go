package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// optSpec describes a program's options, enough to find the command it
// runs among its arguments.
type optSpec struct {
	// valued are the short options that take a value, attached (-n10) or
	// as the next word (-n 10).
	valued string
	// attached are the short options whose value, optional, can only be
	// attached (xargs -i[REPL]).
	attached string
	// flags are the short options known to take no value.
	flags string
	// long are the long options that take a value (--name=value or
	// --name value); longFlags those known to take none.
	long, longFlags []string
	// positional is how many operands come before the command (timeout's
	// duration, chroot's new root, ssh's host).
	positional int
}

// split returns where the command starts in a (len(a) when there is none),
// the options seen with their values ("-x" or "--name" to the value, or to
// an empty word), and alt: where the command would start if the last
// option before it, one the spec does not know, took the next word as its
// value (alt <= start when there is no such doubt).
func (s *optSpec) split(a []shell.Word) (start int, values optValues, alt int) {
	i := 0
	unknownLast := false
	for ; i < len(a); i++ {
		t := a[i].Text
		if a[i].Dynamic() && strings.HasPrefix(t, "-") {
			unknownLast = true
			continue
		}
		switch {
		case t == "--":
			i++
			return s.operands(a, i, values, false)
		case strings.HasPrefix(t, "--") && len(t) > 2:
			name, v, hasValue := strings.Cut(t[2:], "=")
			unknownLast = false
			switch {
			case hasValue:
				values = setValue(values, "--"+name, withText(a[i], v))
			case contains(s.long, name) && i+1 < len(a):
				i++
				values = setValue(values, "--"+name, a[i])
			case contains(s.long, name) || contains(s.longFlags, name):
				values = setValue(values, "--"+name, shell.Word{})
			default:
				values = setValue(values, "--"+name, shell.Word{})
				unknownLast = true
			}
		case len(t) > 1 && t[0] == '-':
			unknownLast = false
			for j := 1; j < len(t); j++ {
				c := t[j]
				key := "-" + t[j:j+1]
				switch {
				case strings.IndexByte(s.valued, c) >= 0:
					if j < len(t)-1 {
						values = setValue(values, key, withText(a[i], t[j+1:]))
					} else if i+1 < len(a) {
						i++
						values = setValue(values, key, a[i])
					} else {
						values = setValue(values, key, shell.Word{})
					}
					j = len(t)
				case strings.IndexByte(s.attached, c) >= 0:
					values = setValue(values, key, withText(a[i], t[j+1:]))
					j = len(t)
				default:
					values = setValue(values, key, shell.Word{})
					if strings.IndexByte(s.flags, c) < 0 && j == len(t)-1 {
						unknownLast = true
					}
				}
			}
		default:
			return s.operands(a, i, values, unknownLast)
		}
	}
	return len(a), values, 0
}

// operands skips the positional operands from i.
func (s *optSpec) operands(a []shell.Word, i int, values optValues, doubt bool) (int, optValues, int) {
	start := min(i+s.positional, len(a))
	alt := 0
	if doubt {
		alt = min(start+1, len(a))
	}
	return start, values, alt
}

func longs(s string) []string { return strings.Fields(s) }

var (
	watchSpec = &optSpec{valued: "nq", attached: "d", flags: "bcCegprtwxh",
		long: longs("interval equexit shotsdir"), longFlags: longs("beep color no-color differences errexit chgexit precise no-rerun no-title no-wrap exec")}
	sshSpec = &optSpec{valued: "BbcDEeFIiJLlmOoPpQRSWw", flags: "46AaCfGgKkMNnqsTtVvXxYy", positional: 1}
	wslSpec = &optSpec{valued: "duc", flags: "e", long: longs("distribution user cd distribution-id"), longFlags: longs("exec shell-type")}
)

// wrapperSpecs are the wrappers that run the rest of their arguments as a
// command, after their options.
var wrapperSpecs = map[string]*optSpec{
	"sudo": {valued: "ughpCDrtTUR", flags: "AbEeHiKklnPSsVv",
		long:      longs("user group host prompt close-from chdir role type command-timeout other-user chroot"),
		longFlags: longs("askpass background preserve-env edit help set-home login remove-timestamp reset-timestamp non-interactive preserve-groups stdin shell validate version list")},
	"doas":    {valued: "aCu", flags: "ns"},
	"pkexec":  {long: longs("user"), longFlags: longs("disable-internal-agent keep-cwd help version")},
	"builtin": {},
	"nohup":   {},
	"setpriv": {valued: "d", long: longs("reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label apparmor-profile landlock-access landlock-rule ruid euid rgid egid"),
		longFlags: longs("clear-groups init-groups keep-groups nnp no-new-privs reset-env dump")},
	"noglob":           {}, // zsh's precommand modifiers
	"nocorrect":        {},
	"busybox":          {},
	"call":             {},
	"setsid":           {flags: "cfw", longFlags: longs("ctty fork wait")},
	"exec":             {valued: "a", flags: "cl"},
	"nice":             {valued: "n", flags: "0123456789", long: longs("adjustment")},
	"ionice":           {valued: "cnpPu", flags: "t", long: longs("class classdata pid pgid uid"), longFlags: longs("ignore")},
	"timeout":          {valued: "sk", flags: "pv", long: longs("signal kill-after"), longFlags: longs("foreground preserve-status verbose"), positional: 1},
	"time":             {valued: "fo", flags: "apqv", long: longs("format output"), longFlags: longs("append portability verbose quiet")},
	"stdbuf":           {valued: "ioe", long: longs("input output error")},
	"chroot":           {long: longs("userspec groups"), longFlags: longs("skip-chdir"), positional: 1},
	"unshare":          {valued: "RwSGl", attached: "muinpUCT", flags: "frc", long: longs("root wd setuid setgid propagation setgroups map-user map-group map-users map-groups load-interp"), longFlags: longs("fork map-root-user map-current-user mount-proc kill-child keep-caps mount uts ipc net pid user cgroup time monotonic boottime")},
	"nsenter":          {valued: "tSGe", attached: "muinpUCTrw", flags: "aFZ", long: longs("target setuid setgid"), longFlags: longs("all preserve-credentials no-fork follow-context mount uts ipc net pid user cgroup time root wd")},
	"numactl":          {valued: "NmCpiPw", flags: "laHsSbD", long: longs("cpunodebind membind physcpubind preferred interleave preferred-many weighted-interleave")},
	"cgexec":           {valued: "g", longFlags: longs("sticky")},
	"prlimit":          {valued: "p", flags: "ovr", longFlags: longs("noheadings raw verbose")},
	"strace":           {valued: "oepsuEPIbXaS", flags: "fFqcwvVhdDrtTyzZCkn", long: longs("output trace signal abbrev verbose raw read write fault inject status quiet decode-fds"), longFlags: longs("follow-forks output-separately summary-only summary")},
	"ltrace":           {valued: "oepsuEnaAlLxD", flags: "bcCfhiSrtTV"},
	"sshpass":          {valued: "pfdP", flags: "ev"},
	"faketime":         {valued: "p", flags: "fm", positional: 1},
	"caffeinate":       {valued: "tw", flags: "dimsu"},
	"xvfb-run":         {valued: "npsfeel", flags: "a", long: longs("server-num server-args xauth-protocol auth-file error-file listen-tcp wait")},
	"unbuffer":         {flags: "p"},
	"fakeroot":         {valued: "is", long: longs("lib faked")},
	"eatmydata":        {},
	"chronic":          {flags: "ev"},
	"proxychains":      {valued: "f", flags: "q"},
	"proxychains4":     {valued: "f", flags: "q"},
	"torsocks":         {valued: "uaPp", flags: "diq"},
	"catchsegv":        {},
	"dbus-run-session": {long: longs("config-file dbus-daemon")},
	"systemd-run":      {valued: "pEuMHS", flags: "trPGqd", long: longs("unit property description slice uid gid nice working-directory setenv machine host on-active on-boot on-startup on-unit-active on-unit-inactive on-calendar on-timezone-change timer-property path-property socket-property service-type"), longFlags: longs("user system scope remain-after-exit send-sighup pty pipe quiet wait collect same-dir shell no-block")},
	"firejail":         {},
	"toybox":           {},
	"run0": {valued: "ugD", long: longs("user group nice chdir setenv property description slice unit machine background shell-prompt-prefix"),
		longFlags: longs("no-ask-password via-shell empower lightweight")},
}

var wrapperOptions = map[string]*optSpec{
	"taskset": {flags: "acp", longFlags: longs("all-tasks cpu-list pid")},
	"chrt":    {valued: "TPD", flags: "abdfiormvRe", long: longs("sched-runtime sched-period sched-deadline"), longFlags: longs("all-tasks batch deadline fifo idle other rr reset-on-fork verbose max pid")},
}

var xargsSpec = &optSpec{valued: "adEILnPsJRS", attached: "eil", flags: "0oprtx",
	long:      longs("arg-file delimiter max-args max-procs max-chars process-slot-var"),
	longFlags: longs("null interactive no-run-if-empty verbose exit show-limits open-tty help version replace eof max-lines")}

// unwrapXargs returns the command xargs runs: its arguments after xargs's
// options, with what it reads from its input standing in for the
// replacement string (-I, -i, -J, --replace), or appended without one.
func (e *evaluator) unwrapXargs(k *call) ([]shell.Word, []shell.Word, bool) {
	a := k.args
	i, v, altI := xargsSpec.split(a)
	if in := k.stdin; in.Kind == shell.Pipe && in.From != nil && isDownload(in.From) && i < len(a) && !a[i].Dynamic() {
		// curl URL | xargs sh -c: a shell or interpreter runs downloaded text.
		if n := canonical(k.sh, a[i].Text); isShell(n) || interpreterName(n) != "" {
			e.add(RuleInstall, k.matchInput(), "xargs hands what %s downloads to %s: code nobody reviewed", in.From.Args[0].Text, n)
			return nil, nil, true
		}
	}
	repl := ""
	for _, key := range []string{"-I", "-J", "-i", "--replace"} {
		if w, ok := v.get(key); ok {
			repl = w.Text
			if repl == "" && key != "-I" && key != "-J" {
				repl = "{}"
			}
		}
	}
	// What xargs reads, when echo, printf or a here-document gives it:
	// with a replacement string, whole lines (-I implies -L 1); else
	// blank-separated words.
	var input []string
	if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
		if repl != "" {
			for line := range strings.Lines(text.Text) {
				if line = strings.TrimSpace(line); line != "" {
					input = append(input, line)
				}
			}
		} else {
			input = strings.Fields(text.Text)
		}
		if len(input) > maxParallelArgs {
			input = input[:maxParallelArgs]
		}
	}
	read := func(inner []shell.Word) []shell.Word {
		if len(inner) == 0 {
			return nil // echo
		}
		if repl == "" {
			if len(input) > 0 {
				if shellScriptNext(inner) {
					// xargs sh -c: the first word read is the script, the
					// rest its $0 and arguments. Whoever wrote it meant the
					// whole input as the script, and so it is judged too.
					e.payload(k, shell.Lit(strings.Join(input, " ")), Bash)
				}
				out := append([]shell.Word(nil), inner...)
				for _, f := range input {
					out = append(out, shell.Lit(f))
				}
				return out
			}
			if gitDiscardsListed(inner) && listsChangedFiles(k.stdin) {
				// git diff --name-only | xargs git checkout --: every
				// changed file, as git checkout -- . discards them.
				return append(append([]shell.Word(nil), inner...), shell.Lit("."))
			}
			// The arguments xargs reads from its input are not known.
			return append(append([]shell.Word(nil), inner...), dynamicWord("{xargs input}"))
		}
		if len(input) > 0 {
			// Each input line is a command of its own; all but the first
			// are judged here.
			for _, f := range input[1:] {
				e.argv(k.c, replaceText(inner, repl, f), shell.Input{}, k.sh, k.depth)
			}
			return replaceText(inner, repl, input[0])
		}
		if gitDiscardsListed(inner) && listsChangedFiles(k.stdin) {
			return replaceText(inner, repl, ".") // each changed file in turn: all of them
		}
		out := make([]shell.Word, len(inner))
		for j, w := range inner {
			out[j] = replaceDynamic(w, repl)
		}
		return out
	}
	var alt []shell.Word
	if altI > i {
		alt = read(a[altI:])
	}
	return read(a[i:]), alt, true
}

// replaceText puts val in for every occurrence of repl in the words.
func replaceText(ws []shell.Word, repl, val string) []shell.Word {
	out := make([]shell.Word, len(ws))
	for i, w := range ws {
		if !w.Dynamic() && strings.Contains(w.Text, repl) {
			w = withText(w, strings.ReplaceAll(w.Text, repl, val))
		}
		out[i] = w
	}
	return out
}

// replaceDynamic marks every occurrence of repl in w as a part known only
// at run time.
func replaceDynamic(w shell.Word, repl string) shell.Word {
	if repl == "" || !strings.Contains(w.Text, repl) {
		return w
	}
	if w.Dynamic() {
		return w
	}
	out := shell.Word{Text: w.Text, Quoted: w.Quoted, Glob: w.Glob, Subst: w.Subst}
	parts := strings.Split(w.Text, repl)
	for j, p := range parts {
		if j > 0 {
			out.Segs = append(out.Segs, shell.Seg{Text: repl, Dynamic: true})
		}
		if p != "" {
			out.Segs = append(out.Segs, shell.Seg{Text: p})
		}
	}
	return out
}

var parallelSpec = &optSpec{valued: "aCdEIjLnNPsSW", attached: "ile", flags: "0gkmqrtuvxXZ",
	long: longs("jobs arg-file colsep delimiter eof max-args max-lines max-procs max-chars sshlogin workdir joblog results " +
		"tmpdir timeout env basefile transferfile return delay memfree load nice retries halt tagstring block block-size " +
		"header profile recend recstart regexp seqreplace termseq arg-sep arg-file-sep id semaphorename"),
	longFlags: longs("pipe pipepart tag keep-order dry-run verbose null quote group ungroup line-buffer lb bar progress eta " +
		"no-run-if-empty xapply link shuf plus semaphore fg bg no-notice citation will-cite cleanup trim")}

// parallelSeps separate GNU parallel's command from its argument sources.
var parallelSeps = map[string]bool{":::": true, "::::": true, ":::+": true, "::::+": true}

// maxParallelArgs bounds how many of parallel's ::: arguments are judged
// one by one.
const maxParallelArgs = 16

// parallel judges GNU parallel (and sem): the command, joined by blanks
// and run by a shell, once per ::: argument put in for its replacement
// strings ({}, {.}, {/}, ...; appended without one); with no command, the
// arguments or the input lines are the commands.
func (e *evaluator) parallel(k *call) {
	a := k.args
	i, v, _ := parallelSpec.split(a)
	if _, dry := v.get("--dry-run"); dry {
		return
	}
	end := i
	for end < len(a) && !parallelSeps[a[end].Text] {
		end++
	}
	var args []shell.Word
	fromFiles := false
	if _, ok := v.get("-a"); ok {
		fromFiles = true
	}
	if _, ok := v.get("--arg-file"); ok {
		fromFiles = true
	}
	inList := false
	for _, w := range a[end:] {
		switch {
		case parallelSeps[w.Text]:
			inList = w.Text == ":::" || w.Text == ":::+"
			fromFiles = fromFiles || !inList
		case inList:
			args = append(args, w)
		}
	}
	if end == i {
		// No command: every argument, or input line, is one.
		switch {
		case len(args) > 0:
			for _, w := range args[:min(len(args), maxParallelArgs)] {
				e.payload(k, w, Bash)
			}
		case fromFiles:
			e.add(RuleUnresolved, k.match(), "the commands GNU parallel reads from a file cannot be judged")
		default:
			e.stdinScript(k, Bash)
		}
		return
	}
	line := joinPlain(a[i:end])
	repl := `{}`
	if w, ok := v.get("-I"); ok && w.Text != "" {
		repl = w.Text
	}
	_, piped := v.get("--pipe")
	_, pipepart := v.get("--pipepart")
	if piped || pipepart {
		e.payload(k, line, Bash)
		return
	}
	if len(args) == 0 && !fromFiles {
		// The input's lines, when echo, printf or a here-document gives them.
		if text, state, _ := stdinText(k.stdin, 0); state == inputKnown {
			for line := range strings.Lines(text.Text) {
				if line = strings.TrimSpace(line); line != "" {
					args = append(args, shell.Lit(line))
				}
			}
		}
	}
	if len(args) == 0 || fromFiles {
		args = append(args, shell.Word{Text: `"$PARALLEL_ARG"`})
	}
	for _, arg := range args[:min(len(args), maxParallelArgs)] {
		val := arg.Text
		if arg.Segs == nil && val != `"$PARALLEL_ARG"` {
			val = shellQuote(val)
		}
		w := line
		w.Segs = nil
		w.Text = substituteParallel(line.Text, repl, val)
		e.payload(k, w, Bash)
		// With -q (--quote) parallel runs the words as they are, each
		// one argument: parallel bash -c 'rm -rf {}' ::: x means that to
		// whoever wrote it, so that reading is judged too, with or
		// without -q.
		if end-i > 1 {
			e.argv(k.c, quotedParallel(a[i:end], repl, arg), shell.Input{}, k.sh, k.depth)
		}
	}
}

// quotedParallel is parallel's command as -q runs it: each word an
// argument, the argument put in for its replacement strings, or appended
// when no word holds one.
// An argument known only at run time stands in as a part known only then.
func quotedParallel(ws []shell.Word, repl string, arg shell.Word) []shell.Word {
	unknown := arg.Segs != nil || arg.Text == `"$PARALLEL_ARG"`
	out := make([]shell.Word, len(ws))
	n := 0
	for i, w := range ws {
		if !w.Dynamic() {
			if t, k := replaceBraces(w.Text, repl, arg.Text); k > 0 {
				if unknown {
					w = replaceDynamic(withText(w, t), arg.Text)
				} else {
					w = withText(w, t)
				}
				n += k
			}
		}
		out[i] = w
	}
	if n == 0 {
		if unknown {
			arg = dynamicWord("{parallel argument}")
		}
		out = append(out, arg)
	}
	return out
}

// shellScriptNext reports whether argv is a shell whose last option
// is -c (alone or ending a cluster, as in -lc), so that the next argument
// would be its script.
func shellScriptNext(argv []shell.Word) bool {
	if len(argv) < 2 {
		return false
	}
	if !isShell(canonical(Bash, argv[0].Text)) {
		return false
	}
	last := argv[len(argv)-1].Text
	return len(last) > 1 && last[0] == '-' && last[1] != '-' && last[len(last)-1] == 'c'
}

// substituteParallel puts val in for parallel's replacement strings in
// line ({}, {.}, {/}, {//}, {/.}, {#}, {%}, {1}, ... and a custom -I one),
// or appends it when there is none.
func substituteParallel(line, repl, val string) string {
	out, n := replaceBraces(line, repl, val)
	if n == 0 {
		return line + " " + val
	}
	return out
}

func replaceBraces(line, repl, val string) (string, int) {
	n := 0
	var b strings.Builder
	for i := 0; i < len(line); {
		if strings.HasPrefix(line[i:], repl) {
			b.WriteString(val)
			i += len(repl)
			n++
			continue
		}
		if repl == "{}" && line[i] == '{' {
			j := i + 1
			for j < len(line) && strings.IndexByte("0123456789./#%", line[j]) >= 0 {
				j++
			}
			if j < len(line) && line[j] == '}' && j > i+1 {
				b.WriteString(val)
				i = j + 1
				n++
				continue
			}
		}
		b.WriteByte(line[i])
		i++
	}
	return b.String(), n
}

// shellQuote quotes s as one word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var flockSpec = &optSpec{valued: "wE", flags: "sxunoeFv", long: longs("timeout wait conflict-exit-code"),
	longFlags: longs("shared exclusive unlock nonblock nb close no-fork verbose"), positional: 1}

// unwrapFlock returns the command flock runs with its lock: after the lock
// file, or the -c string.
func (e *evaluator) unwrapFlock(k *call) ([]shell.Word, []shell.Word, bool) {
	a := k.args
	for j, w := range a {
		if (w.Text == "-c" || w.Text == "--command") && j+1 < len(a) {
			e.payload(k, a[j+1], Bash)
			return nil, nil, true
		}
		if v, ok := strings.CutPrefix(w.Text, "--command="); ok {
			e.payload(k, withText(w, v), Bash)
			return nil, nil, true
		}
	}
	i, _, altI := flockSpec.split(a)
	var alt []shell.Word
	if altI > i {
		alt = a[altI:]
	}
	return a[i:], alt, true
}

// unwrapCommandOption handles the programs that run a command given as one
// string to -c: su, runuser and script (-c, --command), sg (GROUP [-c]
// COMMAND); runuser -u USER runs the rest as argv.
func (e *evaluator) unwrapCommandOption(k *call) ([]shell.Word, []shell.Word, bool) {
	a := k.args
	for j, w := range a {
		t := w.Text
		switch {
		case (t == "-c" || t == "--command") && j+1 < len(a):
			e.payload(k, a[j+1], Bash)
			return nil, nil, true
		case strings.HasPrefix(t, "--command="):
			e.payload(k, withText(w, strings.TrimPrefix(t, "--command=")), Bash)
			return nil, nil, true
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.HasSuffix(t, "c") && j+1 < len(a):
			// A cluster ending in c: su -lc 'cmd'.
			e.payload(k, a[j+1], Bash)
			return nil, nil, true
		}
	}
	switch k.name {
	case "script":
		// BSD's (macOS's) script [-adkpqr] [-F pipe] [-t time] [file
		// [command ...]]: after the file, the command it runs.
		i, _, _ := (&optSpec{valued: "FTt", flags: "adekpqr"}).split(a)
		if i+1 < len(a) {
			return a[i+1:], nil, true
		}
	case "sg":
		if len(a) > 1 {
			rest := a[1:]
			if rest[0].Text == "-" && len(rest) > 1 {
				rest = rest[1:]
			}
			e.payload(k, joinPlain(rest), Bash)
		}
	case "runuser":
		for j, w := range a {
			if w.Text == "--" {
				return a[j+1:], nil, true
			}
		}
		i, v, _ := (&optSpec{valued: "ugGsw", flags: "lmpPfh", long: longs("user group supp-group shell whitelist-environment")}).split(a)
		if _, ok := v.get("-u"); ok {
			return a[i:], nil, true
		}
	}
	return nil, nil, true
}

// gitDiscardsListed reports whether argv is git checkout or git restore,
// which discard the changes of the paths appended to it.
func gitDiscardsListed(argv []shell.Word) bool {
	if len(argv) < 2 || canonical(Bash, argv[0].Text) != "git" {
		return false
	}
	for _, w := range argv[1:] {
		switch w.Text {
		case "checkout", "restore":
			return true
		}
		if !strings.HasPrefix(w.Text, "-") {
			return false
		}
	}
	return false
}

// listsChangedFiles reports whether the input comes from git listing the
// working tree's files (git diff --name-only, git ls-files, git status
// --porcelain or --short), through filters that pass lines on (grep, awk,
// cut, sed, sort, uniq, tr).
func listsChangedFiles(in shell.Input) bool {
	for hops := 0; in.Kind == shell.Pipe && in.From != nil && len(in.From.Args) > 0 && hops < 8; hops++ {
		c := in.From
		switch canonical(Bash, c.Args[0].Text) {
		case "grep", "egrep", "rg", "awk", "gawk", "cut", "sed", "sort", "uniq", "tr":
			in = c.Stdin
			continue
		case "git":
		default:
			return false
		}
		var sub string
		var opts []string
		for _, w := range c.Args[1:] {
			switch {
			case strings.HasPrefix(w.Text, "-"):
				opts = append(opts, w.Text)
			case sub == "":
				sub = w.Text
			}
		}
		switch sub {
		case "ls-files":
			return true
		case "diff":
			return contains(opts, "--name-only") || contains(opts, "--name-status")
		case "status":
			return contains(opts, "--porcelain") || contains(opts, "-s") || contains(opts, "--short")
		}
		return false
	}
	return false
}
