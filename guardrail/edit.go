package guardrail

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The edit rules other than secrets; see "Edit rules" in the package
// documentation.
const (
	RuleEditProtected = "edit.protected"
	RuleEditScope     = "edit.scope"
	RuleEditSize      = "edit.size"
	RuleEditTDD       = "edit.tdd"
)

// DefaultMaxChangedLines is the default of [EditConfig.MaxChangedLines].
const DefaultMaxChangedLines = 100

// EditConfig configures an [EditGuard]. The zero value protects [schema.StateDir],
// scans for secrets, warns about files changing more than
// DefaultMaxChangedLines lines, and has no scope and no TDD rule.
type EditConfig struct {
	// Protected is the set of paths no edit may create, modify, rename or
	// delete (hard). Nil protects [schema.StateDir] and PluginManifest only.
	Protected *Protected
	// Scope maps a task ID to the task's declared files (task.Task.Files):
	// files, directories (everything under them) and path.Match globs,
	// relative to the working tree's root. A change outside the scope of the
	// action's task is soft. A task not in the map, or with no entries, and an
	// action without a task, have no scope rule.
	Scope map[string][]string
	// MaxChangedLines is the most lines (added plus removed) one file may
	// change before a soft decision; binary and generated files are not
	// counted. Zero means DefaultMaxChangedLines; negative turns the rule off.
	MaxChangedLines int
	// TDD configures the test-first rule. The zero value turns it off.
	TDD TDDConfig
	// Tree is the working tree, for test files that exist already and the
	// headers of generated files. Nil means the diff alone is judged.
	Tree fs.FS
}

// EditDecision is a decision about one file of an edit, as
// [EditGuard.CheckEdit] returns it and harnish guard diff --json prints it.
// Its Match is the masked secret of a secret rule and the protected path of
// edit.protected.
type EditDecision struct {
	Decision
	// Path is the file, relative to the working tree's root.
	Path string `json:"path"`
	// Line is the line in the changed file the decision is about; 0 when it
	// is about the whole file.
	Line int `json:"line,omitempty"`
}

// String formats d as "LEVEL RULE PATH:LINE: REASON", leaving out ":LINE"
// when the decision is about the whole file and "PATH:LINE" when it is about
// no file.
func (d EditDecision) String() string {
	if where := d.where(); where != "" {
		return fmt.Sprintf("%s %s %s: %s", d.Level, d.Rule, where, d.Reason)
	}
	return fmt.Sprintf("%s %s: %s", d.Level, d.Rule, d.Reason)
}

// where returns "PATH:LINE", "PATH" or "".
func (d EditDecision) where() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d", d.Path, d.Line)
	}
	return d.Path
}

// EditGuard is the [Guardrail] of the edit rules: protected paths, secrets,
// declared scope, size and test-first. It judges [KindEdit] actions and
// allows every other kind. It is safe for concurrent use.
type EditGuard struct {
	cfg    EditConfig
	scopes map[string]scopeEntries // cfg.Scope compiled
	tdd    tddRule
}

// NewEditGuard returns the guard of cfg, or an error naming the first bad
// setting: an invalid level, a malformed glob, a test pattern without
// {stem}.
func NewEditGuard(cfg EditConfig) (*EditGuard, error) {
	if cfg.Protected == nil {
		cfg.Protected = NewProtected()
	}
	if cfg.MaxChangedLines == 0 {
		cfg.MaxChangedLines = DefaultMaxChangedLines
	}
	scopes := make(map[string]scopeEntries, len(cfg.Scope))
	for id, entries := range cfg.Scope {
		for _, e := range entries {
			if _, err := path.Match(cleanRel(e), ""); err != nil {
				return nil, fmt.Errorf("guardrail: scope of task %q: bad pattern %q", id, e)
			}
		}
		scopes[id] = compileScope(entries)
	}
	tdd, err := newTDDRule(cfg.TDD)
	if err != nil {
		return nil, err
	}
	return &EditGuard{cfg: cfg, scopes: scopes, tdd: tdd}, nil
}

// Check judges an edit: it returns the most severe of [EditGuard.CheckEdit]'s
// decisions (the first hard one, else the first soft one), its reason led by
// the file and line and followed by how many more decisions there were. A
// diff that does not parse is an error, which [Evaluate] makes hard.
func (g *EditGuard) Check(ctx context.Context, a Action) (Decision, error) {
	ds, err := g.CheckAll(ctx, a)
	if err != nil || len(ds) == 0 {
		return Decision{}, err
	}
	worst := ds[0]
	for _, d := range ds[1:] {
		if d.Level > worst.Level {
			worst = d
		}
	}
	if len(ds) > 1 {
		worst.Reason += fmt.Sprintf(" (and %d more)", len(ds)-1)
	}
	return worst, nil
}

