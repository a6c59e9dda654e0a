//go:build unix

package proc_test

import (
	"fmt"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/proc"
)

// heapInuse reads the heap in use (as MemStats.HeapInuse counts it) without
// stopping the world, so sampling it does not slow what it measures.
func heapInuse() uint64 {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64()
}

// peakHeap runs f while sampling the heap, and returns how far it rose
// above where it started.
func peakHeap(f func()) uint64 {
	runtime.GC()
	base := heapInuse()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if h := heapInuse(); h > base && h-base > peak.Load() {
				peak.Store(h - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

const maxPeakHeap = 32 << 20

// A check that writes a lot costs the runner constant memory.
func TestRunConstantMemory(t *testing.T) {
	const size = 256 << 20
	var res *proc.Result
	var err error
	peak := peakHeap(func() {
		res, err = proc.Run(t.Context(), proc.Spec{Root: t.TempDir(), Argv: []string{"head", "-c", fmt.Sprint(size), "/dev/zero"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != proc.TailChars {
		t.Errorf("kept %d bytes of stdout, want %d", len(res.Stdout), proc.TailChars)
	}
	if peak > maxPeakHeap {
		t.Errorf("heap rose by %d MiB while the command wrote %d MiB; want under %d MiB", peak>>20, size>>20, maxPeakHeap>>20)
	}
}

// BenchmarkRun1GiB pipes 1 GiB from head through the runner and, in the same
// iteration, through cat into /dev/null (the floor), the order alternating,
// and reports the medians of both throughputs and the median of the
// per-iteration ratios of their times (runner/floor; 1 is the floor's
// speed). The runner's peak heap growth is measured in a run of its own
// before the timed ones, so the heap sampler and the GC it starts with are
// not charged to the runner's time. Run it with
//
//	go test -run '^$' -bench Run1GiB -benchtime 5x ./internal/proc/
func BenchmarkRun1GiB(b *testing.B) {
	const size = 1 << 30
	argv := []string{"head", "-c", fmt.Sprint(size), "/dev/zero"}
	root := b.TempDir()
	var err error
	peak := peakHeap(func() { _, err = proc.Run(b.Context(), proc.Spec{Root: root, Argv: argv}) })
	if err != nil {
		b.Fatal(err)
	}
	runOnce := func() time.Duration {
		start := time.Now()
		if _, err := proc.Run(b.Context(), proc.Spec{Root: root, Argv: argv}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	floorOnce := func() time.Duration {
		start := time.Now()
		if out, err := exec.Command("sh", "-c", fmt.Sprintf("head -c %d /dev/zero | cat > /dev/null", size)).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	var runner, cat, ratios []float64 // MB/s, MB/s, runner time / floor time
	i := 0
	for b.Loop() {
		var r, f time.Duration
		if i%2 == 0 {
			r, f = runOnce(), floorOnce()
		} else {
			f, r = floorOnce(), runOnce()
		}
		i++
		runner = append(runner, size/1e6/r.Seconds())
		cat = append(cat, size/1e6/f.Seconds())
		ratios = append(ratios, r.Seconds()/f.Seconds())
	}
	b.ReportMetric(median(runner), "runner-MB/s")
	b.ReportMetric(median(cat), "cat-MB/s")
	b.ReportMetric(median(ratios), "runner/floor")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if peak > maxPeakHeap {
		b.Errorf("peak heap growth %d MiB, want under %d MiB", peak>>20, maxPeakHeap>>20)
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkRunWatchdog runs a command through Run with the group's watchdog
// and without, in turn (the order alternating) in each iteration, and
// reports the median wall time of each and their ratio. Run it with
//
//	go test -run '^$' -bench RunWatchdog -benchtime 2000x ./internal/proc/
func BenchmarkRunWatchdog(b *testing.B) {
	for _, argv := range [][]string{{"true"}, {"git", "--version"}} {
		b.Run(argv[0], func(b *testing.B) {
			if _, err := exec.LookPath(argv[0]); err != nil {
				b.Skip(err)
			}
			defer proc.SetWatchdog(true)
			root := b.TempDir()
			var times [2][]float64 // µs without, with
			i := 0
			for b.Loop() {
				for k := range 2 {
					on := (i+k)%2 == 1
					proc.SetWatchdog(on)
					start := time.Now()
					if _, err := proc.Run(b.Context(), proc.Spec{Root: root, Argv: argv}); err != nil {
						b.Fatal(err)
					}
					times[btoi(on)] = append(times[btoi(on)], float64(time.Since(start).Nanoseconds())/1e3)
				}
				i++
			}
			without, with := median(times[0]), median(times[1])
			b.ReportMetric(without, "µs-without")
			b.ReportMetric(with, "µs-with")
			b.ReportMetric(with/without, "ratio")
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
