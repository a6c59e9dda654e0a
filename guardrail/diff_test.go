package guardrail_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/guardrail"
)

// change summarizes a FileDiff for comparison: lines as "N:text", with a
// trailing "⏎" for a line with no newline.
type change struct {
	Path, OldPath    string
	Status           guardrail.FileStatus
	Binary           bool
	Hunks            int
	Added, Removed   []string
	Changed, Context int
}

func summarize(files []guardrail.FileDiff) []change {
	var out []change
	for _, f := range files {
		c := change{Path: f.Path, OldPath: f.OldPath, Status: f.Status, Binary: f.Binary, Hunks: len(f.Hunks), Changed: f.Changed()}
		for _, h := range f.Hunks {
			for _, l := range h.Lines {
				s := l.Text
				if l.NoNewline {
					s += "⏎"
				}
				switch l.Op {
				case guardrail.OpAdd:
					c.Added = append(c.Added, fmt.Sprintf("%d:%s", l.NewLine, s))
				case guardrail.OpRemove:
					c.Removed = append(c.Removed, fmt.Sprintf("%d:%s", l.OldLine, s))
				default:
					c.Context++
				}
			}
		}
		if n := len(f.Added()) + len(f.Removed()); n != c.Changed {
			panic(fmt.Sprintf("%s: Added+Removed = %d, Changed = %d", f.Path, n, c.Changed))
		}
		out = append(out, c)
	}
	return out
}