// CheckAll returns every decision of [EditGuard.CheckEdit], each reason led
// by its file and line.
func (g *EditGuard) CheckAll(ctx context.Context, a Action) ([]Decision, error) {
	if a.Kind != KindEdit {
		return nil, nil
	}
	ds, err := g.CheckEdit(ctx, a)
	if err != nil {
		return nil, err
	}
	out := make([]Decision, len(ds))
	for i, d := range ds {
		out[i] = d.Decision
		if where := d.where(); where != "" {
			out[i].Reason = where + ": " + d.Reason
		}
	}
	return out, nil
}

// CheckEdit returns every decision about the edit a, file by file in the
// diff's order, and per file in the order protected, secrets, scope, size,
// TDD; nil when everything is allowed. This is what the loop calls on git
// diff after each attempt, with a.Diff the whole diff and a.Path empty.
//
// a.Diff is a unified diff ([ParseDiff]); hunks without file headers are
// taken as changes to a.Path. With a.Diff empty, a.Path alone is judged as
// modified (a hook that sees only the path): secrets and size need content
// and are skipped. With both empty there is nothing to judge. A diff that
// does not parse, or names no file, is an error wrapping [ErrDiff].
func (g *EditGuard) CheckEdit(ctx context.Context, a Action) ([]EditDecision, error) {
	files, pathOnly, err := editFiles(a)
	if err != nil {
		return nil, err
	}
	inDiff := newDiffPaths(files)
	per := make([][]EditDecision, len(files))
	err = eachFile(ctx, files, func(i int) {
		f := &files[i]
		gen := g.generated(f)
		var out []EditDecision
		out = append(out, g.protected(f)...)
		out = append(out, secretDecisions(f)...)
		out = append(out, g.scope(a.Task, f)...)
		out = append(out, g.size(f, gen)...)
		per[i] = append(out, g.tdd.check(f, pathOnly, gen, inDiff, g.cfg.Tree)...)
	})
	if err != nil {
		return nil, fmt.Errorf("guardrail: %w", err)
	}
	return slices.Concat(per...), nil
}

// parallelLines is how many lines in hunks a diff of several files needs
// before its files are judged side by side: below it, starting goroutines
// costs more than it spares.
const parallelLines = 256

// eachFile calls check with the index of every file, on up to GOMAXPROCS
// goroutines when the diff is large enough to gain from it, and stops
// early with ctx's error when ctx ends. The hook judges each edit of an
// agent while the agent waits: a large diff's files take the machine's
// cores rather than one.
func eachFile(ctx context.Context, files []FileDiff, check func(i int)) error {
	workers := min(runtime.GOMAXPROCS(0), len(files))
	if workers > 1 {
		// The hunks' lengths, not a walk of their lines: this part runs
		// on one core.
		lines := 0
		for i := range files {
			for _, h := range files[i].Hunks {
				lines += len(h.Lines)
			}
		}
		if lines < parallelLines {
			workers = 1
		}
	}
	if workers <= 1 {
		for i := range files {
			if err := ctx.Err(); err != nil {
				return err
			}
			check(i)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	// A panic in a worker would end the process; it is raised again in
	// the caller's goroutine, where Evaluate turns it into a hard
	// decision, as on the serial path.
	var panicked atomic.Pointer[any]
	for range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, &r)
				}
			}()
			for ctx.Err() == nil && panicked.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				check(i)
			}
		})
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
	if int(next.Load()) < len(files) { // a worker stopped before the end
		return ctx.Err()
	}
	return nil
}

// editFiles returns the files of an edit action, and whether only a path
// was given.
func editFiles(a Action) ([]FileDiff, bool, error) {
	diff := a.Diff
	if strings.TrimSpace(diff) == "" {
		if a.Path == "" {
			return nil, false, nil
		}
		p := cleanRel(a.Path)
		return []FileDiff{{Path: p, OldPath: p, Status: StatusModified}}, true, nil
	}
	if strings.HasPrefix(diff, "@@ ") && a.Path != "" {
		p := cleanRel(a.Path)
		diff = "--- a/" + p + "\n+++ b/" + p + "\n" + diff
	}
	files, err := ParseDiff(diff)
	if err != nil {
		return nil, false, err
	}
	if len(files) == 0 {
		return nil, false, fmt.Errorf("%w: no file header in %d bytes of diff", ErrDiff, len(diff))
	}
	return files, false, nil
}

