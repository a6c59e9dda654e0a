package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

const stepIndex = "phases/index.json"

// StepTree converts a step tree into a plan: phases/index.json listing the
// phases, phases/<dir>/index.json holding each one's steps, and the optional
// phases/<dir>/step<N>.md describing each step. fsys is rooted at the
// directory that holds phases/; errors name files by their path inside fsys.
// Use [Import] to see the warnings too.
func StepTree(fsys fs.FS) (*task.Plan, error) {
	p, _, err := stepTree(fsys, func(name string) string { return name }, "phases", &warnings{})
	return p, err
}

// stepTree does the work of [StepTree]; display turns a path inside fsys into
// the name errors show, and fallback names a plan whose steps name no project.
func stepTree(fsys fs.FS, display func(string) string, fallback string, w *warnings) (*task.Plan, map[string]source, error) {
	top, err := readJSONFile(fsys, stepIndex, display)
	if err != nil {
		return nil, nil, err
	}
	r := &jsonReader{file: display(stepIndex), w: w}
	b := newBuilder(display(stepIndex), w)
	seen := map[string]bool{}
	list := r.list(top, "phases", "phases")
	if top.get("phases") == nil {
		return nil, nil, errorf(display(stepIndex), top.at, "phases", "required: the list of phases")
	}
	for i, pv := range list {
		field := fmt.Sprintf("phases[%d]", i)
		var dir, status, title string
		switch pv.kind {
		case jsonString:
			dir = pv.str
		case jsonObject:
			r.unknown(pv, field, "dir", "status", "description", "name", "completed_at", "failed_at", "blocked_at", "started_at", "created_at")
			dir = r.str(pv, "dir", field+".dir")
			status = r.str(pv, "status", field+".status")
			title = orText(r.str(pv, "description", field+".description"), r.str(pv, "name", field+".name"))
		default:
			r.warnf(pv, field, "expected a phase object, got %s; not imported", pv.describe())
			continue
		}
		at := pv
		if d := pv.get("dir"); d != nil {
			at = d
		}
		switch {
		case dir == "":
			r.warnf(pv, field+".dir", "missing; phase not imported")
			continue
		case !fs.ValidPath(dir) || dir == "." || strings.Contains(dir, `\`):
			r.warnf(at, field+".dir", "%s is not a directory name inside phases/; phase not imported", quote.String(dir))
			continue
		case seen[dir]:
			r.warnf(at, field+".dir", "phase %s is listed twice; imported once", quote.String(dir))
			continue
		}
		seen[dir] = true
		if _, ok := stepStatus(status); !ok && status != "" {
			r.warnf(pv.get("status"), field+".status", "unknown status %s; the steps' own statuses are used", quote.String(status))
		}
		name := "phases/" + dir + "/index.json"
		if _, err := fs.Stat(fsys, name); errors.Is(err, fs.ErrNotExist) {
			// The executor needs only the phase it runs; later ones are
			// often listed before they are written.
			r.warnf(at, field+".dir", "%s does not exist yet; phase %s (%s) not imported",
				quote.Cut(display(name), maxName), quote.String(dir), orText(status, "pending"))
			continue
		}
		if err := readSteps(b, fsys, dir, title, display); err != nil {
			// The executor reads a phase's files only when it runs that
			// phase, so one that cannot be read leaves the others be.
			var fe *Error
			if !errors.As(err, &fe) {
				return nil, nil, err
			}
			r.warnf(at, field+".dir", "phase %s not imported: %s", quote.String(dir), strings.TrimPrefix(err.Error(), "importer: "))
		}
	}
	if b.name == "" {
		b.name = fallback
	}
	return b.result()
}

// stepStatus reads a status word of the step executor, and the synonyms
// other tools write: completed is done; error and blocked are doing (begun,
// not finished); pending is to do.
func stepStatus(s string) (task.Status, bool) {
	switch strings.ToLower(strings.NewReplacer("-", "_", " ", "_").Replace(strings.TrimSpace(s))) {
	case "completed", "complete", "done", "success", "succeeded", "passed", "finished", "approved",
		"skipped", "cancelled", "canceled", "obsolete":
		return task.StatusDone, true
	case "error", "failed", "failure", "blocked", "in_progress", "inprogress", "running", "wip", "doing",
		"started", "active", "review", "in_review", "awaiting_review", "rejected":
		return task.StatusDoing, true
	case "pending", "todo", "to_do", "planned", "not_started", "queued", "ready", "open", "new", "":
		return task.StatusTodo, true
	}
	return task.StatusTodo, false
}

// notDone lists the done words that mean the work was not done but is not
// to be done.
var notDone = []string{"skipped", "cancelled", "canceled", "obsolete"}

// readSteps adds the phase in phases/<dir>/ to b.
func readSteps(b *builder, fsys fs.FS, dir, title string, display func(string) string) error {
	name := "phases/" + dir + "/index.json"
	idx, err := readJSONFile(fsys, name, display)
	if err != nil {
		return err
	}
	r := &jsonReader{file: display(name), w: b.warn}
	project := r.str(idx, "project", "project")
	if phase := r.str(idx, "phase", "phase"); title == "" {
		title = phase
	}
	if idx.get("steps") == nil {
		return errorf(display(name), idx.at, "steps", "required: the list of steps")
	}
	steps := r.list(idx, "steps", "steps")
	if b.name == "" {
		b.name = slug(project)
	}
	if title == "" {
		title = dir
	}
	ph := b.phase(dir, dir, title, idx.at, name)
	var ready []*taskDraft
	// Each step is its own task, so errors point into this file.
	for i, sv := range steps {
		field := fmt.Sprintf("steps[%d]", i)
		if sv.kind != jsonObject {
			r.warnf(sv, field, "expected a step object, got %s; not imported", sv.describe())
			continue
		}
		r.unknown(sv, field, "step", "name", "status", "summary", "error_message", "blocked_reason", "started_at",
			"completed_at", "failed_at", "blocked_at", "description", "depends_on", "files", "timeout_seconds", "timeout",
			"timeout_sec", "verify", "success_metric", "run_dirs", "eval_command", "targets", "tests", "spec", "contract",
			"kind", "actions", "domains", "max_retries", "checkpoint")
		num := r.key(sv, "step", field+".step")
		if num == "" {
			num = strconv.Itoa(i)
			r.warnf(sv, field+".step", "missing; taken as step %s", num)
		}
		t := &taskDraft{at: sv.at, field: field, rawID: dir + "/step" + num, src: source{dir: dir, num: num}}
		t.Title = r.str(sv, "name", field+".name")
		if strings.TrimSpace(t.Title) == "" {
			t.Title = "step " + num
			r.warnf(sv, field+".name", "missing; the step is titled %s", quote.String(t.Title))
		}
		status := r.str(sv, "status", field+".status")
		st, ok := stepStatus(status)
		switch {
		case !ok:
			r.warnf(sv.get("status"), field+".status", "unknown status %s; taken as pending", quote.String(status))
		case slices.Contains(notDone, strings.ToLower(status)):
			r.warnf(sv.get("status"), field+".status", "%s: imported as done, so it does not run", quote.String(status))
		}
		// The executor stamps started_at before it runs a step, so a
		// pending step with it was cut off mid-way.
		if st == task.StatusTodo && r.str(sv, "started_at", field+".started_at") != "" {
			st = task.StatusDoing
		}
		t.Status = st
		summary := r.str(sv, "summary", field+".summary")
		failure := r.str(sv, "error_message", field+".error_message")
		blocked := r.str(sv, "blocked_reason", field+".blocked_reason")
		// A step's own time limit, as forks of the executor write it.
		for _, k := range []string{"timeout_seconds", "timeout", "timeout_sec"} {
			if v := sv.get(k); v != nil && v.kind == jsonNumber {
				n, err := strconv.ParseFloat(v.str, 64)
				switch {
				case err == nil && n >= 1 && n <= task.MaxTaskTimeout.Seconds():
					t.Budget.TaskTimeout = task.Duration(time.Duration(n * float64(time.Second)))
				case err == nil && n > task.MaxTaskTimeout.Seconds():
					t.Budget.TaskTimeout = task.Duration(task.MaxTaskTimeout)
					r.warnf(v, field+"."+k, "%s seconds is more than harnish allows a task; taken as %s", v.str, task.MaxTaskTimeout)
				default:
					r.warnf(v, field+"."+k, "%s seconds is out of range 1..86400; not imported", v.str)
				}
			}
		}
		if v := sv.get("max_retries"); v != nil && v.kind == jsonNumber {
			// The executor's retries after the first attempt.
			if n, err := strconv.Atoi(v.str); err == nil && n >= 0 && n < task.MaxAttempts {
				t.Budget.Attempts = n + 1
			} else {
				r.warnf(v, field+".max_retries", "%s is out of range 0..%d; not imported", v.str, task.MaxAttempts-1)
			}
		}
		t.deps = qualify(dir, r.strings(sv, "depends_on", field+".depends_on"))
		t.Files = r.strings(sv, "files", field+".files")
		fork := forkStep(r, sv, field)
		t.Files = append(t.Files, fork.files...)
		t.Tags = append(t.Tags, fork.tags...)
		t.depAt, t.depF = sv.at, field+".depends_on"
		stepName := "phases/" + dir + "/step" + num + ".md"
		spec, err := readStepFile(fsys, stepName, display)
		if err != nil {
			return err
		}
		front, body := frontMatter(spec)
		if front != nil {
			t.deps = append(t.deps, qualify(dir, front.list("depends_on", "depends", "dependencies"))...)
			t.Files = append(t.Files, front.list("files", "scope", "target_files")...)
			for _, k := range front.keys {
				if !slices.Contains([]string{"depends_on", "depends", "dependencies", "files", "scope", "target_files",
					"name", "title", "step", "phase"}, k) {
					b.warn.add(display(stepName), pos{line: front.lines[k]}, k, "front matter field not read; not imported")
				}
			}
		}
		t.Acceptance = append(fork.checks, stepChecks(body, display(stepName), b.warn)...)
		t.Objective = joinLines(body, fork.notes,
			prefixed("Summary: ", summary),
			prefixed("Last error: ", failure),
			prefixed("Blocked: ", blocked))
		t.file = display(name)
		t.src.num = num
		ready = append(ready, t)
	}
	// Added only once the whole phase read, so a phase is in or out.
	for _, t := range ready {
		b.add(ph, t, withSuffix(slug(dir), "-step"+slug(t.src.num)))
	}
	return nil
}

// forkFields is what forks of the executor add to a step and run or read
// themselves: a "verify" command the executor runs through the shell from
// the tree's root before it takes a step as completed, a "success_metric"
// (a jq test on the step's run directory, "{run_dir}" standing for
// runs/<run_dirs[0]>), "targets" (the paths the step may touch, globs
// ending in "/**" for a directory), "tests" and "spec" files, a
// "contract", an "eval_command", and "kind", "actions" and "domains" labels.
type forkFields struct {
	checks []task.Check
	files  []string
	tags   []string
	notes  string
}

func forkStep(r *jsonReader, sv *jsonValue, field string) forkFields {
	var f forkFields
	if v := strings.TrimSpace(r.str(sv, "verify", field+".verify")); v != "" {
		f.checks = append(f.checks, task.Check{Sh: v})
	}
	if m := strings.TrimSpace(r.str(sv, "success_metric", field+".success_metric")); m != "" {
		dirs := r.strings(sv, "run_dirs", field+".run_dirs")
		switch {
		case !strings.Contains(m, "{run_dir}"):
			f.checks = append(f.checks, task.Check{Sh: m})
		case len(dirs) > 0:
			// The executor puts runs/<dir> for {run_dir}; a metric that
			// writes runs/{run_dir} itself means the same directory.
			run := "runs/" + dirs[0]
			f.checks = append(f.checks, task.Check{Sh: strings.ReplaceAll(strings.ReplaceAll(m, "runs/{run_dir}", run), "{run_dir}", run)})
		default:
			// The run directory is known only once the step has run.
			f.checks = append(f.checks, task.Check{Manual: "success metric, on the step's run directory runs/<run>: " + m})
		}
	}
	if cp := strings.TrimSpace(r.str(sv, "checkpoint", field+".checkpoint")); cp != "" {
		// The executor stops after the step for a person to approve it.
		f.checks = append(f.checks, task.Check{Manual: "checkpoint " + cp + ": a person reviews the step's results and approves it"})
	}
	for _, k := range []string{"targets", "tests"} {
		for _, p := range r.strings(sv, k, field+"."+k) {
			f.files = append(f.files, strings.TrimSuffix(strings.TrimSuffix(p, "/**"), "/"))
		}
	}
	f.notes = joinLines(
		prefixed("Spec: ", r.str(sv, "spec", field+".spec")),
		prefixed("Contract: ", r.str(sv, "contract", field+".contract")),
		prefixed("Evaluation: ", r.str(sv, "eval_command", field+".eval_command")))
	for _, k := range []string{"kind", "actions", "domains"} {
		for _, v := range r.strings(sv, k, field+"."+k) {
			f.tags = append(f.tags, strings.TrimSuffix(k, "s")+":"+v)
		}
	}
	return f
}

// qualify turns the step references of a step in dir ("2", "step2",
// "1-api/step2", "1-api:2") into the raw IDs the builder knows.
func qualify(dir string, refs []string) []string {
	var out []string
	for _, ref := range refs {
		d, num := dir, ref
		if i := strings.LastIndexAny(ref, "/:"); i >= 0 {
			d, num = strings.TrimPrefix(ref[:i], "phases/"), ref[i+1:]
		}
		num = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(num), "step"), "-"), ".md")
		out = append(out, d+"/step"+strings.TrimSpace(num))
	}
	return out
}

// front is the YAML front matter of a step file, read as flat keys with a
// value or a list of values.
type front struct {
	keys  []string
	vals  map[string][]string
	lines map[string]int
}

func (f *front) list(keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, f.vals[k]...)
	}
	return out
}

// frontMatter splits a step file into its front matter ("---" lines around
// "key: value", "key: [a, b]" and "- item" lines) and its body.
func frontMatter(md string) (*front, string) {
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		rest, ok = strings.CutPrefix(md, "---\r\n")
	}
	if !ok {
		return nil, md
	}
	f := &front{vals: map[string][]string{}, lines: map[string]int{}}
	var key string
	line := 1
	for len(rest) > 0 {
		l, next, _ := strings.Cut(rest, "\n")
		rest = next
		line++
		l = strings.TrimRight(l, "\r")
		t := strings.TrimSpace(l)
		switch {
		case t == "---":
			return f, strings.TrimSpace(rest)
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "- ") && key != "":
			f.vals[key] = append(f.vals[key], unquoteYAML(t[2:]))
		default:
			k, v, ok := strings.Cut(t, ":")
			if !ok {
				continue
			}
			key = strings.TrimSpace(k)
			if _, dup := f.lines[key]; !dup {
				f.keys = append(f.keys, key)
				f.lines[key] = line
			}
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
				for _, e := range strings.Split(v[1:len(v)-1], ",") {
					if e = unquoteYAML(e); e != "" {
						f.vals[key] = append(f.vals[key], e)
					}
				}
			} else if v = unquoteYAML(v); v != "" {
				f.vals[key] = append(f.vals[key], v)
			}
		}
	}
	return nil, md // no closing line: not front matter
}

func unquoteYAML(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

// withSuffix appends suffix to id, shortening id so the result stays an ID.
func withSuffix(id, suffix string) string {
	if len(id)+len(suffix) > 64 {
		id = trimID(id[:max(0, 64-len(suffix))])
	}
	return slug(id + suffix)
}

func readJSONFile(fsys fs.FS, name string, display func(string) string) (*jsonValue, error) {
	data, err := readFile(fsys, name, display)
	if err != nil {
		return nil, err
	}
	v, err := parseJSON(display(name), data)
	if err != nil {
		return nil, err
	}
	if v.kind != jsonObject {
		return nil, errorf(display(name), v.at, "", "expected an object, got %s", v.describe())
	}
	return v, nil
}

// readStepFile returns the step's description, or "" when it has none.
func readStepFile(fsys fs.FS, name string, display func(string) string) (string, error) {
	data, err := readFile(fsys, name, display)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) { // as in Plans.md; a plan holds only text
		return "", errorf(display(name), pos{}, "", "not UTF-8 text")
	}
	return strings.TrimSpace(string(data)), nil
}

var (
	mdHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}(#{1,6})(?:\s+(.*?))?\s*$`)
	})
	acHeading = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)acceptance|\bAC\b|수락 ?기준|인수 ?조건|완료 ?조건|受け?入れ?条件|完了条件`)
	})
	mdFence = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^\\s`]*)")
	})
	mdItem = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
	})
)

