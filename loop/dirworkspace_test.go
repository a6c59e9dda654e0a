package loop_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/loop"
)

// dwFile is a file of a test tree: its content (a link's target) and kind.
type dwFile struct {
	Content string
	Kind    string // "" a file, "x" an executable, "l" a symbolic link
}

type dwTree map[string]dwFile

// dwChange is what a diff says of one file, as guardrail reads it.
type dwChange struct {
	Path    string
	Status  guardrail.FileStatus
	Binary  bool
	Added   []string
	Removed []string
}

var dwBase = dwTree{
	"a.txt":          {Content: "one\ntwo\nthree\n"},
	"dir/sub/deep.c": {Content: "int main() {\n\treturn 0;\n}\n"},
	"run.sh":         {Content: "#!/bin/sh\necho hi\n", Kind: "x"},
	"link":           {Content: "a.txt", Kind: "l"},
	"empty":          {},
	"bin.dat":        {Content: "\x00\x01\x02"},
	"with space.txt": {Content: "s\n"},
}

func dwWith(base dwTree, edits dwTree, drop ...string) dwTree {
	out := dwTree{}
	for p, f := range base {
		out[p] = f
	}
	for p, f := range edits {
		out[p] = f
	}
	for _, p := range drop {
		delete(out, p)
	}
	return out
}

var dwCases = []struct {
	name     string
	from, to dwTree
	want     []dwChange
}{
	{name: "same", from: dwBase, to: dwBase},
	{
		name: "add", from: dwBase, to: dwWith(dwBase, dwTree{"new/file.go": {Content: "package x\n"}}),
		want: []dwChange{{Path: "new/file.go", Status: guardrail.StatusAdded, Added: []string{"package x"}}},
	},
	{
		name: "modify", from: dwBase, to: dwWith(dwBase, dwTree{"a.txt": {Content: "one\n2\nthree\nfour\n"}}),
		want: []dwChange{{Path: "a.txt", Status: guardrail.StatusModified, Added: []string{"2", "four"}, Removed: []string{"two"}}},
	},
	{
		name: "delete", from: dwBase, to: dwWith(dwBase, nil, "dir/sub/deep.c"),
		want: []dwChange{{Path: "dir/sub/deep.c", Status: guardrail.StatusDeleted, Removed: []string{"int main() {", "\treturn 0;", "}"}}},
	},
	{
		name: "rename is a delete and an add", from: dwBase, to: dwWith(dwBase, dwTree{"b.txt": dwBase["a.txt"]}, "a.txt"),
		want: []dwChange{
			{Path: "a.txt", Status: guardrail.StatusDeleted, Removed: []string{"one", "two", "three"}},
			{Path: "b.txt", Status: guardrail.StatusAdded, Added: []string{"one", "two", "three"}},
		},
	},
	{
		name: "mode change", from: dwBase, to: dwWith(dwBase, dwTree{"run.sh": {Content: dwBase["run.sh"].Content}}),
		want: []dwChange{{Path: "run.sh", Status: guardrail.StatusModified}},
	},
	{
		name: "binary", from: dwBase, to: dwWith(dwBase, dwTree{"bin.dat": {Content: "\x00\x09"}, "bin2.dat": {Content: "x\x00"}}),
		want: []dwChange{
			{Path: "bin.dat", Status: guardrail.StatusModified, Binary: true},
			{Path: "bin2.dat", Status: guardrail.StatusAdded, Binary: true},
		},
	},
	{
		name: "no newline at end", from: dwBase, to: dwWith(dwBase, dwTree{"a.txt": {Content: "one\ntwo\nthree"}}),
		want: []dwChange{{Path: "a.txt", Status: guardrail.StatusModified, Added: []string{"three"}, Removed: []string{"three"}}},
	},
	{
		name: "empty file added and one emptied", from: dwBase,
		to: dwWith(dwBase, dwTree{"e2": {}, "with space.txt": {}}),
		want: []dwChange{
			{Path: "e2", Status: guardrail.StatusAdded},
			{Path: "with space.txt", Status: guardrail.StatusModified, Removed: []string{"s"}},
		},
	},
	{
		name: "symlink retargeted", from: dwBase, to: dwWith(dwBase, dwTree{"link": {Content: "dir/sub", Kind: "l"}}),
		want: []dwChange{{Path: "link", Status: guardrail.StatusModified, Added: []string{"dir/sub"}, Removed: []string{"a.txt"}}},
	},
	{
		name: "file becomes a directory", from: dwBase, to: dwWith(dwBase, dwTree{"empty/inner": {Content: "in\n"}}, "empty"),
		want: []dwChange{
			{Path: "empty", Status: guardrail.StatusDeleted},
			{Path: "empty/inner", Status: guardrail.StatusAdded, Added: []string{"in"}},
		},
	},
	{
		name: "link becomes a file", from: dwBase, to: dwWith(dwBase, dwTree{"link": {Content: "a.txt"}}),
		want: []dwChange{
			{Path: "link", Status: guardrail.StatusDeleted, Removed: []string{"a.txt"}},
			{Path: "link", Status: guardrail.StatusAdded, Added: []string{"a.txt"}},
		},
	},
	{
		name: "quoted path", from: dwBase, to: dwWith(dwBase, dwTree{"tab\there\"q": {Content: "t\n"}}),
		want: []dwChange{{Path: "tab\there\"q", Status: guardrail.StatusAdded, Added: []string{"t"}}},
	},
}

func TestDirWorkspaceRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tt := range dwCases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dwWrite(t, dir, tt.from)
			ws := &loop.DirWorkspace{Dir: dir}
			from := dwSnapshot(t, ws)
			dwReplace(t, dir, tt.to)
			to := dwSnapshot(t, ws)

			diff, err := ws.Diff(ctx, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if got := dwChanges(t, diff); !cmp.Equal(got, tt.want) {
				t.Errorf("diff:\n%s\nchanges (-want +got):\n%s", diff, cmp.Diff(tt.want, got))
			}
			if (from == to) != (len(tt.want) == 0) {
				t.Errorf("snapshot IDs equal = %v with %d changes", from == to, len(tt.want))
			}

			// Back and forth, byte for byte, the state directory untouched.
			state := filepath.Join(dir, loop.StateDir, "mine")
			if err := os.WriteFile(state, []byte("state"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := ws.Restore(ctx, from, to); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.from, dwRead(t, dir)); diff != "" {
				t.Errorf("after restoring from (-want +got):\n%s", diff)
			}
			if b, err := os.ReadFile(state); err != nil || string(b) != "state" {
				t.Errorf("state file after restoring from: %q, %v", b, err)
			}
			os.Remove(state) // in the snapshots, as in git's, and left alone by Restore
			if again := dwSnapshot(t, ws); again != from {
				t.Errorf("snapshot after restore is %s, want %s", again, from)
			}
			if err := os.WriteFile(state, []byte("state"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := ws.Restore(ctx, to, from); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.to, dwRead(t, dir)); diff != "" {
				t.Errorf("after restoring to (-want +got):\n%s", diff)
			}
			if b, err := os.ReadFile(state); err != nil || string(b) != "state" {
				t.Errorf("state file: %q, %v", b, err)
			}
		})
	}
}

// git diff --no-index adds and removes the same lines, and git apply of our
// diff to the old tree makes the new one.
func TestDirWorkspaceMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	for _, tt := range dwCases {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			old, new := filepath.Join(root, "old"), filepath.Join(root, "new")
			dwWrite(t, old, tt.from)
			dwWrite(t, new, tt.to)
			cmd := exec.Command("git", "-c", "core.quotepath=off", "diff", "--no-index", "--no-renames", "--no-color", "old", "new")
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil && cmd.ProcessState.ExitCode() != 1 {
				t.Fatalf("git diff: %v", err)
			}
			want := dwChanges(t, strings.NewReplacer("a/old/", "a/", "b/new/", "b/").Replace(string(out)))

			ws := &loop.DirWorkspace{Dir: old, Store: t.TempDir()}
			from := dwSnapshot(t, ws)
			dwReplace(t, old, tt.to)
			to := dwSnapshot(t, ws)
			diff, err := ws.Diff(ctx, from, to)
			if err != nil {
				t.Fatal(err)
			}
			if got := dwChanges(t, diff); !cmp.Equal(got, want) {
				t.Errorf("changes (-git +ours):\n%s\ngit:\n%s\nours:\n%s", cmp.Diff(want, got), out, diff)
			}

			if diff == "" || slices.ContainsFunc(tt.want, func(c dwChange) bool { return c.Binary }) {
				return // git apply wants full index lines for binaries, and a patch
			}
			apply := filepath.Join(root, "apply")
			dwWrite(t, apply, tt.from)
			patch := filepath.Join(root, "patch")
			if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd = exec.Command("git", "apply", patch)
			cmd.Dir = apply
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git apply: %v\n%s\npatch:\n%s", err, out, diff)
			}
			if diff := cmp.Diff(tt.to, dwRead(t, apply)); diff != "" {
				t.Errorf("git apply (-want +got):\n%s", diff)
			}
		})
	}
}

