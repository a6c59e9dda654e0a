package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

const stepIndex = "phases/index.json"

// StepTree converts a step tree into a plan: phases/index.json listing the
// phases, phases/<dir>/index.json holding each one's steps, and the optional
// phases/<dir>/step<N>.md describing each step. fsys is rooted at the
// directory that holds phases/; errors name files by their path inside fsys.
func StepTree(fsys fs.FS) (*task.Plan, error) {
	return stepTree(fsys, func(name string) string { return name }, "phases")
}

// stepTree does the work of [StepTree]; display turns a path inside fsys into
// the name errors show, and fallback names a plan whose steps name no project.
func stepTree(fsys fs.FS, display func(string) string, fallback string) (*task.Plan, error) {
	top, err := readJSONFile(fsys, stepIndex, display)
	if err != nil {
		return nil, err
	}
	r := &jsonReader{file: display(stepIndex)}
	b := newBuilder(display(stepIndex))
	seen := map[string]bool{}
	for i, pv := range r.list(top, "phases", "phases", true) {
		field := fmt.Sprintf("phases[%d]", i)
		if pv.kind != jsonObject {
			r.fail(pv, field, "expected an object, got %s", pv.describe())
			break
		}
		dir := r.str(pv, "dir", field+".dir", true)
		status := r.str(pv, "status", field+".status", false)
		title := r.str(pv, "description", field+".description", false)
		if r.err != nil {
			break
		}
		switch status {
		case "", "pending", "completed", "error", "blocked":
		default:
			r.fail(pv.get("status"), field+".status", "unknown status %s: want pending, completed, error or blocked", quote.String(status))
		}
		if !fs.ValidPath(dir) || dir == "." || strings.Contains(dir, `\`) {
			r.fail(pv.get("dir"), field+".dir", "%s is not a directory name inside phases/", quote.String(dir))
		} else if seen[dir] {
			r.fail(pv.get("dir"), field+".dir", "phase %s is listed twice", quote.String(dir))
		}
		if r.err != nil {
			break
		}
		seen[dir] = true
		name := "phases/" + dir + "/index.json"
		if _, err := fs.Stat(fsys, name); errors.Is(err, fs.ErrNotExist) {
			r.fail(pv.get("dir"), field+".dir", "%s does not exist", quote.Cut(display(name), maxName))
			break
		}
		if err := readSteps(b, fsys, dir, title, display); err != nil {
			return nil, err
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if b.name == "" {
		b.name = fallback
	}
	return b.plan()
}

// readSteps adds the phase in phases/<dir>/ to b.
func readSteps(b *builder, fsys fs.FS, dir, title string, display func(string) string) error {
	name := "phases/" + dir + "/index.json"
	idx, err := readJSONFile(fsys, name, display)
	if err != nil {
		return err
	}
	r := &jsonReader{file: display(name)}
	project := r.str(idx, "project", "project", false)
	if phase := r.str(idx, "phase", "phase", false); title == "" {
		title = phase
	}
	steps := r.list(idx, "steps", "steps", true)
	if r.err != nil {
		return r.err
	}
	if b.name == "" {
		b.name = slug(project)
	}
	if title == "" {
		title = dir
	}
	ph := b.phase(dir, dir, title, idx.at, name)
	// Each step is its own task, so errors point into this file.
	for i, sv := range steps {
		field := fmt.Sprintf("steps[%d]", i)
		if sv.kind != jsonObject {
			r.fail(sv, field, "expected an object, got %s", sv.describe())
			return r.err
		}
		num, _ := r.key(sv, "step", field+".step", true)
		t := &taskDraft{at: sv.at, field: field}
		t.Title = r.str(sv, "name", field+".name", true)
		status := r.str(sv, "status", field+".status", true)
		started := r.str(sv, "started_at", field+".started_at", false)
		summary := r.str(sv, "summary", field+".summary", false)
		failure := r.str(sv, "error_message", field+".error_message", false)
		blocked := r.str(sv, "blocked_reason", field+".blocked_reason", false)
		if r.err != nil {
			return r.err
		}
		switch status {
		case "pending":
			// The executor stamps started_at before it runs a step, so a
			// pending step with it was cut off mid-way.
			t.Status = task.StatusTodo
			if started != "" {
				t.Status = task.StatusDoing
			}
		case "completed":
			t.Status = task.StatusDone
		case "error", "blocked":
			t.Status = task.StatusDoing
		default:
			r.fail(sv.get("status"), field+".status", "unknown status %s: want pending, completed, error or blocked", quote.String(status))
			return r.err
		}
		spec, err := readStepFile(fsys, "phases/"+dir+"/step"+num+".md", display)
		if err != nil {
			return err
		}
		t.Acceptance = stepChecks(spec)
		t.Objective = joinLines(spec,
			prefixed("Summary: ", summary),
			prefixed("Last error: ", failure),
			prefixed("Blocked: ", blocked))
		t.file = display(name)
		b.add(ph, t, withSuffix(slug(dir), "-step"+slug(num)))
	}
	return nil
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
// heading that names them, each line of a shell code block is a command and
// each list item a criterion (see [criterion]).
func stepChecks(md string) []task.Check {
	var checks []task.Check
	section := 0 // the level of the acceptance heading we are under; 0 outside
	var fence, lang string
	var block []string
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\r\n")
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) && strings.Trim(strings.TrimSpace(line), fence[:1]) == "" {
				if section > 0 && isShell(lang) {
					checks = append(checks, blockChecks(block)...)
				}
				fence, block = "", nil
				continue
			}
			block = append(block, line)
			continue
		}
		if m := mdFence().FindStringSubmatch(line); m != nil {
			fence, lang = m[1], strings.ToLower(m[2])
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

func isShell(lang string) bool {
	switch lang {
	case "", "bash", "sh", "shell", "zsh", "console":
		return true
	}
	return false
}

// blockChecks makes one command of each line of a shell block, joining lines
// continued with a backslash and skipping comments.
func blockChecks(lines []string) []task.Check {
	var checks []task.Check
	var cmd string
	flush := func() {
		cmd = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cmd), "$ "))
		if !strings.HasPrefix(cmd, "#") {
			if c, ok := command(cmd); ok {
				checks = append(checks, c)
			}
		}
		cmd = ""
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			cmd += cont + " "
			continue
		}
		cmd += line
		flush()
	}
	flush()
	return checks
}
