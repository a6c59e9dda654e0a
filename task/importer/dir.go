package importer

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/task"
)

// The files [Dir] looks for, relative to the directory.
var (
	progressFiles = []string{".harnish/harnish-current-work.json", "harnish-current-work.json"}
	plansFile     = "Plans.md"
)

// Dir finds the one source of a plan in dir (a harnish progress file, in
// .harnish/ or dir itself; a step tree, phases/index.json; or Plans.md) and
// converts it. Finding none is an error that wraps [fs.ErrNotExist] and lists
// what was looked for; finding more than one is an error too, since which of
// them is current cannot be told: convert the right one with [ProgressFile],
// [StepTree] or [PlansMD].
func Dir(dir string) (*task.Plan, error) {
	candidates := []string{progressFiles[0], progressFiles[1], stepIndex, plansFile}
	var sources []string
	for _, name := range candidates {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if name == progressFiles[1] && slices.Contains(sources, progressFiles[0]) {
			continue // the one in .harnish/ is the live one
		}
		sources = append(sources, name)
	}
	switch {
	case len(sources) == 0:
		return nil, fmt.Errorf("importer: %s: no plan to import: looked for %s: %w",
			dir, strings.Join(candidates, ", "), fs.ErrNotExist)
	case len(sources) > 1:
		return nil, fmt.Errorf("importer: %s: more than one plan to import (%s): convert one with ProgressFile, StepTree or PlansMD",
			dir, strings.Join(sources, ", "))
	}
	src := sources[0]
	fsys := os.DirFS(cmp.Or(dir, "."))
	display := func(name string) string { return filepath.Join(dir, filepath.FromSlash(name)) }
	if src == stepIndex {
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		return stepTree(fsys, display, nameOr(slug(filepath.Base(abs)), "phases"))
	}
	data, err := readFile(fsys, src, display)
	if err != nil {
		return nil, err
	}
	if src == plansFile {
		return PlansMD(display(src), data)
	}
	return ProgressFile(display(src), data)
}

func nameOr(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name
}
