package preflight

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/harnish/harnish/internal/strdist"
	"github.com/harnish/harnish/task"
)

// A task contradicts the tree when it names a path the tree does not have
// and the evidence says the path should be there. A path named is one in
// the task's scope (Files) or a path-like token in its title or objective
// (in backticks or not, in any language's sentence: "`pkg/a.go` を修正",
// "client.go 수정"). What the task says it does with the path is read
// from the verb nearest to it in its clause, in English, Japanese, Korean
// or Chinese: a path it creates never blocks. The evidence, any one of:
//
//   - a file of the same name is elsewhere in the tree, in a directory of
//     the same name (internal/cache/client.go named, pkg/cache/client.go
//     there): the file moved;
//   - the task says it modifies, fixes, renames or deletes the path;
//   - a directory on the path is missing where its parent holds one of
//     nearly the same name (intrnal/ beside internal/, handler/ beside
//     handlers/), while others of the task's paths are there: a typo.
//
// A new file in a new directory, with none of these, is what plans create
// all the time, and passes.

// treeIndex is the working tree's files by base name, read once, the first
// time a named path is missing.
type treeIndex struct {
	ctx    context.Context
	dir    string
	once   sync.Once
	byBase map[string][]string
}

// maxIndexed bounds the files indexed of a tree that is not a git
// repository.
const maxIndexed = 200_000

func (x *treeIndex) exists(p string) bool {
	_, err := os.Stat(filepath.Join(x.dir, filepath.FromSlash(p)))
	return err == nil
}

// named returns the files of the tree whose base name is base.
func (x *treeIndex) named(base string) []string {
	x.once.Do(func() {
		x.byBase = map[string][]string{}
		for _, f := range x.files() {
			b := path.Base(f)
			x.byBase[b] = append(x.byBase[b], f)
		}
	})
	return x.byBase[base]
}

// files lists the tree's files: git's (tracked, and untracked but not
// ignored), else a walk that skips .git and node_modules.
func (x *treeIndex) files() []string {
	cmd := exec.CommandContext(x.ctx, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = x.dir
	if out, err := cmd.Output(); err == nil {
		var fs []string
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				fs = append(fs, string(f))
			}
		}
		return fs
	}
	var out []string
	fs.WalkDir(os.DirFS(x.dir), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return fs.SkipDir
		case len(out) >= maxIndexed:
			return fs.SkipAll
		case !d.IsDir():
			out = append(out, p)
		}
		return nil
	})
	return out
}

// intent is what a task says it does with a path.
type intent int

const (
	intentNone      intent = iota
	intentForbidden        // named in a prohibition: not worked on
	intentModify
	intentCreate
)