// stepChecks finds the acceptance criteria of a step description: under a
// heading that names them, each list item is a criterion (see [criterion])
// and each code block a command check (see [blockChecks]).
func stepChecks(md, file string, w *warnings) []task.Check {
	var checks []task.Check
	section := 0 // the level of the acceptance heading we are under; 0 outside
	var fence, lang string
	var block []string
	fenceLine := 0
	for n, line := range strings.Split(md, "\n") {
		line = strings.TrimRight(line, "\r")
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) && strings.Trim(strings.TrimSpace(line), fence[:1]) == "" {
				if section > 0 {
					checks = append(checks, blockChecks(block, lang, file, fenceLine, w)...)
				}
				fence, block = "", nil
				continue
			}
			block = append(block, line)
			continue
		}
		if m := mdFence().FindStringSubmatch(line); m != nil {
			fence, lang, fenceLine = m[1], strings.ToLower(m[2]), n+1
			continue
		}
		if m := mdHeading().FindStringSubmatch(line); m != nil {
			level := len(m[1])
			switch {
			case acHeading().MatchString(m[2]):
				section = level
			case section > 0 && level <= section:
				section = 0
			}
			continue
		}
		if m := mdItem().FindStringSubmatch(line); m != nil && section > 0 {
			checks = addCriterion(checks, m[1])
		}
	}
	return checks
}

