package importer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/internal/quote"
)

// Format names a peer format.
type Format string

// The formats [Import] reads.
const (
	FormatAuto     Format = "auto"     // find out from the path
	FormatProgress Format = "progress" // a harnish progress file, harnish-current-work.json
	FormatSteps    Format = "steps"    // a step tree, phases/index.json and its phases
	FormatPlansMD  Format = "plansmd"  // a Plans.md task list
)

// ParseFormat reads a format's name; "" is [FormatAuto].
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case "":
		return FormatAuto, nil
	case FormatAuto, FormatProgress, FormatSteps, FormatPlansMD:
		return f, nil
	}
	return "", fmt.Errorf("importer: unknown format %s: want auto, progress, steps or plansmd", quote.String(s))
}

// Options tunes [Import]. The zero value finds the format from the path.
type Options struct {
	// Format is the source's format; empty or [FormatAuto] finds it out.
	Format Format
	// Plan names one plan of a Plans.md project that registers several in
	// plans/manifest.json. Empty means the active one
	// (.claude/state/active-plan.json), else the default, Plans.md.
	Plan string
}

// Result is an imported plan and what the import could not carry over.
type Result struct {
	Plan *task.Plan
	// Format is the format that was read.
	Format Format
	// Source is the file (for a step tree, phases/index.json) the plan came
	// from.
	Source string
	// Warnings lists, in the order found, what the plan does not hold as the
	// source says it: fields dropped, values read another way, rows skipped.
	Warnings []Warning

	sources map[string]source // by the plan's task ID, for Writer
	root    string            // a step tree's directory
}

// Import reads the plan at path: a progress file, a Plans.md, a step tree's
// phases/index.json, or a directory holding one of them (see [Dir] for
// what is looked for). A progress file's archive,
// harnish-progress-archive.jsonl beside it, is read too.
//
// Import fails only when there is no plan to be had: the file cannot be read
// or parsed at all, or it holds no task. Anything less is a warning in the
// result, and the rest of the source is imported.
func Import(p string, opts Options) (*Result, error) {
	format := cmp.Or(opts.Format, FormatAuto)
	if _, err := ParseFormat(string(format)); err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fileError(p, err)
	}
	dir, name := p, ""
	if !st.IsDir() {
		dir, name = filepath.Dir(p), filepath.Base(p)
		if format == FormatAuto {
			format = formatOf(p)
		}
		if format == FormatSteps && name == "index.json" {
			dir, name = filepath.Dir(dir), "" // phases/index.json: the tree's root is above
		}
	}
	w := &warnings{}
	var res *Result
	switch {
	case name == "":
		res, err = importDir(dir, format, opts.Plan, w)
	case format == FormatProgress:
		res, err = importProgress(dir, name, w)
	case format == FormatPlansMD:
		res, err = importPlansMD(dir, name, w)
	default:
		return nil, fmt.Errorf("importer: %s: cannot tell the format from the name; say which with Options.Format", p)
	}
	if err != nil {
		return nil, err
	}
	res.Warnings = w.done()
	return res, nil
}

// formatOf guesses a file's format from its name.
func formatOf(p string) Format {
	base := strings.ToLower(filepath.Base(p))
	switch {
	case base == "index.json" && filepath.Base(filepath.Dir(p)) == "phases":
		return FormatSteps
	case strings.HasSuffix(base, ".json"):
		return FormatProgress
	case strings.HasSuffix(base, ".md"), strings.HasSuffix(base, ".markdown"):
		return FormatPlansMD
	}
	return FormatAuto
}

// The files [Dir] looks for, relative to the directory.
var (
	progressFiles = []string{".harnish/harnish-current-work.json", "harnish-current-work.json"}
	plansFile     = "Plans.md"
	plansManifest = "plans/manifest.json"
	activePlan    = ".claude/state/active-plan.json"
)

const archiveFile = "harnish-progress-archive.jsonl"