// .git directories and the snapshot stores inside the tree are not in
// snapshots; the state directory is, as in a GitWorkspace, so that the
// agent's writes there are judged. The same tree is the same snapshot,
// cache or none.
func TestDirWorkspaceIgnoresGitAndStore(t *testing.T) {
	dir := t.TempDir()
	dwWrite(t, dir, dwBase)
	ws := &loop.DirWorkspace{Dir: dir}
	first := dwSnapshot(t, ws)
	for p, data := range map[string]string{
		".git/config":                       "[core]",
		"dir/.git/HEAD":                     "ref",
		loop.TranscriptsDir + "/T1-1.jsonl": "{}", // harnish's own, written while the agent works
	} {
		dwWrite(t, dir, dwTree{p: {Content: data}})
	}
	if got := dwSnapshot(t, ws); got != first {
		t.Errorf("snapshot changed with the .git directories and the transcripts: %s, want %s", got, first)
	}
	other := &loop.DirWorkspace{Dir: dir, Store: filepath.Join(dir, "store")}
	if got := dwSnapshot(t, other); got != first {
		t.Errorf("a fresh workspace with its store in the tree: %s, want %s", got, first)
	}
	if got := dwSnapshot(t, other); got != first {
		t.Errorf("its second snapshot: %s, want %s", got, first)
	}
	dwWrite(t, dir, dwTree{loop.StateDir + "/evil": {Content: "x"}})
	if got := dwSnapshot(t, ws); got == first {
		t.Error("a write into the state directory left the snapshot as it was")
	}
}

// A same-size rewrite just after a snapshot, with the old modification
// time put back, is still seen.
func TestDirWorkspaceRacyRewrite(t *testing.T) {
	dir := t.TempDir()
	dwWrite(t, dir, dwTree{"f": {Content: "aaaa"}})
	ws := &loop.DirWorkspace{Dir: dir}
	first := dwSnapshot(t, ws)
	path := filepath.Join(dir, "f")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	dwWrite(t, dir, dwTree{"f": {Content: "bbbb"}})
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := dwSnapshot(t, ws); got == first {
		t.Error("the rewrite was not seen")
	}
}

func TestDirWorkspaceBadID(t *testing.T) {
	ws := &loop.DirWorkspace{Dir: t.TempDir()}
	id := dwSnapshot(t, ws)
	for _, bad := range []string{"", "../../etc/passwd", strings.Repeat("0", 64)} {
		if _, err := ws.Diff(context.Background(), id, bad); err == nil {
			t.Errorf("Diff to %q: no error", bad)
		}
	}
}

// Applying the hunks guardrail reads from a diff to the old text gives the
// new one.
func FuzzDirWorkspaceDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\nX\n4\n5\n6\n7\n8\nY\n10")
	dir := f.TempDir()
	ws := &loop.DirWorkspace{Dir: dir}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, old, new string) {
		if strings.IndexByte(old[:min(len(old), 8000)], 0) >= 0 || strings.IndexByte(new[:min(len(new), 8000)], 0) >= 0 {
			t.Skip("binary")
		}
		if strings.Contains(old+new, "\r") {
			// ParseDiff drops a line's last CR (it reads CRLF diffs), so
			// the hunks it returns cannot carry one; linediff's own fuzz
			// covers them.
			t.Skip("carriage return")
		}
		dwWrite(t, dir, dwTree{"f": {Content: old}})
		from := dwSnapshot(t, ws)
		dwWrite(t, dir, dwTree{"f": {Content: new}})
		to := dwSnapshot(t, ws)
		diff, err := ws.Diff(ctx, from, to)
		if err != nil {
			t.Fatal(err)
		}
		files, err := guardrail.ParseDiff(diff)
		if err != nil {
			t.Fatalf("%v\n%s", err, diff)
		}
		got := old
		if len(files) > 0 {
			got = dwApply(t, old, files[0].Hunks)
		}
		if got != new {
			t.Fatalf("%q to %q: the diff gives %q\n%s", old, new, got, diff)
		}
	})
}