var (
	// createWords say a path is new; they win over a modifying word in
	// the same clause only by being nearer the path.
	createWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:create[sd]?|creating|new|scaffold(?:s|ed)?|generate[sd]?|introduce[sd]?|add(?:s|ed)?|write[s]?|implement(?:s|ed)?)\b` +
			`|新規|新設|作成|新しい|生成|追加|実装|書き起こ|` +
			`생성|신규|새로운|새 |추가|구현|작성|만들|` +
			`新建|创建|新增|添加|实现|编写`)
	})
	// modifyWords say a path is there to be changed.
	modifyWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:modif(?:y|ies|ied)|updat(?:e|es|ed)|edit(?:s|ed)?|chang(?:e|es|ed)|fix(?:es|ed)?|extend(?:s|ed)?|refactor(?:s|ed)?|renam(?:e|es|ed)|delet(?:e|es|ed)|remov(?:e|es|ed)|patch(?:es|ed)?|mov(?:e|es|ed)|replac(?:e|es|ed)|rewrite[s]?)\b` +
			`|修正|変更|更新|編集|削除|改修|改善|リファクタ|置き換|置換|移動|書き換|` +
			`수정|변경|업데이트|삭제|편집|리팩터|리팩토링|교체|이동|개선|` +
			`修改|删除|重构|替换|移动|改进`)
	})
	// moveWords move or copy a file to a new path.
	moveWords = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:mov(?:e|es|ed|ing)|renam(?:e|es|ed|ing)|cop(?:y|ies|ied)|split(?:s)?|extract(?:s|ed)?)\b|移動|移す|リネーム|名前を変更|コピー|分割|切り出|이동|옮기|이름을 변경|복사|분리|移动|重命名|复制|拆分`)
	})
	// pathToken is a run of the characters of a path.
	pathToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z0-9_.][A-Za-z0-9_./-]*`)
	})
	urlLike = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://\S*|\S+@\S+\.\S+`)
	})
	// fileAction is a "File: path (modify)" line, as the importer writes a
	// progress file's target_files.
	fileAction = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^File: (\S+) \((modify|update|delete|create|add)\)$`)
	})
)

// sourceExts are the extensions that make a word without a slash a file
// name ("client.go"), not a method ("config.Load") or a version.
var sourceExts = []string{"go", "mod", "sum", "py", "ts", "tsx", "js", "jsx", "mjs", "cjs", "rs", "java", "kt", "kts", "rb",
	"c", "h", "cc", "cpp", "hpp", "cs", "swift", "m", "mm", "php", "scala", "sql", "proto", "sh", "bash", "ps1", "md",
	"yaml", "yml", "json", "jsonl", "toml", "ini", "cfg", "conf", "env", "xml", "html", "css", "scss", "vue", "svelte",
	"txt", "csv", "lock", "gradle", "tf", "dockerfile", "abap", "dart", "lua", "ex", "exs", "erl", "hs", "ml", "zig"}

// mention is a path named in a task's text, with what the text says it
// does with it and the words that say so.
type mention struct {
	path   string
	intent intent
	why    string
	quoted bool // in backticks
}

// mentions finds the paths a task's text names.
func mentions(text string) []mention {
	var out []mention
	for _, line := range strings.Split(text, "\n") {
		if m := fileAction().FindStringSubmatch(line); m != nil {
			in := intentModify
			if m[2] == "create" || m[2] == "add" {
				in = intentCreate
			}
			out = append(out, mention{path: m[1], intent: in, why: m[0], quoted: true})
			continue
		}
		clean := urlLike().ReplaceAllStringFunc(line, func(s string) string { return strings.Repeat(" ", len(s)) })
		for _, c := range clauses(clean) {
			clause := clean[c[0]:c[1]]
			first := len(out)
			for _, loc := range pathToken().FindAllStringIndex(clause, -1) {
				tok := strings.TrimRight(clause[loc[0]:loc[1]], "./")
				// In text only files count: a directory-like run is as
				// often a route (/v1/admin/teams) or a list (done/todo).
				if !pathLike(tok, false) || loc[0] > 0 && clause[loc[0]-1] == '/' {
					continue
				}
				in, why := intentOf(clause, loc[0], loc[0]+len(tok))
				out = append(out, mention{path: tok, intent: in, why: why, quoted: loc[0] > 0 && clause[loc[0]-1] == '`'})
			}
			// "Move a.go to b.go", "a.go を b.go に移動": the last path is
			// where the file goes.
			if len(out)-first >= 2 && moveWords().MatchString(clause) {
				out[len(out)-1].intent = intentCreate
			}
		}
	}
	return out
}

// clauses splits a line at the ends of its sentences and clauses.
func clauses(line string) [][2]int {
	var out [][2]int
	start := 0
	for i, r := range line {
		end := false
		switch r {
		case '。', '；', ';', '!', '?', '！', '？', '|':
			end = true
		case '.':
			end = i+1 == len(line) || line[i+1] == ' '
		}
		if end {
			out = append(out, [2]int{start, i})
			start = i + len(string(r))
		}
	}
	return append(out, [2]int{start, len(line)})
}

// pathLike says whether a token names a file or a directory: with a slash,
// not a fraction or a date; without one, a file name with a known
// extension. A directory without an extension must end in a slash.
func pathLike(tok string, dirSlash bool) bool {
	if tok == "" || strings.HasPrefix(tok, "-") || strings.Contains(tok, "..") {
		return false
	}
	base := path.Base(tok)
	ext := ""
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		ext = strings.ToLower(base[i+1:])
	}
	hasLetter := strings.IndexFunc(tok, unicode.IsLetter) >= 0
	switch {
	case !hasLetter:
		return false
	case strings.Contains(tok, "/"):
		return ext != "" && slices.Contains(sourceExts, ext) || ext == "" && dirSlash
	default:
		return ext != "" && slices.Contains(sourceExts, ext)
	}
}

