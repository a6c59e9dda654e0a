package seed

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// PromptInput is what the seeding prompt is made of.
type PromptInput struct {
	PRDPath, PRD string
	Name         string
	Files        []string // the repository's files, relative
	Guardrails   []string
	// Problems are those of the previous draft, fed back; Previous is that
	// draft.
	Problems []string
	Previous []byte
}

// Prompt renders the seeding prompt.
func Prompt(in PromptInput) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Draft a harnish plan\n\n")
	w("Read the PRD below and the repository, then write the harnish plan %q as YAML to the file %s in the repository's root. Do not change any other file.\n\n", in.Name, DraftFile)
	w("## Seeding rules\n\n")
	w("- Phases in this order: data, then business logic, then UI, then integration tests (leave out a phase the PRD does not need).\n")
	w("- One task is one file, one function, one test or one config.\n")
	w("- Every task has acceptance checks that run, taken from the PRD's test section: `run: [argv]` (no shell), `sh: \"script\"`, or `gotest: ./pkg/...`. A `manual:` item may be added, never alone. A task without a check that runs is refused.\n")
	w("- `files` lists the paths the task may change; `depends_on` names tasks of the same or an earlier phase.\n")
	w("- IDs: letters, digits, '.', '_', '-'.\n\n")
	w("## The plan's form\n\n```yaml\nversion: 1\nname: %s\nphases:\n  - id: data\n    title: Data model\n    tasks:\n      - id: T1\n        title: Cache entry type\n        objective: What is true when the task is done.\n        files: [internal/cache/entry.go, internal/cache/entry_test.go]\n        acceptance:\n          - run: [go, test, ./internal/cache/...]\n  - id: logic\n    title: Business logic\n    tasks:\n      - id: T2\n        title: Read-through lookup\n        files: [internal/cache/lookup.go]\n        depends_on: [T1]\n        acceptance:\n          - gotest: ./internal/cache/...\n```\n\n", in.Name)
	if len(in.Guardrails) > 0 {
		w("## Guardrails known for this work\n\n")
		for _, g := range in.Guardrails {
			w("- %s\n", g)
		}
		w("\n")
	}
	if len(in.Problems) > 0 {
		w("## Your previous draft was refused\n\nFix every problem below and write the whole plan again to %s.\n\n", DraftFile)
		for _, p := range in.Problems {
			w("- %s\n", p)
		}
		w("\nThe previous draft:\n\n```yaml\n%s\n```\n\n", strings.TrimSpace(string(in.Previous)))
	}
	if len(in.Files) > 0 {
		w("## The repository's files\n\n")
		for _, f := range in.Files {
			w("- %s\n", f)
		}
		w("\n")
	}
	w("## The PRD (%s)\n\n%s\n", in.PRDPath, strings.TrimSpace(in.PRD))
	return b.String()
}

// maxFiles bounds the files listed in the prompt.
const maxFiles = 300

// listFiles lists the repository's files, skipping hidden and vendored
// directories, at most maxFiles.
func listFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxFiles {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(name, ".") || slices.Contains([]string{"node_modules", "vendor", "dist", "build", "target"}, name)) {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != DraftFile {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}