// The second snapshot of an unchanged tree of 2000 small files, to the
// first: metrics first-ms, second-ms and second/first.
func BenchmarkDirWorkspaceSnapshot(b *testing.B) {
	dir := b.TempDir()
	tree := dwTree{}
	for i := range 2000 {
		tree[fmt.Sprintf("d%02d/f%04d.go", i%40, i)] = dwFile{Content: strings.Repeat(fmt.Sprintf("line %d\n", i), 20)}
	}
	dwWrite(b, dir, tree)
	// Files written long before the snapshot, as a real tree's mostly are;
	// fresher ones are hashed again (see racyWindow).
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		return os.Chtimes(p, old, old)
	})
	var first, second time.Duration
	for b.Loop() {
		ws := &loop.DirWorkspace{Dir: dir, Store: b.TempDir()}
		t0 := time.Now()
		id1 := dwSnapshot(b, ws)
		t1 := time.Now()
		id2 := dwSnapshot(b, ws)
		second += time.Since(t1)
		first += t1.Sub(t0)
		if id1 != id2 {
			b.Fatal("snapshots differ")
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(first.Milliseconds())/n, "first-ms")
	b.ReportMetric(float64(second.Milliseconds())/n, "second-ms")
	b.ReportMetric(float64(second)/float64(first), "second/first")
}

// dwApply applies hunks to old, checking their context and removed lines.
func dwApply(t *testing.T, old string, hunks []guardrail.Hunk) string {
	t.Helper()
	lines := strings.SplitAfter(old, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out strings.Builder
	next := 0 // index of the first old line not yet used
	for _, h := range hunks {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		for ; next < start; next++ {
			out.WriteString(lines[next])
		}
		for _, l := range h.Lines {
			text := l.Text
			if !l.NoNewline {
				text += "\n"
			}
			switch l.Op {
			case guardrail.OpContext, guardrail.OpRemove:
				if next >= len(lines) || lines[next] != text {
					t.Fatalf("hunk %+v: old line %d is not %q", h, next+1, text)
				}
				if l.Op == guardrail.OpContext {
					out.WriteString(text)
				}
				next++
			case guardrail.OpAdd:
				out.WriteString(text)
			}
		}
	}
	for ; next < len(lines); next++ {
		out.WriteString(lines[next])
	}
	return out.String()
}

func dwSnapshot(t testing.TB, ws *loop.DirWorkspace) string {
	t.Helper()
	id, err := ws.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func dwChanges(t *testing.T, diff string) []dwChange {
	t.Helper()
	files, err := guardrail.ParseDiff(diff)
	if err != nil {
		t.Fatalf("%v\n%s", err, diff)
	}
	var out []dwChange
	for _, f := range files {
		c := dwChange{Path: f.Path, Status: f.Status, Binary: f.Binary}
		for _, l := range f.Added() {
			c.Added = append(c.Added, l.Text)
		}
		for _, l := range f.Removed() {
			c.Removed = append(c.Removed, l.Text)
		}
		out = append(out, c)
	}
	return out
}

// dwWrite writes tree into dir, over what is there.
func dwWrite(t testing.TB, dir string, tree dwTree) {
	t.Helper()
	for p, f := range tree {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(full)
		var err error
		switch f.Kind {
		case "l":
			err = os.Symlink(f.Content, full)
		case "x":
			err = os.WriteFile(full, []byte(f.Content), 0o755)
		default:
			err = os.WriteFile(full, []byte(f.Content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// dwReplace makes dir hold tree, the state directory aside.
func dwReplace(t *testing.T, dir string, tree dwTree) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != loop.StateDir {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	dwWrite(t, dir, tree)
}

// dwRead reads the tree in dir, the state and .git directories aside; an
// empty directory is an entry ending in "/".
func dwRead(t *testing.T, dir string) dwTree {
	t.Helper()
	tree := dwTree{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (rel == loop.StateDir || d.Name() == ".git"):
			return filepath.SkipDir
		case d.IsDir():
			if entries, err := os.ReadDir(path); err == nil && len(entries) == 0 {
				tree[rel+"/"] = dwFile{Kind: "empty directory"}
			}
			return nil
		case d.Type() == fs.ModeSymlink:
			target, err := os.Readlink(path)
			tree[rel] = dwFile{Content: target, Kind: "l"}
			return err
		}
		data, err := os.ReadFile(path)
		info, _ := d.Info()
		f := dwFile{Content: string(data)}
		if info.Mode().Perm()&0o100 != 0 {
			f.Kind = "x"
		}
		tree[rel] = f
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}