// intentOf reads what a clause does with the path at [ps, pe): from the
// nearest verb, before the path in a clause in a language that puts the
// verb first, after it in one that puts it last (Japanese, Korean), the
// other side when that has none.
func intentOf(clause string, ps, pe int) (intent, string) {
	type verb struct {
		at, end int
		in      intent
	}
	var verbs []verb
	for _, l := range createWords().FindAllStringIndex(clause, -1) {
		verbs = append(verbs, verb{l[0], l[1], intentCreate})
	}
	for _, l := range modifyWords().FindAllStringIndex(clause, -1) {
		if w := clause[l[0]:l[1]]; len(w) > 1 && strings.ToUpper(w) == w && strings.ToLower(w) != w {
			continue // DELETE, PATCH, UPDATE: an HTTP method or SQL, not a sentence's verb
		}
		verbs = append(verbs, verb{l[0], l[1], intentModify})
	}
	if len(verbs) == 0 {
		return intentNone, ""
	}
	verbLast := strings.IndexFunc(clause, func(r rune) bool {
		return unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
	}) >= 0
	var before, after *verb
	for i := range verbs {
		v := &verbs[i]
		if v.end <= ps && ps-v.end <= maxVerbGap && (before == nil || v.end > before.end) {
			before = v
		}
		if v.at >= pe && v.at-pe <= maxVerbGap && (after == nil || v.at < after.at) {
			after = v
		}
	}
	pick := before
	if verbLast && after != nil || pick == nil {
		pick = after
	}
	if pick == nil {
		// The only verbs are inside the path ("fix.go").
		return intentNone, ""
	}
	lo, hi := min(pick.at, ps), max(pick.end, pe)
	why := strings.TrimSpace(clause[lo:hi])
	if label().MatchString(clause[pick.end:]) {
		// "変更予定: a.ts, b.ts", "Changes: a.go": a label over the files
		// the task touches, new ones among them; a scope, not a change.
		return intentNone, why
	}
	if pick.in == intentModify && negated(clause, pick.at, pick.end) {
		// "do not modify x", "x 변경 금지", "x を変更しない": a prohibition
		// says nothing of whether x is there.
		return intentForbidden, why
	}
	return pick.in, why
}

// maxVerbGap is the most bytes between a verb and the path it is read
// against: a clause's verb binds the words near it, not a path a long
// list later ("README (default 変更アナウンス), …, docs/env.md").
const maxVerbGap = 48

