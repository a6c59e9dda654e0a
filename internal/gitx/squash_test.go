package gitx_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/testkit"
)

// TestSquashOntoAfterCutMerge: a fast-forward that a crash cut off after
// git wrote the change's files, before it moved HEAD, leaves them in the
// way of the next one. SquashOnto takes back exactly those (an added file
// holding the change's content, a changed one, a deleted one missing) and
// merges; a file in the way with other content is not touched.
func TestSquashOntoAfterCutMerge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		foreign bool // a.txt in the way holds something else
	}{
		{"remnants of the cut merge", false},
		{"a file of someone else's in the way", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testkit.GitTree(t)
			git := func(args ...string) string { return testkit.Git(t, dir, args...) }
			write := func(name, data string) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("b.txt", "b1\n")
			write("c.txt", "c1\n")
			git("add", ".")
			git("commit", "-q", "-m", "base")
			git("checkout", "-q", "-b", "fork")
			write("out/d.txt", "d2\n")
			write("a.txt", "a2\n")
			write("b.txt", "b2\n")
			git("rm", "-q", "c.txt")
			git("add", ".")
			git("commit", "-q", "-m", "the change")
			git("checkout", "-q", "-")

			// What the cut merge left: the change's files, HEAD unmoved.
			if tc.foreign {
				write("a.txt", "mine\n")
			} else {
				write("a.txt", "a2\n")
				write("b.txt", "b2\n")
				write("out/d.txt", "d2\n")
				if err := os.Remove(filepath.Join(dir, "c.txt")); err != nil {
					t.Fatal(err)
				}
			}
			c, err := gitx.SquashOnto(t.Context(), dir, "fork", "squash\n")
			if tc.foreign {
				if err == nil || !strings.Contains(err.Error(), "a.txt") {
					t.Fatalf("SquashOnto = %q, %v; want an error naming a.txt", c, err)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "mine\n" {
					t.Errorf("a.txt became %q", b)
				}
				return
			}
			if err != nil || c == "" {
				t.Fatalf("SquashOnto = %q, %v", c, err)
			}
			if st := git("status", "--porcelain"); st != "" {
				t.Errorf("git status after the merge:\n%s", st)
			}
			if got := git("show", "--name-status", "--format=%s", "HEAD"); got != "squash\n\nA\ta.txt\nM\tb.txt\nD\tc.txt\nA\tout/d.txt" {
				t.Errorf("HEAD:\n%s", got)
			}
		})
	}
}