// statusVerbs say what a change of each status does to its file.
var statusVerbs = map[FileStatus]string{StatusAdded: "create", StatusDeleted: "delete", StatusRenamed: "rename",
	StatusModified: "modify", StatusCopied: "create"}

// protected is the edit.protected rule.
func (g *EditGuard) protected(f *FileDiff) []EditDecision {
	verb := statusVerbs[f.Status]
	paths := []string{f.Path}
	if f.Status == StatusRenamed {
		paths = append(paths, f.OldPath) // a copy only reads its source
	}
	var out []EditDecision
	for _, p := range paths {
		if entry, ok := g.cfg.Protected.Match(p, ""); ok {
			out = append(out, EditDecision{
				Decision: Decision{Level: Hard, Rule: RuleEditProtected, Match: p,
					Reason: fmt.Sprintf("%s is protected (under %q); no change may %s it", p, entry, verb)},
				Path: f.Path,
			})
			break
		}
	}
	return out
}

// secretDecisions is the edit.secret.* rules, on added lines only.
func secretDecisions(f *FileDiff) []EditDecision {
	if pkcs12File(f) {
		return []EditDecision{{
			Decision: Decision{Level: Hard, Rule: RuleSecretPKCS12, Match: mask(path.Base(f.Path)),
				Reason: "PKCS#12 key store added (" + path.Base(f.Path) + "); it holds a private key: keep it out of the repository"},
			Path: f.Path,
		}}
	}
	if f.Binary {
		return nil
	}
	var out []EditDecision
	for _, s := range scanSecrets(f.Path, f.newSide()) {
		out = append(out, EditDecision{
			Decision: Decision{Level: Hard, Rule: s.Rule, Match: s.Masked,
				Reason: fmt.Sprintf("%s added (%s); read credentials from the environment or a secret store instead", s.What, s.Masked)},
			Path: f.Path, Line: s.Line,
		})
	}
	return out
}

// size is the edit.size rule.
func (g *EditGuard) size(f *FileDiff, generated bool) []EditDecision {
	limit := g.cfg.MaxChangedLines
	if limit < 0 || f.Binary || generated {
		return nil
	}
	if n := f.Changed(); n > limit {
		return []EditDecision{{
			Decision: Decision{Level: Soft, Rule: RuleEditSize,
				Reason: "changes " + strconv.Itoa(n) + " lines, more than " + strconv.Itoa(limit) + " in one file; prefer smaller steps"},
			Path: f.Path,
		}}
	}
	return nil
}

// generated reports whether f is generated code: its name says so (an
// exempt pattern such as *.pb.go does), or its first lines carry a "Code
// generated ... DO NOT EDIT." or "@generated" marker, in the diff or in the
// working tree.
func (g *EditGuard) generated(f *FileDiff) bool {
	if g.tdd.generatedName(f.Path) {
		return true
	}
	for _, h := range f.Hunks {
		if h.NewStart > generatedHeaderLines {
			continue // its new lines are numbered from NewStart on
		}
		for _, l := range h.Lines {
			if l.NewLine > generatedHeaderLines {
				break // and in order
			}
			if l.NewLine > 0 && generatedMarker(l.Text) {
				return true
			}
		}
	}
	if g.cfg.Tree == nil || f.Status == StatusDeleted {
		return false
	}
	file, err := g.cfg.Tree.Open(f.Path)
	if err != nil {
		return false
	}
	defer file.Close()
	buf := make([]byte, 4096)
	n, _ := file.Read(buf)
	lines := strings.SplitN(string(buf[:n]), "\n", generatedHeaderLines+1)
	for _, l := range lines[:min(len(lines), generatedHeaderLines)] {
		if generatedMarker(l) {
			return true
		}
	}
	return false
}

// generatedHeaderLines is how far from the top a generated-code marker is
// looked for.
const generatedHeaderLines = 20

func generatedMarker(line string) bool {
	// Both markers hold "generated": one search rules out most lines.
	i := strings.Index(line, "generated")
	if i < 0 {
		return false
	}
	return strings.Contains(line, "Code generated") && strings.Contains(line, "DO NOT EDIT") ||
		strings.Contains(line[max(i-1, 0):], "@generated")
}
