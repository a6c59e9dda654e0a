// Command embedding shows harnish used as a library, wired as the harnish CLI
// wires it: one call, harnish.Open, builds every component the plan names
// and opens the run's locked state and its experience; the program then
// swaps the plan's agent for a Go function of its own, watches the run
// through an observer, and drives it to the end. It works in a new git
// repository in a temporary directory, offline, in about a second:
//
//	go run ./examples/embedding
//
// The agent gets the second task wrong once, so you see a failed check
// handed to the next attempt, which fixes it; each task done is a commit on
// the run's branch.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/harnish/harnish"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/task"
)

// plan names a command executor, which "harnish run" would start; this
// program brings its own agent instead.
const plan = `version: 1
name: greetings
executor: {kind: command, argv: [./agent.sh]}
phases:
  - id: words
    title: Words
    tasks:
      - id: hello
        title: write hello.txt
        files: [hello.txt]
        acceptance: [{run: [grep, -qx, hello, hello.txt]}]
  - id: more
    title: More words
    tasks:
      - id: world
        title: write world.txt
        files: [world.txt]
        acceptance: [{run: [grep, -qx, world, world.txt]}]
`

func main() {
	dir := flag.String("dir", "", "where to make the working tree (default: a new temporary directory)")
	flag.Parse()
	if err := run(context.Background(), *dir, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embedding:", err)
		os.Exit(1)
	}
}

// run makes the working tree in dir (a new temporary directory when empty)
// and carries the plan out there.
func run(ctx context.Context, dir string, out io.Writer) error {
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "harnish-embedding-"); err != nil {
			return err
		}
	}
	if err := makeTree(dir); err != nil {
		return err
	}
	p, err := task.Load(filepath.Join(dir, "harnish.yaml")) // every problem at once, with file:line:col
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "plan %q, %d tasks, in %s\n", p.Name, len(p.Tasks()), dir)

	r, err := harnish.Open(ctx, p, harnish.Options{
		Dir:         dir,
		Gate:        loop.AutoApprove{}, // every milestone approved, as --yes does
		Observer:    loop.ObserverFunc(func(e loop.Event) { narrate(out, e) }),
		CommitTasks: true, // one commit per task done, on Branch
		Branch:      "harnish/greetings",
	})
	if err != nil {
		return err
	}
	defer r.Close() // the state's lock, the experience store, any plugins
	r.Config().Executor = executor.Func(agent)

	res, err := r.Run(ctx) // or r.Resume(ctx, loop.ResumeOptions{}) after any stop or crash
	if res == nil {
		return err // the state could not be read or written
	}
	fmt.Fprintf(out, "outcome: %s (exit code %d)\n", res.Outcome, res.Outcome.ExitCode())
	log, err := git(dir, "log", "--format=%s", "-3")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "commits:\n  %s\n", strings.ReplaceAll(log, "\n", "\n  "))
	return nil
}

// agent is the program's own executor: it writes the task's word into the
// task's file, misspelling "world" on its first try; the next attempt gets
// the failed check in its request and gets it right.
func agent(ctx context.Context, req *executor.Request) (*executor.Result, error) {
	word := req.Task.ID
	if word == "world" && len(req.Parts.Failures) == 0 {
		word = "wrold"
	}
	file := req.Task.Files[0]
	if err := os.WriteFile(filepath.Join(req.WorkDir, file), []byte(word+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &executor.Result{Status: executor.StatusDone, Summary: "wrote " + word + " to " + file, FilesChanged: []string{file}}, nil
}

// narrate prints the events a person follows.
func narrate(out io.Writer, e loop.Event) {
	switch e.Type {
	case loop.AttemptStarted:
		fmt.Fprintf(out, "  %s attempt %d\n", e.Task, e.Attempt)
	case loop.VerifyFailed:
		fmt.Fprintf(out, "  %s attempt %d: checks fail: %s\n", e.Task, e.Attempt, e.Message)
	case loop.VerifyPassed:
		fmt.Fprintf(out, "  %s attempt %d: checks pass\n", e.Task, e.Attempt)
	case loop.TaskDone:
		fmt.Fprintf(out, "  %s done\n", e.Task)
	case loop.MilestoneApproved:
		fmt.Fprintf(out, "  milestone after phase %s approved\n", e.Phase)
	case loop.GuardrailViolated:
		fmt.Fprintf(out, "  guardrail (%s): %s\n", e.Level, e.Message)
	}
}

// makeTree writes the plan into dir and makes it a git repository with one
// commit, as a real working tree would be.
func makeTree(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "harnish.yaml"), []byte(plan), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "harnish.yaml"},
		{"commit", "-q", "-m", "the plan"},
	} {
		if _, err := git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// git runs git in dir, as harnish's demo identity, and returns its output.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-c", "user.name=harnish", "-c", "user.email=harnish@localhost"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}
