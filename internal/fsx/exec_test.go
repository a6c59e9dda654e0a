//go:build unix

package fsx_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/harnish/harnish/internal/fsx"
)

// Scripts written while other goroutines keep starting processes run at
// once: none fails with "text file busy", which os.WriteFile alone gives
// now and then (the file inherited, still open for writing, by a child
// forked meanwhile).
func TestWriteExecutableRunsAtOnce(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 2 {
		forks.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					_ = exec.Command("/bin/true").Run()
				}
			}
		})
	}
	defer func() { close(stop); forks.Wait() }()
	for i := range 200 {
		path := filepath.Join(dir, fmt.Sprintf("s%d", i))
		if err := fsx.WriteExecutable(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path).CombinedOutput(); err != nil {
			t.Fatalf("script %d: %v\n%s", i, err, out)
		}
	}
}
