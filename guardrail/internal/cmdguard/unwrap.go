package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// unwrap returns the command a wrapper runs, as argv: sudo, doas, env,
// command, builtin, exec, nohup, nice, ionice, timeout, time, stdbuf, xargs,
// busybox, watch -x, docker/podman/kubectl exec and run, cmd's call and
// start, PowerShell's Start-Process. ok is false for anything else.
func (e *evaluator) unwrap(k *call) (inner []shell.Word, ok bool) {
	a := k.args
	switch k.name {
	case "sudo":
		return skipOpts(a, "ughpCDrtTUR", "user group host prompt close-from chdir role type command-timeout other-user chroot"), true
	case "doas":
		return skipOpts(a, "aCu", ""), true
	case "env":
		return e.unwrapEnv(k)
	case "command":
		// command -v and -V only look the name up.
		for _, w := range a {
			if !strings.HasPrefix(w.Text, "-") || w.Text == "--" {
				break
			}
			if strings.ContainsAny(w.Text, "vV") {
				return nil, true
			}
		}
		return skipOpts(a, "", ""), true
	case "builtin", "nohup", "busybox", "call":
		return skipOpts(a, "", ""), true
	case "exec":
		return skipOpts(a, "a", ""), true
	case "nice":
		return skipOpts(a, "n", "adjustment"), true
	case "ionice":
		return skipOpts(a, "cnpPu", "class classdata pid pgid uid"), true
	case "timeout":
		rest := skipOpts(a, "sk", "signal kill-after")
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		return rest, true
	case "time":
		return skipOpts(a, "fo", "format output"), true
	case "stdbuf":
		return skipOpts(a, "ioe", "input output error"), true
	case "xargs":
		rest := skipOpts(a, "adEeIiLlnPs", "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var")
		if len(rest) == 0 {
			return nil, true // echo
		}
		// The arguments xargs reads from its input are not known.
		return append(append([]shell.Word(nil), rest...), dynamicWord("{xargs input}")), true
	case "watch":
		exec := false
		var rest []shell.Word
		for i := 0; i < len(a); i++ {
			t := a[i].Text
			if t == "-x" || t == "--exec" {
				exec = true
				continue
			}
			if t == "-n" || t == "--interval" || t == "-q" || t == "--equexit" {
				i++
				continue
			}
			if strings.HasPrefix(t, "-") && t != "--" {
				continue
			}
			if t == "--" {
				i++
			}
			rest = a[i:]
			break
		}
		if exec {
			return rest, true
		}
		// watch runs its arguments joined by blanks through sh -c.
		e.payload(k, joinWords(rest), Bash)
		return nil, true
	case "docker", "podman", "nerdctl":
		return containerExec(a), true
	case "docker-compose", "podman-compose":
		return composeExec(a), true
	case "kubectl", "oc":
		for i, w := range a {
			if w.Text == "exec" {
				for j := i + 1; j < len(a); j++ {
					if a[j].Text == "--" {
						return a[j+1:], true
					}
				}
				return nil, true
			}
		}
		return nil, false
	case "start":
		if k.sh != Cmd {
			return nil, false
		}
		// start ["title"] [/d dir] [/b /wait /min ...] command args
		for i := 0; i < len(a); i++ {
			t := strings.ToLower(a[i].Text)
			switch {
			case i == 0 && a[i].Quoted:
				continue
			case t == "/d":
				i++
			case strings.HasPrefix(t, "/"):
			default:
				return a[i:], true
			}
		}
		return nil, true
	case "start-process":
		ps := psArgs(a, psStartProcess)
		file := ps.get("filepath")
		if file == nil {
			return nil, true
		}
		inner := []shell.Word{*file}
		for _, w := range ps.named["argumentlist"] {
			inner = append(inner, splitList(w)...)
		}
		// The argument list is one string the program's own parser splits.
		if len(inner) > 1 {
			e.payload(k, joinWords(inner), k.sh)
			return nil, true
		}
		return inner, true
	}
	return nil, false
}

