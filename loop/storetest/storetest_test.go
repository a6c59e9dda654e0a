package storetest_test

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/looptest"
	"github.com/harnish/harnish/loop/storetest"
)

func TestDirStore(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *loop.DirOptions
	}{
		{"default", nil},
		// A snapshot every few commits: every subtest folds its journal.
		{"small journal", &loop.DirOptions{CompactBytes: 4 << 10}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var compacted atomic.Int64
			storetest.RunDurable(t, func(t *testing.T, dir string) loop.Store {
				s, err := loop.OpenDir(dir, tt.opts)
				if err != nil {
					t.Fatalf("OpenDir: %v", err)
				}
				t.Cleanup(func() {
					if _, err := os.Stat(filepath.Join(dir, loop.SnapshotFile)); err == nil {
						compacted.Add(1)
					}
				})
				return s
			})
			// Otherwise the suite never had the store fold its journal
			// into a snapshot and reload it, and says nothing of it.
			if !testing.Short() && compacted.Load() == 0 {
				t.Errorf("no store of the suite wrote a %s", loop.SnapshotFile)
			}
		})
	}
}

func TestLooptestStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) loop.Store { return looptest.NewStore() })
}
