package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/hooksock"
)

// BenchmarkHook measures what an agent waits for at each hook, the way an
// agent starts one (bash -c with the hook's command line), against the
// floor measured in the same loop: the same bash -c command line with a
// static no-op program, built here, in place of harnish-hook. Each
// iteration runs the floor and every case once, the order rotating, so
// load that comes and goes hits them alike; the benchmark reports the
// median time of each and, for each case, the median of the per-iteration
// ratios case/floor.
//
//   - pre: pre-tool-use inside a run (an open harnish.Runner answers over
//     its socket), the case of every tool call of an agent harnish runs
//   - pre-cgo0: the same, harnish-hook built with CGO_ENABLED=0
//     (statically linked; the default build links libc through os/user)
//   - pre-alone: pre-tool-use outside a run: the hook judges the call itself
//   - pre-big, pre-big-alone: the same two with a plan of 2,000 tasks
//     (--plan), which the run keeps loaded and the hook alone parses at
//     each call
//   - stop: the task's one check (test -f a.txt) passes
//
// Run it with:
//
//	go test -run '^$' -bench Hook -benchtime 200x ./cmd/harnish-hook
func BenchmarkHook(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("needs bash")
	}
	bin := b.TempDir()
	noop := filepath.Join(bin, "noop")
	if err := os.WriteFile(filepath.Join(bin, "noop.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", noop, filepath.Join(bin, "noop.go"))
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build noop: %v\n%s", err, out)
	}
	hookBin, staticBin := filepath.Join(bin, "harnish-hook"), filepath.Join(bin, "harnish-hook-static")
	if out, err := exec.Command("go", "build", "-o", hookBin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build harnish-hook: %v\n%s", err, out)
	}
	build = exec.Command("go", "build", "-o", staticBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build harnish-hook: %v\n%s", err, out)
	}

	work := b.TempDir()
	if err := os.WriteFile(filepath.Join(work, "harnish.yaml"), []byte(plan), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	call := fmt.Sprintf(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"cwd":%q}`, work)
	env := []string{"HARNISH_WORKDIR=" + work, "HARNISH_TASK_ID=T1", "HARNISH_HOOK_LOG=" + filepath.Join(b.TempDir(), "hooks.jsonl")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HARNISH_") {
			env = append(env, kv)
		}
	}
	var big strings.Builder
	big.WriteString("version: 1\nname: big\nphases:\n  - id: p1\n    tasks:\n")
	for i := range 2000 {
		fmt.Fprintf(&big, "      - id: T%d\n        title: task %d\n        files: [f%d.go]\n        acceptance: [{run: [go, test, ./...]}]\n", i, i, i)
	}
	bigPlan := filepath.Join(work, "big.yaml")
	if err := os.WriteFile(bigPlan, []byte(big.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	sock, judged := openRun(b)
	inRun := append(slices.Clip(env), hooksock.EnvSocket+"="+sock)

	type hookCase struct {
		name, prog, args, stdin string
		env                     []string
	}
	cases := []hookCase{
		{"floor", noop, "pre-tool-use --agent codex", call, inRun},
		{"pre", hookBin, "pre-tool-use --agent codex", call, inRun},
		{"pre-cgo0", staticBin, "pre-tool-use --agent codex", call, inRun},
		{"pre-alone", hookBin, "pre-tool-use --agent codex", call, env},
		{"pre-big", hookBin, "pre-tool-use --agent codex --plan " + bigPlan, call, inRun},
		{"pre-big-alone", hookBin, "pre-tool-use --agent codex --plan " + bigPlan, call, env},
		{"stop", hookBin, "stop --agent codex", `{"hook_event_name":"Stop"}`, env},
	}
	run := func(c hookCase) time.Duration {
		cmd := exec.Command(bash, "-c", c.prog+" hook "+c.args)
		cmd.Env, cmd.Stdin = c.env, strings.NewReader(c.stdin)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		return d
	}
	times := make([][]time.Duration, len(cases))
	ratios := make([][]float64, len(cases))
	i := 0
	for b.Loop() {
		got := make([]time.Duration, len(cases))
		for k := range cases {
			j := (k + i) % len(cases)
			got[j] = run(cases[j])
		}
		i++
		for k := range cases {
			times[k] = append(times[k], got[k])
			ratios[k] = append(ratios[k], float64(got[k])/float64(got[0]))
		}
	}
	if want := int64(3 * i); judged.Load() != want {
		b.Fatalf("the run judged %d calls, want %d (pre, pre-cgo0 and pre-big each iteration)", judged.Load(), want)
	}
	for k, c := range cases {
		b.ReportMetric(float64(medianOf(times[k]))/1e6, c.name+"-ms")
		if k > 0 {
			b.ReportMetric(medianOf(ratios[k]), c.name+"/floor")
		}
	}
	fi, err := os.Stat(hookBin)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "hook-MiB")
}

func medianOf[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
