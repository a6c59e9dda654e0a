package hookcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/harnish/harnish/cmd/internal/cli"
	"github.com/harnish/harnish/hook"
)

// Synopsis and Summary describe the command in harnish's command list.
const (
	Synopsis = "pre-tool-use|stop --agent claude|codex"
	Summary  = "answer an agent's hook: guardrails before a tool call, checks before a stop"
)

// Help is the rest of "harnish help hook".
const Help = `Hook is what an agent CLI's hook configuration runs. It reads the hook's
JSON from standard input and answers in the agent's own protocol.

  harnish hook pre-tool-use --agent claude|codex [--plan FILE]
      Judge the tool call the agent is about to make. Claude Code and Codex
      send the same PreToolUse JSON: tool_name, tool_input and cwd. A shell
      call's command (tool_input.command or .cmd, a string or an argv list)
      is judged by the command rules (Codex's apply_patch commands also by
      the edit rules, file by file); Write, Edit, MultiEdit and NotebookEdit
      calls by the edit rules on their file and the change they make to it,
      secrets included (a deleted cell on its path alone; Gemini CLI's
      run_shell_command, write_file and replace as Bash, Write and Edit,
      should its hooks send them); Codex's apply_patch tool (the patch as
      tool_input.command, .input or .patch) by the edit rules on each file
      its patch changes, with that file's part of the patch. The size rule
      is left to the loop, on the attempt's whole diff. Other tools are
      allowed. For Codex, a command that starts a shell or REPL with no
      script (bash, python3, node...) is blocked (shell.interactive): what
      Codex writes to it later (write_stdin) reaches no hook.

  harnish hook stop --agent claude|codex [--plan FILE] [--task ID]
      The agent wants to stop. Run the current task's acceptance checks and
      refuse the stop (exit 2, the failing check and its output on standard
      error, which the agent hands the model) while they fail, at most 3
      times in one attempt (counted in $HARNISH_HOOK_LOG; without it, a stop
      that is already a continuation goes). The task is
      --task, else $HARNISH_TASK_ID, else the task the run recorded in the
      working tree has running; with none, the agent may stop. The plan is
      --plan, else the one the run keeps in .harnish/, else the defaults
      below.

The policy is the plan given by --plan, or else the first of harnish.yaml,
harnish.yml, harnish.json, plan.yaml, plan.yml, plan.json in the working
tree: $HARNISH_WORKDIR (which harnish sets for the agent) when it is an
absolute path, else the hook's cwd. A command whose cwd is elsewhere is
judged as run there (cd CWD && ...), and relative edit paths resolve from
the cwd; paths are protected relative to the working tree. With no plan,
the defaults: only .harnish/ is protected and no package may be installed.

Inside a run, a pre-tool-use call goes to the run that started the agent
($HARNISH_HOOK_SOCKET, a socket under .harnish/), which judges it as this
command would, with the plan already loaded; when the socket is gone the
command judges the call itself, and when the run does not answer in 10s
the call is blocked.

Exit status 0 allows the call (soft decisions are written to standard error
as warnings); 2 blocks it, with the reason on standard error, which the
agent shows the model. Guardrails fail closed: input that does not decode,
an unknown agent or a plan that does not load block the call too.
`

// Usage prints the help of "harnish hook".
func Usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: harnish hook %s\n\n%s", Synopsis, Help)
}

// Run is "harnish hook ARGS": args start with pre-tool-use or stop. It
// answers with the built-in guardrails (the zero [hook.Handler]) and
// returns the exit status. A pre-tool-use call made inside a run that
// listens on a hook socket ($HARNISH_HOOK_SOCKET) is sent there and judged
// by the run, with the same handler, so the answer is the same; a socket
// that is there and fails blocks the call (see [AskTimeout]).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		Usage(stdout)
		return cli.ExitOK
	}
	if len(args) == 0 || args[0] != "pre-tool-use" && args[0] != "stop" {
		fmt.Fprintf(stderr, "harnish hook: want pre-tool-use or stop\nUsage: harnish hook %s\n", Synopsis)
		return hook.ExitBlock
	}
	if args[0] == "pre-tool-use" {
		// Inside a run, the run judges the call: it has the guardrails
		// loaded, and this process need not build them.
		code, ok, in := ask(args[1:], stdin, stderr)
		if ok {
			return code
		}
		stdin = in
	}
	ctx := context.Background()
	if args[0] == "stop" {
		// An agent that gives up on its hook terminates it: the checks'
		// processes must end with it, not outlive it.
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
		defer stop()
	}
	var h hook.Handler
	return h.Run(ctx, args, stdin, stdout, stderr)
}
