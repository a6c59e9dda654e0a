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
// iteration runs both, interleaved, the order alternating; the benchmark
// reports the medians of each and the median of the per-iteration ratios
// (hook/floor).
//
//   - pre-tool-use/socket: inside a run (an open harnish.Runner answers
//     over its socket), the case of every tool call of an agent harnish runs
//   - pre-tool-use/socket,cgo=0: the same, harnish-hook built with
//     CGO_ENABLED=0 (statically linked)
//   - pre-tool-use/alone: outside a run, the hook judges the call itself
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

	b.Run("pre-tool-use/socket", func(b *testing.B) {
		sock, _ := openRun(b)
		benchHook(b, bash, noop, hookBin, "pre-tool-use --agent codex", call, append(env, hooksock.EnvSocket+"="+sock), 0)
	})
	// The same built without cgo: what linking os/user (through
	// mvdan.cc/sh/v3/expand) costs each hook, the dynamic loader and libc.
	b.Run("pre-tool-use/socket,cgo=0", func(b *testing.B) {
		sock, _ := openRun(b)
		benchHook(b, bash, noop, staticBin, "pre-tool-use --agent codex", call, append(env, hooksock.EnvSocket+"="+sock), 0)
	})
	b.Run("pre-tool-use/alone", func(b *testing.B) {
		benchHook(b, bash, noop, hookBin, "pre-tool-use --agent codex", call, env, 0)
	})
	b.Run("stop", func(b *testing.B) {
		benchHook(b, bash, noop, hookBin, "stop --agent codex", `{"hook_event_name":"Stop"}`, env, 0)
	})
	fi, err := os.Stat(hookBin)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("harnish-hook: %d bytes", fi.Size())
}

// benchHook times `bash -c "PROG hook ARGS"` with stdin as its input, PROG
// harnish-hook and the no-op floor by turns, and wants exit status want
// from the hook.
func benchHook(b *testing.B, bash, noop, hookBin, args, stdin string, env []string, want int) {
	run := func(prog string) time.Duration {
		cmd := exec.Command(bash, "-c", prog+" hook "+args)
		cmd.Env, cmd.Stdin = env, strings.NewReader(stdin)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				b.Fatalf("%s: %v", prog, err)
			}
			code = ee.ExitCode()
		}
		if prog != noop && code != want {
			b.Fatalf("%s hook %s: exit %d, want %d; output:\n%s", prog, args, code, want, out)
		}
		return d
	}
	var floors, hooks []time.Duration
	var ratios []float64
	i := 0
	for b.Loop() {
		var f, h time.Duration
		if i%2 == 0 {
			f, h = run(noop), run(hookBin)
		} else {
			h, f = run(hookBin), run(noop)
		}
		i++
		floors, hooks, ratios = append(floors, f), append(hooks, h), append(ratios, float64(h)/float64(f))
	}
	b.ReportMetric(float64(medianOf(floors)), "floor-ns/median")
	b.ReportMetric(float64(medianOf(hooks)), "hook-ns/median")
	b.ReportMetric(medianOf(ratios), "hook/floor")
}

func medianOf[T time.Duration | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
