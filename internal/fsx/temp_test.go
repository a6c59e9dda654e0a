package fsx_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/internal/fsx"
)

// deadPid returns the ID of a process that has exited: this test binary,
// run to do nothing.
func deadPid(t testing.TB) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestSweepTemp(t *testing.T) {
	const prefix = "harnish-test-"
	dir := t.TempDir()
	mine, err := fsx.MkdirTempOwned(dir, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if want := prefix + strconv.Itoa(os.Getpid()) + "-"; !strings.HasPrefix(filepath.Base(mine), want) {
		t.Fatalf("MkdirTempOwned made %s, want a name starting %s", filepath.Base(mine), want)
	}
	f, err := fsx.CreateTempOwned(dir, prefix)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	dead := strconv.Itoa(deadPid(t))
	live := strconv.Itoa(os.Getppid())
	for _, name := range []string{
		prefix + dead + "-1",            // swept
		prefix + dead + "-2",            // swept, with what is inside
		prefix + dead + "-3.lock",       // swept: made beside an owned file
		prefix + live + "-4",            // owner alive
		prefix + "5",                    // not owned: os.CreateTemp's own name
		prefix + "+" + dead + "-6",      // not owned
		"other-" + dead + "-7",          // another prefix
		prefix + "x" + dead + "-8",      // not owned
		strings.TrimSuffix(prefix, "-"), // not owned
	} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, prefix+dead+"-2")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, prefix+dead+"-2", "sub"), 0o700); err != nil {
		t.Fatal(err)
	}

	if err := fsx.SweepTemp(dir, prefix); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{filepath.Base(mine), filepath.Base(f.Name()), prefix + live + "-4", prefix + "5",
		prefix + "+" + dead + "-6", "other-" + dead + "-7", prefix + "x" + dead + "-8", strings.TrimSuffix(prefix, "-")}
	if diff := cmp.Diff(slices.Sorted(slices.Values(want)), got); diff != "" {
		t.Errorf("left in the directory (-want +got):\n%s", diff)
	}
}

// BenchmarkSweepTemp sweeps a directory of 1000 entries, none of them
// owned, as an executor does before every attempt. Run it with
//
//	go test -run '^$' -bench SweepTemp ./internal/fsx/
func BenchmarkSweepTemp(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("other-%d", i)), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if err := fsx.SweepTemp(dir, "harnish-attempt-"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestIsReplaceTemp(t *testing.T) {
	dir := t.TempDir()
	// What a write that a crash cut off leaves: ReplaceFile's own pattern.
	f, err := os.CreateTemp(dir, ".task-T1.json.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, want := range map[string]bool{
		filepath.Base(f.Name()): true,
		"task-T1.json":          false,
		".hidden":               false,
		"a.tmp-1":               false,
	} {
		if got := fsx.IsReplaceTemp(name); got != want {
			t.Errorf("IsReplaceTemp(%q) = %v, want %v", name, got, want)
		}
	}
	// ReplaceFile leaves none behind.
	if err := fsx.ReplaceFile(filepath.Join(dir, "x.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fsx.IsReplaceTemp(e.Name()) && e.Name() != filepath.Base(f.Name()) {
			t.Errorf("ReplaceFile left %s", e.Name())
		}
	}
}

// TestOwnedSweepsFirst: the first owned temp of a dir and prefix in a
// process sweeps what dead owners left there; the sweep is not repeated.
func TestOwnedSweepsFirst(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, "harnish-swept-999999999-x") // above any pid_max
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := fsx.MkdirTempOwned(dir, "harnish-swept-"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("a dead owner's directory was not swept: %v", err)
	}
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := fsx.CreateTempOwned(dir, "harnish-swept-"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); err != nil {
		t.Errorf("swept again in the same process: %v", err)
	}
}