// skipOpts skips a wrapper's options and returns the wrapped argv. short
// lists the one-letter options that take a value; long the long ones.
// Assignments NAME=value before the command are skipped too.
func skipOpts(a []shell.Word, short, long string) []shell.Word {
	longs := strings.Fields(long)
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			return a[i+1:]
		case strings.HasPrefix(t, "--"):
			name, _, hasValue := strings.Cut(t[2:], "=")
			if !hasValue && contains(longs, name) {
				i++
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(short, t[j]) >= 0 {
					if j == len(t)-1 {
						i++
					}
					break
				}
			}
		default:
			return a[i:]
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unwrapEnv skips env's options and NAME=value assignments; env -S splits
// its string into a command line.
func (e *evaluator) unwrapEnv(k *call) ([]shell.Word, bool) {
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "--":
			return skipAssigns(a[i+1:]), true
		case t == "-S" || t == "--split-string":
			if i+1 < len(a) {
				e.payload(k, joinWords(a[i+1:]), Bash)
			}
			return nil, true
		case strings.HasPrefix(t, "-S"):
			e.payload(k, joinWords(append([]shell.Word{shell.Lit(t[2:])}, a[i+1:]...)), Bash)
			return nil, true
		case strings.HasPrefix(t, "--split-string="):
			e.payload(k, joinWords(append([]shell.Word{shell.Lit(t[len("--split-string="):])}, a[i+1:]...)), Bash)
			return nil, true
		case t == "-u" || t == "-C" || t == "--unset" || t == "--chdir":
			i++
		case strings.HasPrefix(t, "-"):
		default:
			return skipAssigns(a[i:]), true
		}
	}
	return nil, true
}

func skipAssigns(a []shell.Word) []shell.Word {
	for len(a) > 0 {
		name, _, ok := strings.Cut(a[0].Text, "=")
		if !ok || name == "" || strings.ContainsAny(name, "/ ") {
			break
		}
		a = a[1:]
	}
	return a
}

// containerExec returns the command of docker/podman [container] exec or
// run, or nil.
func containerExec(a []shell.Word) []shell.Word {
	a = skipOpts(a, "Hcl", "host context config log-level")
	if len(a) > 0 && a[0].Text == "container" {
		a = a[1:]
	}
	if len(a) == 0 {
		return nil
	}
	switch a[0].Text {
	case "exec":
		rest := skipOpts(a[1:], "euw", "env env-file user workdir detach-keys")
		if len(rest) > 0 {
			return rest[1:] // the container
		}
	case "run":
		rest := skipOpts(a[1:], "eEvwulhpmaLc",
			"env env-file volume workdir user name publish network net entrypoint label mount platform hostname cpus memory add-host device dns cap-add cap-drop log-driver log-opt restart security-opt tmpfs ulimit pull gpus ipc pid shm-size stop-signal expose label-file attach cidfile link runtime userns uts volumes-from group-add health-cmd")
		if len(rest) > 0 {
			return rest[1:] // the image
		}
	case "compose":
		return composeExec(a[1:])
	}
	return nil
}

// composeExec returns the command of docker compose exec or run, or nil.
func composeExec(a []shell.Word) []shell.Word {
	a = skipOpts(a, "fp", "file project-name profile env-file project-directory")
	if len(a) == 0 || a[0].Text != "exec" && a[0].Text != "run" {
		return nil
	}
	rest := skipOpts(a[1:], "euw", "env user workdir index name entrypoint volume publish label")
	if len(rest) > 0 {
		return rest[1:] // the service
	}
	return nil
}

// dynamicWord returns a word whose value is not known, shown as text.
func dynamicWord(text string) shell.Word {
	return shell.Word{Text: text, Segs: []shell.Seg{{Text: text, Dynamic: true}}}
}

// joinWords joins words into one command line, quoting those with blanks,
// and keeps whether any part was dynamic.
func joinWords(ws []shell.Word) shell.Word {
	if len(ws) == 1 {
		return ws[0]
	}
	var out shell.Word
	for i, w := range ws {
		if i > 0 {
			out.Text += " "
			out.Segs = append(out.Segs, shell.Seg{Text: " "})
		}
		t := w.Text
		if strings.ContainsAny(t, " \t\n") {
			t = `"` + t + `"`
		}
		out.Text += t
		out.Segs = append(out.Segs, shell.Seg{Text: t, Dynamic: w.Dynamic()})
		out.Subst = append(out.Subst, w.Subst...)
	}
	return out
}

// splitList splits a PowerShell list argument ("a,b" or "a b") into words.
func splitList(w shell.Word) []shell.Word {
	if w.Dynamic() {
		return []shell.Word{w}
	}
	var out []shell.Word
	for _, f := range strings.FieldsFunc(w.Text, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, shell.Lit(strings.Trim(f, `'"`)))
	}
	return out
}
