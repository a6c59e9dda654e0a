package cmdguard

import (
	"strings"

	"github.com/harnish/harnish/guardrail/internal/shell"
)

// unwrap returns the command a wrapper runs, as argv: sudo, doas, env,
// command, builtin, exec, nohup, nice, ionice, timeout, time, stdbuf, xargs,
// parallel, flock, chroot, unshare, nsenter, setsid, taskset, chrt, ssh,
// busybox, watch, docker/podman/kubectl exec and run, cmd's call and start,
// PowerShell's Start-Process, and the others of wrapperSpecs. alt is another
// reading of the same words, when an option harnish does not know may have
// taken the next word as its value. ok is false for anything else.
func (e *evaluator) unwrap(k *call) (inner, alt []shell.Word, ok bool) {
	a := k.args
	if spec, found := wrapperSpecs[k.name]; found {
		i, _, altI := spec.split(a)
		inner = a[i:]
		if altI > i && altI <= len(a) {
			alt = a[altI:]
		}
		return inner, alt, true
	}
	if inner, alt, ok := e.unwrapRunner(k); ok {
		return inner, alt, true
	}
	if inner, alt, ok := e.unwrapDevEnv(k); ok {
		return inner, alt, true
	}
	switch k.name {
	case "env":
		return e.unwrapEnv(k)
	case "command":
		// command -v and -V only look the name up, but a line that puts
		// a command's words after it (command -v git reset --hard) is
		// judged as if it ran them: it fails closed.
		return skipOpts(a, "", ""), nil, true
	case "xargs":
		return e.unwrapXargs(k)
	case "parallel", "sem":
		e.parallel(k)
		return nil, nil, true
	case "watch":
		i, v, _ := watchSpec.split(a)
		if _, exec := v.get("-x"); exec {
			return a[i:], nil, true
		}
		if _, exec := v.get("--exec"); exec {
			return a[i:], nil, true
		}
		// watch runs its arguments joined by blanks through sh -c.
		if i < len(a) {
			e.payload(k, joinWords(a[i:]), Bash)
		}
		return nil, nil, true
	case "flock":
		return e.unwrapFlock(k)
	case "su", "runuser", "sg", "script":
		return e.unwrapCommandOption(k)
	case "taskset", "chrt":
		i, v, _ := wrapperOptions[k.name].split(a)
		_, pid := v.get("-p")
		_, pidLong := v.get("--pid")
		if pid || pidLong {
			return nil, nil, true // it changes a running process
		}
		if i < len(a) {
			i++ // the mask or the priority
		}
		return a[i:], nil, true
	case "ssh":
		// After the host, the remote command, which the remote shell runs
		// as one line.
		i, _, altI := sshSpec.split(a)
		if i < len(a) && a[i].Text == "--" {
			i++
		}
		if i < len(a) {
			e.payload(k, joinPlain(a[i:]), Bash)
		}
		if altI > i && altI < len(a) {
			e.alternative(k.c, k.name, []shell.Word{shell.Lit("sh"), shell.Lit("-c"), joinPlain(a[altI:])}, shell.Input{}, Bash, k.depth)
		}
		return nil, nil, true
	case "wsl":
		i, v, _ := wslSpec.split(a)
		_, exec := v.get("-e")
		_, execLong := v.get("--exec")
		if exec || execLong {
			if k.sh != Bash {
				// WSL runs it in Linux, whatever shell wsl was called from.
				e.argv(k.c, a[i:], shell.Input{}, Bash, k.depth)
				return nil, nil, true
			}
			return a[i:], nil, true
		}
		if i < len(a) {
			e.payload(k, joinPlain(a[i:]), Bash)
		}
		return nil, nil, true
	case "docker", "podman", "nerdctl":
		if rest := skipOpts(a, "Hcl", "host context config log-level"); len(rest) > 0 && rest[0].Text == "cp" ||
			len(rest) > 1 && rest[0].Text == "container" && rest[1].Text == "cp" {
			if rest[0].Text == "container" {
				rest = rest[1:]
			}
			containerCopy(e, k, rest[1:])
			return nil, nil, true
		}
		return containerExec(a), nil, true
	case "docker-compose", "podman-compose":
		return composeExec(a), nil, true
	case "kubectl", "oc":
		if i, _, _ := (&optSpec{valued: "ns", long: longs("namespace context cluster kubeconfig server user")}).split(a); i < len(a) && a[i].Text == "cp" {
			containerCopy(e, k, a[i+1:])
			return nil, nil, true
		}
		for i, w := range a {
			if w.Text == "exec" || w.Text == "debug" {
				for j := i + 1; j < len(a); j++ {
					if a[j].Text == "--" {
						return a[j+1:], nil, true
					}
				}
				return nil, nil, true
			}
		}
		return nil, nil, false
	case "start":
		if k.sh != Cmd {
			return nil, nil, false
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
				return a[i:], nil, true
			}
		}
		return nil, nil, true
	case "start-process":
		ps := psArgs(a, psStartProcess)
		file := ps.get("filepath")
		if file == nil {
			return nil, nil, true
		}
		if e.ranDownload(k.match(), *file) {
			// Start-Process a.exe after iwr ... -OutFile a.exe: it finds a
			// bare name in the current location too.
			return nil, nil, true
		}
		inner := []shell.Word{*file}
		for _, w := range ps.named["argumentlist"] {
			inner = append(inner, splitList(w)...)
		}
		// The argument list is one string the program's own parser splits.
		if len(inner) > 1 {
			e.payload(k, joinWords(inner), k.sh)
			return nil, nil, true
		}
		return inner, nil, true
	}
	return nil, nil, false
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

