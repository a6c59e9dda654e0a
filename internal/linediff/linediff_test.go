package linediff_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/linediff"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n", want: ""},
		{name: "both empty"},
		{name: "added", old: "", new: "a\nb\n", want: "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{name: "removed", old: "a\n", new: "", want: "@@ -1 +0,0 @@\n-a\n"},
		{
			name: "middle line", old: "1\n2\n3\n4\n5\n6\n7\n8\n9\n", new: "1\n2\n3\n4\nX\n6\n7\n8\n9\n",
			want: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+X\n 6\n 7\n 8\n",
		},
		{
			name: "no newline at end, added",
			old:  "a\nb", new: "a\nb\n",
			want: "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			name: "no newline on both sides",
			old:  "a\nb", new: "a\nc",
			want: "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
		{
			name: "two hunks when the gap passes twice the context",
			old:  "x\n1\n2\n3\n4\n5\n6\n7\ny\n", new: "X\n1\n2\n3\n4\n5\n6\n7\nY\n",
			want: "@@ -1,4 +1,4 @@\n-x\n+X\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-y\n+Y\n",
		},
		{
			name: "one hunk when the gap is twice the context",
			old:  "x\n1\n2\n3\n4\n5\n6\ny\n", new: "X\n1\n2\n3\n4\n5\n6\nY\n",
			want: "@@ -1,8 +1,8 @@\n-x\n+X\n 1\n 2\n 3\n 4\n 5\n 6\n-y\n+Y\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, linediff.Unified(tt.old, tt.new, 3)); diff != "" {
				t.Errorf("Unified (-want +got):\n%s", diff)
			}
		})
	}
}

// The edit script is valid and as short as an LCS says it can be.
func TestDiffMinimal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		a, b := randomLines(r, r.IntN(30)), randomLines(r, r.IntN(30))
		ops := linediff.Diff(a, b)
		if got := apply(a, b, ops); !cmp.Equal(got, b, cmpEmpty) {
			t.Fatalf("case %d: %q to %q: ops %q give %q", i, a, b, ops, got)
		}
		changes := 0
		for _, op := range ops {
			if op != linediff.Equal {
				changes++
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("case %d: %q to %q: %d changes, want %d", i, a, b, changes, want)
		}
	}
}

// Past the cost bound the diff stays correct, and quick.
func TestDiffLargeUnlike(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var a, b []string
	for range 200000 {
		a = append(a, fmt.Sprintf("a%d\n", r.IntN(1<<30)))
		b = append(b, fmt.Sprintf("b%d\n", r.IntN(1<<30)))
	}
	b[100000] = a[5]
	ops := linediff.Diff(a, b)
	if got := apply(a, b, ops); !cmp.Equal(got, b) {
		t.Fatal("the edit script does not give b")
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, old, new string) {
		a, b := linediff.Lines(old), linediff.Lines(new)
		if got := apply(a, b, linediff.Diff(a, b)); strings.Join(got, "") != new {
			t.Fatalf("%q to %q gives %q", old, new, got)
		}
	})
}

var cmpEmpty = cmp.Comparer(func(x, y []string) bool {
	return strings.Join(x, "\x00") == strings.Join(y, "\x00") && len(x) == len(y)
})

// apply follows ops over a, checking that kept lines are equal, and returns
// the lines it makes.
func apply(a, b []string, ops []linediff.Op) []string {
	var out []string
	i, j := 0, 0
	for _, op := range ops {
		switch op {
		case linediff.Equal:
			if i >= len(a) || j >= len(b) || a[i] != b[j] {
				return append(out, "<bad equal>")
			}
			out = append(out, a[i])
			i, j = i+1, j+1
		case linediff.Delete:
			i++
		case linediff.Insert:
			out = append(out, b[j])
			j++
		}
	}
	if i != len(a) {
		out = append(out, "<a left over>")
	}
	return out
}

func randomLines(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a'+r.IntN(4))) + "\n"
	}
	return out
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestReplaced(t *testing.T) {
	tests := []struct{ old, new, want string }{
		{"", "", ""},
		{"a\nb\n", "b\n", "@@ -1,2 +1 @@\n-a\n-b\n+b\n"},
		{"", "x", "@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, linediff.Replaced(tt.old, tt.new)); diff != "" {
			t.Errorf("Replaced(%q, %q) (-want +got):\n%s", tt.old, tt.new, diff)
		}
	}
}
