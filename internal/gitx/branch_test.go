package gitx_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/internal/testkit"
)

func TestCurrentBranchAndExists(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	testkit.Git(t, dir, "branch", "harnish/plan-1")
	current := func() string {
		t.Helper()
		b, err := gitx.CurrentBranch(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := current(); got != "main" {
		t.Errorf("CurrentBranch = %q, want main", got)
	}
	testkit.Git(t, dir, "switch", "-q", "harnish/plan-1")
	if got := current(); got != "harnish/plan-1" {
		t.Errorf("CurrentBranch = %q, want harnish/plan-1", got)
	}
	testkit.Git(t, dir, "switch", "-q", "--detach")
	if got := current(); got != "" {
		t.Errorf("CurrentBranch on a detached HEAD = %q, want \"\"", got)
	}
	testkit.Git(t, dir, "switch", "-q", "--orphan", "fresh")
	if got := current(); got != "fresh" {
		t.Errorf("CurrentBranch on a branch without commits = %q, want fresh", got)
	}
	if _, err := gitx.CurrentBranch(ctx, t.TempDir()); err == nil {
		t.Error("CurrentBranch outside a repository succeeded")
	}

	for name, want := range map[string]bool{"main": true, "harnish/plan-1": true, "harnish": false, "plan-1": false, "main^": false, "main@{0}": false, "fresh": false} {
		got, err := gitx.BranchExists(ctx, dir, name)
		if err != nil || got != want {
			t.Errorf("BranchExists(%q) = %t, %v; want %t", name, got, err, want)
		}
	}
	if _, err := gitx.BranchExists(ctx, t.TempDir(), "main"); err == nil {
		t.Error("BranchExists outside a repository succeeded")
	}
}

func TestSwitch(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) // on main, with branch side holding side.txt
		to      string
		wantErr string // in the error; "" for none
		dirty   bool   // the error wraps ErrDirty
		files   map[string]string
		branch  string // after
	}{
		{
			name:   "clean",
			to:     "side",
			files:  map[string]string{"side.txt": "side\n"},
			branch: "side",
		},
		{
			name: "the state directory does not block",
			setup: func(t *testing.T, dir string) {
				write(t, dir, map[string]string{".harnish/state.json": "{}\n"})
			},
			to:     "side",
			files:  map[string]string{"side.txt": "side\n", ".harnish/state.json": "{}\n"},
			branch: "side",
		},
		{
			name: "an ignored file does not block",
			setup: func(t *testing.T, dir string) {
				write(t, dir, map[string]string{".git/info/exclude": "build/\n", "build/out": "x\n"})
			},
			to:     "side",
			files:  map[string]string{"side.txt": "side\n", "build/out": "x\n"},
			branch: "side",
		},
		{
			name:   "already there",
			setup:  func(t *testing.T, dir string) { write(t, dir, map[string]string{"wip.txt": "wip\n"}) },
			to:     "main",
			files:  map[string]string{"wip.txt": "wip\n"},
			branch: "main",
		},
		{
			name: "changes would be carried along",
			setup: func(t *testing.T, dir string) {
				write(t, dir, map[string]string{"a.txt": "changed\n", "new.txt": "new\n"})
			},
			to:      "side",
			wantErr: "a.txt, new.txt",
			dirty:   true,
			files:   map[string]string{"a.txt": "changed\n", "new.txt": "new\n", "side.txt": "<missing>"},
			branch:  "main",
		},
		{
			name: "a staged change would be carried along",
			setup: func(t *testing.T, dir string) {
				write(t, dir, map[string]string{"a.txt": "staged\n"})
				testkit.Git(t, dir, "add", "a.txt")
			},
			to:      "side",
			wantErr: "a.txt",
			dirty:   true,
			files:   map[string]string{"a.txt": "staged\n"},
			branch:  "main",
		},
		{
			name: "an ignored file the branch holds is not overwritten",
			setup: func(t *testing.T, dir string) {
				write(t, dir, map[string]string{".git/info/exclude": "side.txt\n", "side.txt": "mine\n"})
			},
			to:      "side",
			wantErr: "side.txt",
			files:   map[string]string{"side.txt": "mine\n"},
			branch:  "main",
		},
		{
			name:    "no such branch",
			to:      "nope",
			wantErr: "no such branch",
			branch:  "main",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			write(t, dir, map[string]string{"a.txt": "a\n"})
			testkit.Git(t, dir, "add", "a.txt")
			testkit.Git(t, dir, "commit", "-q", "-m", "a")
			testkit.Git(t, dir, "switch", "-q", "-c", "side")
			write(t, dir, map[string]string{"side.txt": "side\n"})
			testkit.Git(t, dir, "add", "side.txt")
			testkit.Git(t, dir, "commit", "-q", "-m", "side")
			testkit.Git(t, dir, "switch", "-q", "main")
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			err := gitx.Switch(context.Background(), dir, tt.to, ".harnish")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Switch: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Switch error = %v, want one naming %q", err, tt.wantErr)
			}
			if errors.Is(err, gitx.ErrDirty) != tt.dirty {
				t.Errorf("error %v: matches ErrDirty = %t, want %t", err, !tt.dirty, tt.dirty)
			}
			got := map[string]string{}
			for name := range tt.files {
				got[name] = read(t, filepath.Join(dir, name))
			}
			if diff := cmp.Diff(tt.files, got); tt.files != nil && diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if b, _ := gitx.CurrentBranch(context.Background(), dir); b != tt.branch {
				t.Errorf("on branch %q, want %q", b, tt.branch)
			}
		})
	}
}

func TestFreeBranchName(t *testing.T) {
	tests := []struct {
		name     string
		branches []string
		base     string
		want     string
		wantErr  bool
	}{
		{name: "free", base: "harnish/plan-1", want: "harnish/plan-1"},
		{name: "taken", branches: []string{"harnish/plan-1"}, base: "harnish/plan-1", want: "harnish/plan-1-2"},
		{name: "taken twice", branches: []string{"harnish/plan-1", "harnish/plan-1-2"}, base: "harnish/plan-1", want: "harnish/plan-1-3"},
		{name: "a gap", branches: []string{"harnish/plan-1", "harnish/plan-1-3"}, base: "harnish/plan-1", want: "harnish/plan-1-2"},
		{name: "a longer name is no clash", branches: []string{"harnish/plan-10"}, base: "harnish/plan-1", want: "harnish/plan-1"},
		{name: "a branch below it", branches: []string{"harnish/plan-1/x"}, base: "harnish/plan-1", want: "harnish/plan-1-2"},
		{name: "the current branch", base: "main", want: "main-2"},
		{name: "a branch above it", branches: []string{"harnish"}, base: "harnish/plan-1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			for _, b := range tt.branches {
				testkit.Git(t, dir, "branch", b)
			}
			got, err := gitx.FreeBranchName(context.Background(), dir, tt.base)
			if (err != nil) != tt.wantErr {
				t.Fatalf("FreeBranchName(%q) = %q, %v; want error %t", tt.base, got, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FreeBranchName(%q) (-want +got):\n%s", tt.base, diff)
			}
			if err == nil {
				if err := gitx.Branch(context.Background(), dir, got); err != nil {
					t.Errorf("Branch(%q): %v", got, err)
				}
			}
		})
	}
}
