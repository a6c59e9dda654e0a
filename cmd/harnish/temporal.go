package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/task"
)

// Runs on a Temporal server. "harnish run --temporal ADDR ..." and its
// kin hand the command to the harnish-temporal program (the
// contrib/temporal module, which holds the Temporal SDK so that harnish
// does not), found next to harnish or on PATH as git finds git-foo, with
// the arguments translated, stdio passed through, and its exit status
// returned:
//
//	harnish run --temporal ADDR [--plan FILE] [--dir DIR] [flags]  ->  harnish-temporal run --address ADDR --commit [flags] FILE
//	harnish resume --temporal ADDR --id ID [--approve] [flags]      ->  harnish-temporal resume --address ADDR [flags] ID FILE
//	harnish approve --temporal ADDR ID [--reject] [--note] [--by]   ->  harnish-temporal approve --address ADDR [flags] ID
//	harnish status --temporal ADDR ID [--json]                      ->  harnish-temporal status --address ADDR [flags] ID
//	harnish worker --temporal ADDR [--task-queue Q] [--hook PROG]   ->  harnish-temporal worker --address ADDR [flags]

// temporalProgram is the program the commands with --temporal run.
const temporalProgram = "harnish-temporal"

// temporalInstall says how to get the program.
const temporalInstall = "install it with\n" +
	"  (cd contrib/temporal && go install ./cmd/harnish-temporal)\n" +
	"in a clone of harnish (the module builds against the harnish beside it),\n" +
	"and put it next to harnish or on PATH"

// viaTemporal runs args on a Temporal server when they ask for one (a
// --temporal flag), and reports whether they did. "approve" and "worker"
// exist only there.
func viaTemporal(args []string, stdout, stderr io.Writer) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	name := args[0]
	out, ok, err := temporalArgs(args)
	switch {
	case !ok && (name == "approve" || name == "worker"):
		fmt.Fprintf(stderr, "harnish %s: only with --temporal ADDR (a run on a Temporal server); a local run's gate is approved with harnish resume --approve\n", name)
		return exitError, true
	case !ok:
		return 0, false
	case err != nil:
		fmt.Fprintf(stderr, "harnish %s --temporal: %v\n", name, err)
		return exitError, true
	}
	bin, err := findTemporal()
	if err != nil {
		fmt.Fprintf(stderr, "harnish %s --temporal: %v\n", name, err)
		return exitError, true
	}
	cmd := exec.Command(bin, out...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err = cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok && ee.ExitCode() >= 0 {
		return ee.ExitCode(), true
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish %s --temporal: %s: %v\n", name, bin, err)
		return exitError, true
	}
	return exitOK, true
}

// findTemporal finds harnish-temporal next to the running harnish, else on
// PATH.
func findTemporal() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), temporalProgram)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(temporalProgram); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s is neither next to harnish nor on PATH; it runs the plans on Temporal: %s", temporalProgram, temporalInstall)
}

// temporalBool are the flags, of harnish and harnish-temporal, that take no
// value.
var temporalBool = []string{"yes", "detach", "worker", "rollback", "allow-dirty", "approve", "json", "reject", "v", "h", "help",
	"push", "session-notes", "no-transcripts", "watch"}

// temporalUnsupported are harnish run's flags a run on Temporal has no
// counterpart of.
var temporalUnsupported = []string{"push", "executor", "tasks", "session-notes", "no-transcripts", "watch"}

// temporalArgs translates a harnish command line with --temporal ADDR
// into harnish-temporal's; ok is false when it has no --temporal.
func temporalArgs(args []string) (out []string, ok bool, err error) {
	name := args[0]
	asked := false
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		k, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		asked = asked || strings.HasPrefix(a, "-") && k == "temporal"
	}
	if !asked {
		return nil, false, nil // the command's own parser judges its arguments
	}
	var (
		addr, plan, dir, id string
		flags, positional   []string
	)
	dir = "."
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		key, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal && !slices.Contains(temporalBool, key) {
			if i+1 == len(args) {
				return nil, true, fmt.Errorf("flag --%s needs a value", key)
			}
			i++
			val = args[i]
		}
		switch {
		case key == "temporal":
			addr, ok = val, true
		case key == "plan":
			plan = val
		case key == "id":
			id = val
		case key == "dir":
			dir = val
			flags = append(flags, "--dir", val)
		case slices.Contains(temporalUnsupported, key):
			err = fmt.Errorf("--%s has no counterpart in a run on Temporal", key)
		case hasVal || !slices.Contains(temporalBool, key):
			flags = append(flags, "--"+key, val)
		default:
			flags = append(flags, "--"+key)
		}
	}
	if !ok || err != nil {
		return nil, ok, err
	}
	if addr == "" {
		return nil, true, errors.New("--temporal needs the server's address, HOST:PORT")
	}
	out = append([]string{name, "--address", addr}, flags...)
	switch name {
	case "run", "resume":
		if plan == "" {
			if plan, _ = task.LocateFile(dir); plan == "" {
				return nil, true, fmt.Errorf("no plan: give --plan FILE or put one of %v in %s", task.DefaultFiles, dir)
			}
		}
		if len(positional) > 0 {
			return nil, true, fmt.Errorf("unexpected argument %q", positional[0])
		}
		if name == "run" {
			// As harnish run does: each task done is committed, on a branch
			// of the run's own (a dirty tree is refused, or with
			// --allow-dirty, nothing is committed).
			out = append(out, "--commit")
			if id != "" {
				out = append(out, "--id", id)
			}
			return append(out, plan), true, nil
		}
		if id == "" {
			return nil, true, errors.New("resume --temporal needs --id, the run's workflow ID (harnish run --temporal printed it)")
		}
		return append(out, id, plan), true, nil
	case "approve", "status":
		if id != "" {
			positional = append(positional, id)
		}
		if len(positional) != 1 {
			return nil, true, fmt.Errorf("want the run's workflow ID (harnish run --temporal printed it), got %d arguments", len(positional))
		}
		return append(out, positional[0]), true, nil
	case "worker":
		if len(positional) > 0 {
			return nil, true, fmt.Errorf("unexpected argument %q", positional[0])
		}
		return out, true, nil
	}
	return nil, true, fmt.Errorf("--temporal goes with run, resume, approve, status and worker, not with %s", name)
}
