package gitx_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/gitx"
)

// A failing git's error says what git said.
func TestErrorCarriesStderr(t *testing.T) {
	tests := []struct {
		name string
		hook string // pre-commit hook; "" for none
		do   func(ctx context.Context, dir string) error
		op   string
		want string // in the error's message and Stderr
	}{
		{
			name: "a refusing hook",
			hook: "#!/bin/sh\necho 'refused by policy: no TODOs' >&2\nexit 1\n",
			do: func(ctx context.Context, dir string) error {
				_, err := gitx.CommitAll(ctx, dir, "task")
				return err
			},
			op:   "commit",
			want: "refused by policy: no TODOs",
		},
		{
			name: "a refusing hook, paths only",
			hook: "#!/bin/sh\necho 'refused by policy: no TODOs' >&2\nexit 1\n",
			do: func(ctx context.Context, dir string) error {
				_, err := gitx.CommitPaths(ctx, dir, "records", "a.txt")
				return err
			},
			op:   "commit",
			want: "refused by policy: no TODOs",
		},
		{
			name: "a bad revision",
			do: func(ctx context.Context, dir string) error {
				_, err := gitx.Diff(ctx, dir, "HEAD", "no-such-rev")
				return err
			},
			op:   "diff",
			want: "no-such-rev",
		},
		{
			name: "a hook that says a lot",
			hook: "#!/bin/sh\nyes 'noise noise noise' | head -c 200000 >&2\necho 'the last word' >&2\nexit 1\n",
			do: func(ctx context.Context, dir string) error {
				_, err := gitx.CommitAll(ctx, dir, "task")
				return err
			},
			op:   "commit",
			want: "the last word",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, map[string]string{"a.txt": "a\n"})
			if tt.hook != "" {
				if err := fsx.WriteExecutable(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte(tt.hook), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			err := tt.do(context.Background(), dir)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error lacks %q:\n%v", tt.want, err)
			}
			var ge *gitx.Error
			if !errors.As(err, &ge) {
				t.Fatalf("error %v is no *gitx.Error", err)
			}
			if diff := cmp.Diff(tt.op, ge.Op); diff != "" {
				t.Errorf("Op (-want +got):\n%s", diff)
			}
			if !strings.Contains(ge.Stderr, tt.want) || len(ge.Stderr) > gitx.MaxStderr {
				t.Errorf("Stderr holds %d bytes (at most %d), want them to end with %q:\n%.200s", len(ge.Stderr), gitx.MaxStderr, tt.want, ge.Stderr)
			}
			if len(err.Error()) > gitx.MaxStderr+1000 {
				t.Errorf("error message is %d bytes long", len(err.Error()))
			}
			if errors.Is(err, gitx.ErrLocked) {
				t.Errorf("error %v matches ErrLocked", err)
			}
		})
	}
}