// Interpreters of the code blocks that are not shell.
var interpreters = map[string][]string{
	"powershell": {"pwsh", "-NoProfile", "-NonInteractive", "-Command"},
	"pwsh":       {"pwsh", "-NoProfile", "-NonInteractive", "-Command"},
	"ps1":        {"pwsh", "-NoProfile", "-NonInteractive", "-Command"},
	"ps":         {"pwsh", "-NoProfile", "-NonInteractive", "-Command"},
	"python":     {"python3", "-c"},
	"python3":    {"python3", "-c"},
	"py":         {"python3", "-c"},
	"node":       {"node", "-e"},
	"js":         {"node", "-e"},
	"javascript": {"node", "-e"},
}

func isShell(lang string) bool {
	switch lang {
	case "", "bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession":
		return true
	}
	return false
}

// blockChecks makes checks of a code block under the acceptance heading. A
// shell block of independent commands gives one check a command, so a
// failure names its command; a block whose lines depend on each other (cd,
// export, source, variables, control flow, heredocs) is one script run with
// "set -e", as its author ran it. Another language runs with its
// interpreter; one harnish cannot run is a manual check, with a warning.
func blockChecks(lines []string, lang, file string, line int, w *warnings) []task.Check {
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	if text == "" {
		return nil
	}
	if argv, ok := interpreters[lang]; ok {
		return []task.Check{{Run: append(slices.Clone(argv), text)}}
	}
	if !isShell(lang) {
		w.add(file, pos{line: line}, "acceptance", "a %s block is not a command harnish can run; kept as a manual check", quote.String(lang))
		return []task.Check{{Manual: text}}
	}
	if stateful(lines) {
		var script []string
		for _, l := range lines {
			script = append(script, strings.TrimPrefix(strings.TrimSpace(l), "$ "))
		}
		return []task.Check{{Sh: "set -e\n" + strings.TrimSpace(strings.Join(script, "\n"))}}
	}
	var checks []task.Check
	var cmd string
	flush := func() {
		cmd = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cmd), "$ "))
		if i := strings.Index(cmd, " #"); i > 0 && !strings.ContainsAny(cmd[:i], "'\"`\\$") {
			cmd = strings.TrimSpace(cmd[:i]) // a note on the command, not part of it
		}
		if !strings.HasPrefix(cmd, "#") {
			if c, ok := command(cmd); ok {
				checks = append(checks, c)
			}
		}
		cmd = ""
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if cont, ok := strings.CutSuffix(l, `\`); ok {
			cmd += cont + " "
			continue
		}
		cmd += l
		flush()
	}
	flush()
	return checks
}

var (
	// stateLine changes the shell's state for the lines after it, when it
	// is the whole line: "cd server", "export X=1", "source env.sh", "X=1".
	stateLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\$ )?(?:(?:cd|pushd|popd|export|source|\.|set|unset|alias|shopt|trap|readonly|declare|local)(?:\s|$)|[A-Za-z_][A-Za-z0-9_]*=\S*$)`)
	})
	// flowLine belongs to a construct over several lines: control flow, a
	// function, a heredoc.
	flowLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:\$ )?(?:(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|function)(?:\s|$)|[{}]$|[A-Za-z_][A-Za-z0-9_]*\(\)|.*<<-?\s*['"]?[A-Za-z_]+)`)
	})
)

// stateful reports whether the lines of a shell block depend on each other:
// a line that changes the shell's state on its own ("cd server", not "cd
// backend && ./gradlew test", which is written to stand alone), or a
// construct over several lines.
func stateful(lines []string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if flowLine().MatchString(l) {
			return true
		}
		if stateLine().MatchString(l) && !strings.Contains(l, "&&") && !strings.Contains(l, "||") && !strings.Contains(l, ";") {
			return true
		}
	}
	return false
}