// unwrapEnv skips env's options and NAME=value assignments; env -S (alone,
// in a cluster such as -vS, or as --split-string) splits its string into a
// command line, judged as one.
// envDirSpec reads env's options for its -C (--chdir) directory.
var envDirSpec = &optSpec{valued: "uCPaS", flags: "i0v", long: longs("unset chdir argv0 split-string"),
	longFlags: longs("ignore-environment null debug help version")}

// wrapperDir returns the directory a wrapper runs its command in, when it
// names one: env -C DIR (--chdir), sudo -D DIR (--chdir).
func wrapperDir(k *call) (shell.Word, bool) {
	var values optValues
	switch k.name {
	case "env":
		_, values, _ = envDirSpec.split(k.args)
		if d, ok := values.get("-C"); ok {
			return d, true
		}
	case "sudo":
		_, values, _ = wrapperSpecs["sudo"].split(k.args)
		if d, ok := values.get("-D"); ok {
			return d, true
		}
	default:
		return shell.Word{}, false
	}
	return values.get("--chdir")
}

func (e *evaluator) unwrapEnv(k *call) ([]shell.Word, []shell.Word, bool) {
	a := k.args
	for i := 0; i < len(a); i++ {
		t := a[i].Text
		switch {
		case t == "-":
			// env - is env -i.
		case t == "--":
			return skipAssigns(a[i+1:]), nil, true
		case strings.HasPrefix(t, "--"):
			name, v, hasValue := strings.Cut(t[2:], "=")
			switch name {
			case "split-string":
				rest := a[i+1:]
				if hasValue {
					rest = append([]shell.Word{withText(a[i], v)}, rest...)
				}
				if len(rest) > 0 {
					e.payload(k, joinPlain(rest), Bash)
				}
				return nil, nil, true
			case "unset", "chdir", "argv0":
				if !hasValue {
					i++
				}
			}
		case len(t) > 1 && t[0] == '-':
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'S':
					rest := a[i+1:]
					if j+1 < len(t) {
						rest = append([]shell.Word{withText(a[i], t[j+1:])}, rest...)
					}
					if len(rest) > 0 {
						e.payload(k, joinPlain(rest), Bash)
					}
					return nil, nil, true
				case 'u', 'C', 'P', 'a':
					if j == len(t)-1 {
						i++
					}
					j = len(t)
				}
			}
		default:
			return skipAssigns(a[i:]), nil, true
		}
	}
	return nil, nil, true
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
			if ep, ok := entrypoint(a[1 : len(a)-len(rest)]); ok {
				return append([]shell.Word{ep}, rest[1:]...) // --entrypoint runs instead of the image's
			}
			return rest[1:] // the image
		}
	case "compose":
		return composeExec(a[1:])
	case "unshare":
		// podman unshare runs the command in the rootless user namespace.
		return skipOpts(a[1:], "", "")
	}
	return nil
}

// entrypoint returns the value of --entrypoint among a container run's
// options: the program that runs with the arguments after the image.
func entrypoint(opts []shell.Word) (shell.Word, bool) {
	for i, w := range opts {
		switch {
		case w.Text == "--entrypoint" && i+1 < len(opts):
			return opts[i+1], opts[i+1].Text != ""
		case strings.HasPrefix(w.Text, "--entrypoint="):
			v := withText(w, w.Text[len("--entrypoint="):])
			return v, v.Text != ""
		}
	}
	return shell.Word{}, false
}

// composeExec returns the command of docker compose exec or run, or nil.
func composeExec(a []shell.Word) []shell.Word {
	a = skipOpts(a, "fp", "file project-name profile env-file project-directory")
	if len(a) == 0 || a[0].Text != "exec" && a[0].Text != "run" {
		return nil
	}
	rest := skipOpts(a[1:], "euw", "env user workdir index name entrypoint volume publish label")
	if len(rest) > 0 {
		if ep, ok := entrypoint(a[1 : len(a)-len(rest)]); ok {
			return append([]shell.Word{ep}, rest[1:]...)
		}
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
	return splitBy(w, func(r rune) bool { return r == ',' || r == ' ' })
}

// splitPaths splits a PowerShell path parameter into paths: a,b; a quoted
// value's blanks are its own ('C:\Program Files\x').
func splitPaths(w shell.Word) []shell.Word {
	if w.Quoted {
		return splitBy(w, func(r rune) bool { return r == ',' })
	}
	return splitList(w)
}

func splitBy(w shell.Word, sep func(rune) bool) []shell.Word {
	if w.Dynamic() {
		return []shell.Word{w}
	}
	var out []shell.Word
	for _, f := range strings.FieldsFunc(w.Text, sep) {
		out = append(out, shell.Lit(strings.Trim(f, `'"`)))
	}
	return out
}
