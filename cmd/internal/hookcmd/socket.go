package hookcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/hook"
	"github.com/harnish/harnish/internal/hooksock"
)

// AskTimeout bounds a pre-tool-use call sent to the run's socket: a run
// that does not answer in time blocks the call (fails closed).
const AskTimeout = 10 * time.Second

// ask sends the pre-tool-use call of args (what follows "pre-tool-use") to
// the socket of the run that started the agent ($HARNISH_HOOK_SOCKET), and
// writes its answer. ok is false when the call is the hook's own to judge:
// no run names a socket or its socket is gone (the hook runs outside a
// run), or the call is one the run could not judge as this process would
// (arguments of another shape, paths relative to this process's directory,
// standard input that fails to read); then in is standard input to judge,
// what ask read of it put back in front. A socket that is there and does
// not answer in time, or answers what does not decode, blocks the call.
func ask(args []string, stdin io.Reader, stderr io.Writer) (code int, ok bool, in io.Reader) {
	sock := os.Getenv(hooksock.EnvSocket)
	if sock == "" || !filepath.IsAbs(sock) {
		return 0, false, stdin
	}
	agent, plan, simple := simpleArgs(args)
	req := &hooksock.Request{Agent: agent, PlanFile: plan, TaskID: os.Getenv(executor.EnvTaskID),
		WorkDir: os.Getenv(executor.EnvWorkDir), HookLog: os.Getenv(guardrail.EnvHookLog)}
	if !simple || !filepath.IsAbs(req.WorkDir) || !absOrEmpty(req.PlanFile) || !absOrEmpty(req.HookLog) {
		return 0, false, stdin
	}
	data, err := io.ReadAll(io.LimitReader(stdin, hooksock.MaxInput))
	if err != nil {
		return 0, false, io.MultiReader(bytes.NewReader(data), errReader{err})
	}
	req.Input = data
	ans, err := hooksock.Ask(sock, req, AskTimeout)
	switch {
	case errors.Is(err, hooksock.ErrAbsent):
		return 0, false, bytes.NewReader(data)
	case err != nil:
		return failClosed(req, err, stderr), true, nil
	}
	io.WriteString(stderr, ans.Message)
	return ans.Code, true, nil
}

// failClosed blocks a call the run's socket did not answer, and logs it as
// a call that could not be judged, as package hook logs one.
func failClosed(req *hooksock.Request, err error, stderr io.Writer) int {
	reason := fmt.Sprintf("cannot judge the tool call: the run's hook socket: %v", err)
	msg := "harnish: " + reason + "\n"
	if req.HookLog != "" {
		r := guardrail.HookRecord{Time: time.Now().UTC(), Event: guardrail.HookPreToolUse, Agent: req.Agent,
			Decision: guardrail.Decision{Level: guardrail.Hard, Rule: hook.RuleError, Reason: reason}}
		if err := guardrail.AppendHookRecord(req.HookLog, r); err != nil {
			msg = fmt.Sprintf("harnish: %v\n", err)
		}
	}
	io.WriteString(stderr, msg)
	return hook.ExitBlock
}

// simpleArgs reads the arguments of a pre-tool-use call as executors write
// them: --agent NAME and --plan FILE, each at most once, in either order,
// as --flag value or --flag=value (one dash or two). ok is false for
// anything else, which the hook parses and judges itself.
func simpleArgs(args []string) (agent, plan string, ok bool) {
	seen := map[string]bool{}
	for len(args) > 0 {
		name, ok := strings.CutPrefix(args[0], "-")
		if !ok {
			return "", "", false
		}
		name = strings.TrimPrefix(name, "-")
		name, value, inline := strings.Cut(name, "=")
		if !inline {
			if len(args) < 2 {
				return "", "", false
			}
			value, args = args[1], args[1:]
		}
		args = args[1:]
		if seen[name] {
			return "", "", false
		}
		seen[name] = true
		switch name {
		case "agent":
			agent = value
		case "plan":
			plan = value
		default:
			return "", "", false
		}
	}
	if !seen["agent"] {
		return "", "", false
	}
	return agent, plan, true
}

func absOrEmpty(path string) bool { return path == "" || filepath.IsAbs(path) }

// errReader fails every read with its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