func importDir(dir string, format Format, plan string, w *warnings) (*Result, error) {
	if (format == FormatAuto || format == FormatSteps) && filepath.Base(filepath.Clean(dir)) == "phases" && isFile(filepath.Join(dir, "index.json")) &&
		!isFile(filepath.Join(dir, stepIndex)) {
		dir = filepath.Dir(filepath.Clean(dir)) // the phases/ directory itself
	}
	var sources []string
	for _, name := range []string{progressFiles[0], progressFiles[1], stepIndex, plansFile, plansManifest} {
		if !isFile(filepath.Join(dir, filepath.FromSlash(name))) {
			continue
		}
		switch {
		case name == progressFiles[1] && slices.Contains(sources, progressFiles[0]):
			continue // the one in .harnish/ is the live one
		case name == plansManifest && slices.Contains(sources, plansFile):
			continue
		}
		sources = append(sources, name)
	}
	sources = slices.DeleteFunc(sources, func(name string) bool {
		switch format {
		case FormatProgress:
			return !slices.Contains(progressFiles, name)
		case FormatSteps:
			return name != stepIndex
		case FormatPlansMD:
			return name != plansFile && name != plansManifest
		}
		return false
	})
	switch {
	case len(sources) == 0:
		return nil, fmt.Errorf("importer: %s: no plan to import: looked for %s: %w",
			dir, strings.Join([]string{progressFiles[0], progressFiles[1], stepIndex, plansFile}, ", "), fs.ErrNotExist)
	case len(sources) > 1:
		return nil, fmt.Errorf("importer: %s: more than one plan to import (%s): say which with a format (progress, steps, plansmd)",
			dir, strings.Join(sources, ", "))
	}
	switch src := sources[0]; src {
	case stepIndex:
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		display := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
		p, srcs, err := stepTree(os.DirFS(cmp.Or(dir, ".")), display, nameOr(slug(filepath.Base(abs)), "phases"), w)
		if err != nil {
			return nil, err
		}
		return &Result{Plan: p, Format: FormatSteps, Source: display(stepIndex), sources: srcs, root: dir}, nil
	case plansFile, plansManifest:
		name, err := namedPlan(dir, plan, w)
		if err != nil {
			return nil, err
		}
		return importPlansMD(dir, name, w)
	default:
		return importProgress(dir, src, w)
	}
}

