package proc_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/harnish/harnish/internal/proc"
)

// tree makes root/{sub/deep, file, in -> sub, out -> outside, sub/up ->
// ../.., loop} beside a directory outside the root, and returns the root
// and the outside directory, both symlink-free.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub", "deep"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		filepath.Join(root, "in"):        "sub",
		filepath.Join(root, "out"):       outside,
		filepath.Join(root, "sub", "up"): filepath.Join("..", ".."),
		filepath.Join(root, "loop"):      "loop",
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return root, outside
}

func TestConfine(t *testing.T) {
	root, outside := tree(t)
	tests := []struct {
		name    string
		dir     string
		want    string // relative to root; "" with wantErr
		outside bool   // the error wraps ErrOutsideRoot
		wantErr bool
	}{
		{name: "empty is the root", dir: "", want: "."},
		{name: "dot", dir: ".", want: "."},
		{name: "subdirectory", dir: "sub/deep", want: "sub/deep"},
		{name: "dot-dot that stays inside", dir: "sub/deep/..", want: "sub"},
		{name: "absolute inside", dir: filepath.Join(root, "sub"), want: "sub"},
		{name: "symlink staying inside", dir: "in/deep", want: "sub/deep"},
		{name: "dot-dot", dir: "..", outside: true, wantErr: true},
		{name: "dot-dot further", dir: "../outside", outside: true, wantErr: true},
		{name: "dot-dot after a name", dir: "sub/../../outside", outside: true, wantErr: true},
		{name: "absolute outside", dir: outside, outside: true, wantErr: true},
		{name: "absolute root of the file system", dir: "/", outside: true, wantErr: true},
		{name: "symlink pointing outside", dir: "out", outside: true, wantErr: true},
		{name: "symlink climbing out", dir: "sub/up", outside: true, wantErr: true},
		{name: "missing", dir: "nope", wantErr: true},
		{name: "a file", dir: "file", wantErr: true},
		{name: "symlink loop", dir: "loop", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := proc.Confine(root, tt.dir)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Confine(%q) = %q, %v; want error %t", tt.dir, got, err, tt.wantErr)
			}
			if errors.Is(err, proc.ErrOutsideRoot) != tt.outside {
				t.Errorf("error %v: wraps ErrOutsideRoot = %t, want %t", err, !tt.outside, tt.outside)
			}
			if err == nil && got != filepath.Join(root, tt.want) {
				t.Errorf("Confine(%q) = %q, want %q", tt.dir, got, filepath.Join(root, tt.want))
			}
		})
	}
}

// A root reached through a symlink still confines by where things really are.
func TestConfineSymlinkedRoot(t *testing.T) {
	root, _ := tree(t)
	alias := filepath.Join(filepath.Dir(root), "alias")
	if err := os.Symlink(root, alias); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if got, err := proc.Confine(alias, "sub"); err != nil || got != filepath.Join(root, "sub") {
		t.Errorf("Confine(alias, sub) = %q, %v; want %q", got, err, filepath.Join(root, "sub"))
	}
	if got, err := proc.Confine(alias, filepath.Join(alias, "sub")); err != nil || got != filepath.Join(root, "sub") {
		t.Errorf("Confine(alias, alias/sub) = %q, %v", got, err)
	}
	if _, err := proc.Confine(alias, "out"); !errors.Is(err, proc.ErrOutsideRoot) {
		t.Errorf("Confine(alias, out) error = %v, want ErrOutsideRoot", err)
	}
}