// TestParseDiffGit replays diffs that git 2.x printed (git diff -M, and with
// --binary) for a repository with every kind of change.
func TestParseDiffGit(t *testing.T) {
	tests := []struct {
		file string
		want []change
	}{
		{"testdata/diffs/git.diff", []change{
			{Path: "added.go", Status: guardrail.StatusAdded, Hunks: 1, Added: []string{"1:new"}, Changed: 1},
			{Path: "added_nonl.txt", Status: guardrail.StatusAdded, Hunks: 1, Added: []string{"1:no end⏎"}, Changed: 1},
			{Path: "calc.go", OldPath: "calc.go", Status: guardrail.StatusModified, Hunks: 2,
				Added: []string{"3:three", "25:twenty-five"}, Removed: []string{"3:3", "25:25"}, Changed: 4, Context: 11},
			{Path: "img.bin", OldPath: "img.bin", Status: guardrail.StatusModified, Binary: true},
			{Path: "nonl.txt", OldPath: "nonl.txt", Status: guardrail.StatusModified, Hunks: 1,
				Added: []string{"2:me too"}, Removed: []string{"2:me⏎"}, Changed: 2, Context: 1},
			{Path: "old.txt", OldPath: "old.txt", Status: guardrail.StatusDeleted, Hunks: 1, Removed: []string{"1:gone"}, Changed: 1},
			{Path: "renamed.txt", OldPath: "moved.txt", Status: guardrail.StatusRenamed, Hunks: 1,
				Added: []string{"10:ten"}, Removed: []string{"10:10"}, Changed: 2, Context: 6},
			{Path: "script.sh", OldPath: "script.sh", Status: guardrail.StatusModified},
			{Path: "sp ace.txt", OldPath: "sp ace.txt", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"2:v"}, Changed: 1, Context: 1},
			{Path: "tést.txt", OldPath: "tést.txt", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"2:w"}, Changed: 1, Context: 1},
		}},
		{"testdata/diffs/git-binary.diff", []change{
			{Path: "added_nonl.txt", OldPath: "added_nonl.txt", Status: guardrail.StatusDeleted, Hunks: 1, Removed: []string{"1:no end⏎"}, Changed: 1},
			{Path: "empty.go", Status: guardrail.StatusAdded},
			{Path: "img.bin", OldPath: "img.bin", Status: guardrail.StatusModified, Binary: true},
			{Path: "new.bin", Status: guardrail.StatusAdded, Binary: true},
			{Path: "r2.txt", OldPath: "renamed.txt", Status: guardrail.StatusRenamed},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			files, err := guardrail.ParseDiff(string(data))
			if err != nil {
				t.Fatalf("ParseDiff: %v", err)
			}
			if diff := cmp.Diff(tt.want, summarize(files)); diff != "" {
				t.Errorf("ParseDiff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDiff(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []change
	}{
		{name: "empty"},
		{
			name: "diff -u with timestamps",
			diff: "--- calc.go.orig\t2024-01-01 10:00:00\n+++ calc.go\t2024-01-01 10:05:00\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
			want: []change{{Path: "calc.go", OldPath: "calc.go.orig", Status: guardrail.StatusRenamed, Hunks: 1,
				Added: []string{"2:c"}, Removed: []string{"2:b"}, Changed: 2, Context: 1}},
		},
		{
			name: "two files without git headers",
			diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-1\n+2\n--- a/y\n+++ b/y\n@@ -5,0 +6 @@\n+z\n",
			want: []change{
				{Path: "x", OldPath: "x", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"1:2"}, Removed: []string{"1:1"}, Changed: 2},
				{Path: "y", OldPath: "y", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"6:z"}, Changed: 1},
			},
		},
		{
			name: "format-patch preamble and signature are ignored",
			diff: "From 123 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n---\n x | 1 +\n\n" +
				"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n a\n+b\n-- \n2.43.0\n",
			want: []change{{Path: "x", OldPath: "x", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"2:b"}, Changed: 1, Context: 1}},
		},
		{
			name: "CRLF line endings and an empty context line without its space",
			diff: "diff --git a/w.txt b/w.txt\r\n--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,3 +1,3 @@\r\n a\r\n\r\n-c\r\n+d\r\n",
			want: []change{{Path: "w.txt", OldPath: "w.txt", Status: guardrail.StatusModified, Hunks: 1,
				Added: []string{"3:d"}, Removed: []string{"3:c"}, Changed: 2, Context: 2}},
		},
		{
			name: "lines that look like headers inside a hunk are content",
			diff: "diff --git a/m.md b/m.md\n--- a/m.md\n+++ b/m.md\n@@ -1 +1 @@\n--- a/old\n+++ b/new\n",
			want: []change{{Path: "m.md", OldPath: "m.md", Status: guardrail.StatusModified, Hunks: 1,
				Added: []string{"1:++ b/new"}, Removed: []string{"1:-- a/old"}, Changed: 2}},
		},
		{
			name: "no-newline marker in the middle of a hunk",
			diff: "diff --git a/n b/n\n--- a/n\n+++ b/n\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n\\ No newline at end of file\n",
			want: []change{{Path: "n", OldPath: "n", Status: guardrail.StatusModified, Hunks: 1,
				Added: []string{"1:x⏎"}, Removed: []string{"1:x⏎"}, Changed: 2}},
		},
		{
			name: "rename across directories with spaces, quoted",
			diff: "diff --git \"a/old dir/f.go\" \"b/new dir/f.go\"\nsimilarity index 100%\nrename from \"old dir/f.go\"\nrename to \"new dir/f.go\"\n",
			want: []change{{Path: "new dir/f.go", OldPath: "old dir/f.go", Status: guardrail.StatusRenamed}},
		},
		{
			name: "copy",
			diff: "diff --git a/a.go b/b.go\nsimilarity index 100%\ncopy from a.go\ncopy to b.go\n",
			want: []change{{Path: "b.go", OldPath: "a.go", Status: guardrail.StatusCopied}},
		},
		{
			name: "deleted binary",
			diff: "diff --git a/p.png b/p.png\ndeleted file mode 100644\nindex 1..0\nBinary files a/p.png and /dev/null differ\n",
			want: []change{{Path: "p.png", OldPath: "p.png", Status: guardrail.StatusDeleted, Binary: true}},
		},
		{
			name: "hunk section text",
			diff: "--- a/f.go\n+++ b/f.go\n@@ -10,3 +10,4 @@ func Divide(a, b int) int {\n x\n+y\n z\n w\n",
			want: []change{{Path: "f.go", OldPath: "f.go", Status: guardrail.StatusModified, Hunks: 1, Added: []string{"11:y"}, Changed: 1, Context: 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := guardrail.ParseDiff(tt.diff)
			if err != nil {
				t.Fatalf("ParseDiff: %v", err)
			}
			if diff := cmp.Diff(tt.want, summarize(files)); diff != "" {
				t.Errorf("ParseDiff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDiffSection(t *testing.T) {
	files, err := guardrail.ParseDiff("--- a/f.go\n+++ b/f.go\n@@ -10 +10 @@ func Divide(a, b int) int {\n-x\n+y\n")
	if err != nil {
		t.Fatal(err)
	}
	want := guardrail.Hunk{OldStart: 10, OldLines: 1, NewStart: 10, NewLines: 1, Section: "func Divide(a, b int) int {",
		Lines: []guardrail.Line{{Op: guardrail.OpRemove, Text: "x", OldLine: 10}, {Op: guardrail.OpAdd, Text: "y", NewLine: 10}}}
	if diff := cmp.Diff(want, files[0].Hunks[0]); diff != "" {
		t.Errorf("hunk (-want +got):\n%s", diff)
	}
}

func TestParseDiffErrors(t *testing.T) {
	tests := []struct {
		name, diff, wantErr string
	}{
		{"hunk before a header", "@@ -1 +1 @@\n-a\n+b\n", "guardrail: malformed diff: line 1: hunk before any file header"},
		{"bad hunk header", "--- a/x\n+++ b/x\n@@ -1,x +1 @@\n", `guardrail: malformed diff: line 3: malformed hunk header "@@ -1,x +1 @@"`},
		{"negative count", "--- a/x\n+++ b/x\n@@ -1,-1 +1 @@\n", `guardrail: malformed diff: line 3: malformed hunk header "@@ -1,-1 +1 @@"`},
		{"huge start", "--- a/x\n+++ b/x\n@@ -1 +99999999999999999999 @@\n", `guardrail: malformed diff: line 3: malformed hunk header "@@ -1 +99999999999999999999 @@"`},
		{"truncated hunk", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n", `guardrail: malformed diff: line 4: hunk "@@ -1,3 +1,3 @@" ends early: 2 old and 2 new lines missing`},
		{"too many added lines", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n+a\n+b\n", `guardrail: malformed diff: line 5: unexpected line "+b" in hunk "@@ -1 +1 @@" (1 old and 0 new lines left)`},
		{"combined diff", "diff --cc x\nindex 1,2..3\n", "guardrail: malformed diff: line 1: combined diffs (merge conflicts) are not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := guardrail.ParseDiff(tt.diff)
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, guardrail.ErrDiff) {
				t.Errorf("ParseDiff error = %v, want %q wrapping ErrDiff", err, tt.wantErr)
			}
		})
	}
}

// FuzzParseDiff checks that ParseDiff never panics, and that what it accepts
// is consistent: every file has a path, every hunk holds as many lines per
// side as its header says, numbered in order from its start.
func FuzzParseDiff(f *testing.F) {
	for _, file := range []string{"testdata/diffs/git.diff", "testdata/diffs/git-binary.diff"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n a\n-b\n\\ No newline at end of file\n")
	f.Add("diff --git \"a/\\303\\251\" b/x\nrename from \"\\303\\251\"\nrename to x\n")
	f.Add("diff --git a/x b/x\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n")
	f.Fuzz(func(t *testing.T, diff string) {
		files, err := guardrail.ParseDiff(diff)
		if err != nil {
			if !errors.Is(err, guardrail.ErrDiff) {
				t.Fatalf("error %v does not wrap ErrDiff", err)
			}
			return
		}
		for _, f := range files {
			if f.Path == "" {
				t.Fatalf("file without a path: %+v", f)
			}
			for _, h := range f.Hunks {
				oldNo, newNo := h.OldStart, h.NewStart
				for _, l := range h.Lines {
					switch l.Op {
					case guardrail.OpContext:
						if l.OldLine != oldNo || l.NewLine != newNo {
							t.Fatalf("context line numbered %d/%d, want %d/%d", l.OldLine, l.NewLine, oldNo, newNo)
						}
						oldNo, newNo = oldNo+1, newNo+1
					case guardrail.OpRemove:
						if l.OldLine != oldNo || l.NewLine != 0 {
							t.Fatalf("removed line numbered %d/%d, want %d/0", l.OldLine, l.NewLine, oldNo)
						}
						oldNo++
					case guardrail.OpAdd:
						if l.NewLine != newNo || l.OldLine != 0 {
							t.Fatalf("added line numbered %d/%d, want 0/%d", l.OldLine, l.NewLine, newNo)
						}
						newNo++
					default:
						t.Fatalf("line op %q", byte(l.Op))
					}
				}
				if oldNo-h.OldStart != h.OldLines || newNo-h.NewStart != h.NewLines {
					t.Fatalf("hunk %+v holds %d old and %d new lines", h, oldNo-h.OldStart, newNo-h.NewStart)
				}
			}
		}
	})
}