func isFile(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

func importProgress(dir, name string, w *warnings) (*Result, error) {
	fsys := os.DirFS(cmp.Or(dir, "."))
	display := func(n string) string { return filepath.Join(dir, filepath.FromSlash(n)) }
	data, err := readFile(fsys, filepath.ToSlash(name), display)
	if err != nil {
		return nil, err
	}
	archName := path.Join(path.Dir(filepath.ToSlash(name)), archiveFile)
	archive, err := readFile(fsys, archName, display)
	if errors.Is(err, fs.ErrNotExist) {
		archive, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	p, srcs, err := progressFile(display(name), data, display(archName), archive, w)
	if err != nil {
		return nil, err
	}
	return &Result{Plan: p, Format: FormatProgress, Source: display(name), sources: srcs}, nil
}

func importPlansMD(dir, name string, w *warnings) (*Result, error) {
	fsys := os.DirFS(cmp.Or(dir, "."))
	display := func(n string) string { return filepath.Join(dir, filepath.FromSlash(n)) }
	data, err := readFile(fsys, filepath.ToSlash(name), display)
	if err != nil {
		return nil, err
	}
	p, srcs, err := plansMD(display(name), data, w)
	if err != nil {
		return nil, err
	}
	return &Result{Plan: p, Format: FormatPlansMD, Source: display(name), sources: srcs}, nil
}

// namedPlan picks the Plans.md file of dir: the plan named, else the active
// one, else the default. It warns of the named plans not imported.
func namedPlan(dir, want string, w *warnings) (string, error) {
	manifestPath := filepath.Join(dir, filepath.FromSlash(plansManifest))
	plans := map[string]string{}
	var names []string
	if data, err := os.ReadFile(manifestPath); err == nil && len(data) <= task.MaxPlanSize {
		if root, err := parseJSON(manifestPath, data); err != nil {
			w.add(manifestPath, pos{}, "", "not read: %v", err)
		} else if root.kind == jsonObject {
			if pv := root.get("plans"); pv != nil && pv.kind == jsonObject {
				for i, key := range pv.keys {
					v := pv.vals[i]
					rel := v.str
					if v.kind == jsonObject {
						if pp := v.get("path"); pp != nil {
							rel = pp.str
						}
					}
					if rel == "" || !fs.ValidPath(rel) {
						w.add(manifestPath, v.at, "plans."+key, "not a path inside the project; plan left out")
						continue
					}
					plans[key] = rel
					names = append(names, key)
				}
			}
		}
	}
	if want == "" {
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(activePlan))); err == nil && len(data) <= task.MaxPlanSize {
			if root, err := parseJSON(activePlan, data); err == nil && root.kind == jsonObject {
				for _, k := range []string{"plan", "name", "active", "active_plan"} {
					if v := root.get(k); v != nil && v.kind == jsonString && plans[v.str] != "" {
						want = v.str
						break
					}
				}
			}
		}
	}
	file := plansFile
	switch {
	case want != "" && plans[want] == "":
		if want == "default" {
			break
		}
		return "", fmt.Errorf("importer: %s: no plan named %s (plans: %s)", manifestPath, quote.String(want), strings.Join(names, ", "))
	case want != "":
		file = plans[want]
	case plans["default"] != "":
		want, file = "default", plans["default"]
	}
	var others []string
	for _, n := range names {
		if plans[n] != file {
			others = append(others, n)
		}
	}
	if len(others) > 0 {
		w.add(manifestPath, pos{}, "plans", "imported %s; the other named plans (%s) were not: import each with its name",
			quote.String(filepath.ToSlash(file)), strings.Join(others, ", "))
	}
	return file, nil
}

// Dir finds the one source of a plan in dir (a harnish progress file, in
// .harnish/ or dir itself; a step tree, phases/index.json; or Plans.md, or
// the plan plans/manifest.json makes active) and converts it. Finding none
// is an error that wraps [fs.ErrNotExist] and lists what was looked for;
// finding more than one is an error too, since which of them is current
// cannot be told: convert the right one with [Import] and a format. Use
// [Import] to see the warnings too.
func Dir(dir string) (*task.Plan, error) {
	w := &warnings{}
	res, err := importDir(dir, FormatAuto, "", w)
	if err != nil {
		return nil, err
	}
	return res.Plan, nil
}

func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}

// Parse reads one source given as bytes: a progress file (without its
// archive) or a Plans.md; name names it in errors and warnings, and tells
// the format when format is [FormatAuto].
func Parse(format Format, name string, data []byte) (*Result, error) {
	if format == "" || format == FormatAuto {
		format = formatOf(name)
	}
	w := &warnings{}
	var p *task.Plan
	var srcs map[string]source
	var err error
	switch format {
	case FormatProgress:
		p, srcs, err = progressFile(name, data, "", nil, w)
	case FormatPlansMD:
		p, srcs, err = plansMD(name, data, w)
	default:
		return nil, fmt.Errorf("importer: %s: Parse reads a progress file or a Plans.md, not format %s", quote.Cut(name, maxName), quote.String(string(format)))
	}
	if err != nil {
		return nil, err
	}
	return &Result{Plan: p, Format: format, Source: name, Warnings: w.done(), sources: srcs}, nil
}

// ParseStepTree reads the step tree in fsys, rooted at the directory that
// holds phases/, as [StepTree] does, with its warnings.
func ParseStepTree(fsys fs.FS) (*Result, error) {
	w := &warnings{}
	p, _, err := stepTree(fsys, func(name string) string { return name }, "phases", w)
	if err != nil {
		return nil, err
	}
	return &Result{Plan: p, Format: FormatSteps, Source: stepIndex, Warnings: w.done()}, nil
}
