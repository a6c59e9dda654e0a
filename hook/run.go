package hook

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/flagx"
)

// Run answers the hook call a command line names, as the executors'
// hook configuration writes it after "PROGRAM hook" ([Command]):
//
//	pre-tool-use --agent claude|codex [--plan FILE]
//	stop --agent claude|codex [--plan FILE] [--task ID]
//
// It reads the payload from stdin and $HARNISH_WORKDIR, $HARNISH_TASK_ID
// and $HARNISH_HOOK_LOG from the environment (see [Request]), writes the
// answer's message to stderr and returns its exit status, for the program
// to exit with. Nothing is written to stdout. Arguments a pre-tool-use call
// does not take block it; a stop's are [ExitError].
//
// A program of an embedder answers the hooks of the agents it runs, with
// its own guardrails, when it is the executors' Harnish program and its
// main begins:
//
//	if len(os.Args) > 1 && os.Args[1] == hook.Command {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//		code := handler.Run(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr)
//		stop()
//		os.Exit(code)
//	}
func (h *Handler) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "pre-tool-use" && args[0] != "stop" {
		fmt.Fprintf(stderr, "harnish hook: want pre-tool-use or stop\n")
		return ExitBlock
	}
	event := args[0]
	fs := flag.NewFlagSet("hook "+event, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	agent := fs.String("agent", "", "claude or codex")
	planFile := fs.String("plan", "", "the plan file")
	var taskID *string
	if event == "stop" {
		taskID = fs.String("task", "", "the task whose checks must pass")
	}
	rest, err := flagx.Parse(fs, args[1:])
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	req := &Request{Agent: Agent(*agent), Input: stdin, PlanFile: *planFile, TaskID: os.Getenv(executor.EnvTaskID),
		WorkDir: os.Getenv(executor.EnvWorkDir), HookLog: os.Getenv(guardrail.EnvHookLog)}
	if taskID != nil && *taskID != "" {
		req.TaskID = *taskID
	}
	var ans *Answer
	switch {
	case err != nil && event == "stop":
		ans = &Answer{Code: ExitError, Message: fmt.Sprintf("harnish hook stop: %v\n", err)}
	case err != nil:
		ans = (&preToolUse{req: req}).block("hook pre-tool-use: %v", err)
	case event == "stop":
		ans = h.Stop(ctx, req)
	default:
		ans = h.PreToolUse(ctx, req)
	}
	io.WriteString(stderr, ans.Message)
	return ans.Code
}
