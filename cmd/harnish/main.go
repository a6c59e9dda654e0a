// Command harnish is the command-line host of the harnish library.
//
// Usage:
//
//	harnish <command> [arguments]
//
// Commands:
//
//	run [--plan FILE] [--dir DIR] [--yes] [--json]
//	    Carry a plan out in the working tree DIR; state under DIR/.harnish/.
//	resume [--dir DIR] [--yes] [--approve] [--json]
//	    Continue the run recorded in DIR/.harnish/.
//	status [--dir DIR] [--json] [--watch]
//	    Show where the recorded run stands; --watch follows it to its end.
//	serve [--dir DIR] [--addr 127.0.0.1:PORT] [--approve]
//	    Serve a live status page of the run.
//	validate FILE [--strict] [--json]
//	    Check a plan and print every problem as "file:line:col: field: message".
//	import [--format auto|progress|steps|plansmd] [--plan NAME] [-o FILE] PATH
//	    Convert a peer tool's plan or progress into a harnish plan.
//	plan --prd FILE [--executor SPEC] [--yes] [-o FILE]
//	    Draft a plan from a PRD with an agent; write it once valid and approved.
//	preflight [--plan FILE] [--dir DIR] [--json]
//	    Check a plan and a working tree before a run.
//	guard check [--shell bash|powershell|cmd] [--plan FILE] [--json] -- COMMAND
//	guard diff [--plan FILE] [--task ID] [--json] < PATCH
//	    Judge a command, or a unified diff, by the guardrails.
//	hook pre-tool-use|stop --agent claude|codex
//	    Answer an agent CLI's hook in its own protocol.
//	plugins list|check [--manifest FILE] [--dir DIR] [--json]
//	    Show the plugins of the manifest, or start them and check each.
//	help [COMMAND]
//	    Print usage.
//
// Exit status: 0 completed (or allowed); 1 usage or internal error; 2 needs a
// person, or a hard guardrail block for guard and hook; 3 stopped by a hard
// guardrail (run), or a soft warning only (guard); 4 budget exceeded; 130
// cancelled. "harnish help COMMAND" tells each command's own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnish/harnish/cmd/internal/cli"
	"github.com/harnish/harnish/internal/flagx"
)

// Exit codes shared by every command, harnish-hook's too.
const (
	exitOK    = cli.ExitOK
	exitError = cli.ExitError
)

// command is one subcommand. Each lives in its own file and is listed in
// commands.
type command struct {
	name    string
	args    string // the synopsis after the name, e.g. "FILE [--strict] [--json]"
	summary string // one line for the command list
	help    string // the rest of "harnish help NAME"
	run     func(c *command, args []string, stdout, stderr io.Writer) int
}

// parse parses args into fs for c, a command that takes no positional
// argument, then runs check (nil: none). ok false ends the command with
// code: the help was printed (0), or what was wrong, with the usage (1).
func (c *command) parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, check func() error) (code int, ok bool) {
	rest, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK, false
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err == nil && check != nil {
		err = check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish %s: %v\nUsage: harnish %s %s\n", c.name, err, c.name, c.args)
		return exitError, false
	}
	return exitOK, true
}

// commands lists the subcommands in the order usage shows them.
var commands = []*command{
	runCommand,
	resumeCommand,
	statusCommand,
	stopCommand,
	serveCommand,
	validateCommand,
	importCommand,
	planCommand,
	preflightCommand,
	assetsCommand,
	guardCommand,
	hookCommand,
	pluginsCommand,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole CLI: it dispatches args to a subcommand and returns the
// exit status. It writes only to stdout and stderr, so tests run it in-process.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitError
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		if c := lookup(rest[0]); c != nil && len(rest) == 1 {
			c.usage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "harnish help: unknown command %q\n", strings.Join(rest, " "))
		usage(stderr)
		return exitError
	}
	if code, ok := viaTemporal(args, stdout, stderr); ok { // --temporal ADDR: see temporal.go
		return code
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "harnish: unknown command %q\n", name)
		usage(stderr)
		return exitError
	}
	return c.run(c, rest, stdout, stderr)
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: harnish <command> [arguments]\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name)+1+len(c.args))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name+" "+c.args, c.summary)
	}
	fmt.Fprintf(w, "\nrun, resume and status take --temporal ADDR to work on a Temporal server, with approve and\n"+
		"worker; harnish-temporal (the contrib/temporal module) carries them out.\n")
	fmt.Fprintf(w, "\nRun \"harnish help <command>\" for more about a command.\n")
}

func (c *command) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: harnish %s %s\n\n%s", c.name, c.args, c.help)
}

// cmdContext is the context of a command that a signal need not cut short.
func cmdContext() context.Context { return context.Background() }
