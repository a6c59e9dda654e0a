// Command harnish-hook answers the hooks of the agent CLIs that harnish runs,
// as "harnish hook" does, in a binary that links only what the hooks need.
// Claude Code and Codex start a hook before every tool call; without the
// plugin host (gRPC, protobuf, go-plugin) to load and initialise, this one
// starts in about half the time of harnish. Inside a run, it sends a
// pre-tool-use call to the run (see "harnish help hook"), which has the
// plan loaded, and only writes back the answer.
//
// Usage:
//
//	harnish-hook [hook] pre-tool-use --agent claude|codex [--plan FILE]
//	harnish-hook [hook] stop --agent claude|codex [--plan FILE] [--task ID]
//	harnish-hook help
//
// "harnish-hook hook ARGS" takes the arguments of "harnish hook ARGS" and
// answers byte for byte the same, so an executor's Harnish field may name
// either binary. "harnish run" hands its agents the harnish-hook installed
// beside it when both were built from the same release or commit. A program
// that embeds harnish answers the same command lines with package hook
// (hook.Handler.Run), judging by guardrails of its own.
package main

import (
	"io"
	"os"

	"github.com/harnish/harnish/cmd/internal/cli"
	"github.com/harnish/harnish/cmd/internal/hookcmd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole command: args without the program name.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "hook":
			args = args[1:]
		case "help", "-h", "-help", "--help":
			hookcmd.Usage(stdout)
			return cli.ExitOK
		}
	}
	return hookcmd.Run(args, stdin, stdout, stderr)
}