var (
	label = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:予定|対象|ファイル|箇所|대상|파일|예정|对象|文件|\s*files?|\s*targets?)?\s*[:：]`)
	})
	negBefore = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:\bnot|n't|\bnever|\bno|禁止|不要|不得|勿|别|不)\s*(?:to\s+|be\s+)?$`)
	})
	negAfter = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:금지|하지\s*(?:마|않)|않|말|禁止|しない|せず|しません|不可|厳禁|無用)`)
	})
)

// negated says whether the verb at [at, end) of clause is forbidden or
// denied rather than asked for.
func negated(clause string, at, end int) bool {
	before := clause[max(0, at-16):at]
	for !utf8.ValidString(before) {
		before = before[1:]
	}
	after := clause[end:min(len(clause), end+24)]
	for !utf8.ValidString(after) {
		after = after[:len(after)-1]
	}
	// Japanese and Korean verbs take their ending first: "変更しない", "수정하지 않".
	after = strings.TrimLeft(after, "はをする하지을를")
	return negBefore().MatchString(before) || negAfter().MatchString(after) ||
		strings.Contains(after[:min(len(after), 12)], "않") || strings.Contains(after[:min(len(after), 12)], "しない")
}

// contradictions finds what a task's scope and text say of the tree that
// the tree does not bear out.
//
// planned holds the paths, and their directories, that the tasks before t
// still to do name: a file an earlier task creates may be changed by a
// later one. contradictions adds t's own.
func contradictions(tree *treeIndex, t task.Task, planned map[string]bool) []Finding {
	var out []Finding
	type named struct {
		mention
		scope bool
	}
	var all []named
	byPath := map[string]int{}
	add := func(m mention, scope bool) {
		p := strings.TrimPrefix(path.Clean(strings.TrimLeft(m.path, "/")), "./")
		if !fs.ValidPath(p) || p == "." {
			return
		}
		m.path = p
		if i, ok := byPath[p]; ok {
			// The strongest word said of the path decides: create, then modify.
			if m.intent > all[i].intent {
				all[i].mention = m
			}
			all[i].scope = all[i].scope || scope
			return
		}
		byPath[p] = len(all)
		all = append(all, named{m, scope})
	}
	text := t.Title + "\n" + t.Objective
	ms := mentions(text)
	for _, m := range ms {
		// A bare file name in running text ("next.js", "transformers.js
		// v4") is as often a product as a file; in backticks it is a file.
		if m.quoted || strings.Contains(m.path, "/") {
			add(m, false)
		}
	}
	for _, f := range t.Files {
		m := mention{path: f}
		// A scope file the text names by its base name takes what the
		// text says of it.
		for _, o := range ms {
			if path.Base(o.path) == path.Base(f) && (o.path == path.Base(o.path) || strings.HasSuffix(f, o.path)) && o.intent > m.intent {
				m.intent, m.why = o.intent, o.why
			}
		}
		add(m, true)
	}
	// A path is there when a file ends with it: people name files short
	// ("client.go"), or from their sub-project's root ("app/page.tsx" for
	// web/src/app/page.tsx).
	exists := func(n named) bool {
		if tree.exists(n.path) {
			return true
		}
		if !strings.Contains(path.Base(n.path), ".") {
			return false
		}
		for _, f := range tree.named(path.Base(n.path)) {
			if strings.HasSuffix(f, "/"+n.path) {
				return true
			}
		}
		return false
	}
	isPlanned := func(p string) bool {
		for q := p; q != "." && q != "/"; q = path.Dir(q) {
			if planned[q] {
				return true
			}
		}
		return false
	}
	defer func() {
		for _, n := range all {
			if n.intent != intentForbidden {
				planned[n.path] = true
				if d := path.Dir(n.path); d != "." {
					planned[d] = true
				}
			}
		}
	}()
	var present int
	for _, n := range all {
		if exists(n) {
			present++
		}
	}
	for _, n := range all {
		p := n.path
		if exists(n) {
			if n.intent == intentCreate && strings.HasPrefix(n.why, "File: ") && t.Status != task.StatusDoing {
				out = append(out, Finding{Kind: KindInput, Task: t.ID, Blocking: true,
					Expected: fmt.Sprintf("%s does not exist yet (task %s creates it)", p, t.ID), Found: "it exists"})
			}
			continue
		}
		if n.intent == intentCreate || n.intent == intentForbidden || isPlanned(p) {
			continue
		}
		why := fmt.Sprintf("task %s's scope", t.ID)
		if n.why != "" {
			why = fmt.Sprintf("task %s: %q", t.ID, n.why)
		}
		expected := fmt.Sprintf("%s exists (%s)", p, why)
		if moved := movedTo(tree, p); len(moved) > 0 {
			out = append(out, Finding{Kind: KindInput, Task: t.ID, Blocking: true, Expected: expected,
				Found: fmt.Sprintf("no such file; %s is at %s", path.Base(p), strings.Join(moved, ", "))})
			continue
		}
		if n.intent == intentModify {
			found := "no such file"
			if others := tree.named(path.Base(p)); len(others) > 0 && len(others) <= 3 && strings.Contains(path.Base(p), ".") {
				found += "; " + path.Base(p) + " is at " + strings.Join(others, ", ")
			}
			out = append(out, Finding{Kind: KindInput, Task: t.ID, Blocking: true, Expected: expected, Found: found})
			continue
		}
		if present > 0 {
			if missing, near := nearDir(tree, p); near != "" {
				out = append(out, Finding{Kind: KindInput, Task: t.ID, Blocking: true,
					Expected: fmt.Sprintf("%s/ exists, beside the task's other files", missing),
					Found:    fmt.Sprintf("no %s/ in the tree (%s: %s); %s/ is there", missing, map[bool]string{true: "scope", false: "named"}[n.scope], p, near)})
			}
		}
	}
	return out
}

// movedTo returns where a missing file p is in the tree: files of the same
// name in a directory of the same name (at most three).
func movedTo(tree *treeIndex, p string) []string {
	dir := path.Dir(p)
	if dir == "." || !strings.Contains(path.Base(p), ".") {
		return nil
	}
	var out []string
	for _, c := range tree.named(path.Base(p)) {
		if c != p && path.Base(path.Dir(c)) == path.Base(dir) {
			out = append(out, c)
		}
	}
	if len(out) > 3 {
		return nil // a name too common to say where it went
	}
	return out
}

// nearDir finds the first directory on p the tree lacks, and a directory
// beside it of nearly the same name.
func nearDir(tree *treeIndex, p string) (missing, near string) {
	parts := strings.Split(p, "/")
	for i := range len(parts) - 1 {
		q := strings.Join(parts[:i+1], "/")
		if tree.exists(q) {
			continue
		}
		parent := path.Dir(q)
		ents, err := os.ReadDir(filepath.Join(tree.dir, filepath.FromSlash(parent)))
		if err != nil {
			return q, ""
		}
		for _, e := range ents {
			if e.IsDir() && similar(e.Name(), parts[i]) {
				return q, path.Join(parent, e.Name())
			}
		}
		return q, ""
	}
	return "", ""
}

// similar says whether two directory names are one misspelt: the same but
// for case, "-" and "_", or a plural "s", or an edit or two apart (one for
// names under eight letters); names that differ in their digits (v1, v2)
// are different on purpose.
func similar(a, b string) bool {
	norm := func(s string) string {
		return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s))
	}
	na, nb := norm(a), norm(b)
	switch {
	case a == b:
		return false
	case na == nb, na+"s" == nb, nb+"s" == na:
		return true
	case min(len(na), len(nb)) < 4:
		return false
	}
	digits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return r
			}
			return -1
		}, s)
	}
	if digits(na) != digits(nb) {
		return false
	}
	limit := 1
	if min(len(na), len(nb)) >= 8 {
		limit = 2
	}
	return strdist.Levenshtein(na, nb, limit) <= limit
}
