package agent

import (
	"strconv"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
)

// Env returns the variables an agent and its hooks run with: req.Env (the
// host's, such as TRACEPARENT), then the task, phase, attempt and working
// tree of req, and the hook log the hooks append to. Later pairs win, so an
// executor appends this after its own Env.
func Env(req *executor.Request, hookLog string) []string {
	id := ""
	if req.Task != nil {
		id = req.Task.ID
	}
	return append(SortedEnv(req.Env),
		executor.EnvTaskID+"="+id,
		executor.EnvPhaseID+"="+req.PhaseID,
		executor.EnvAttempt+"="+strconv.Itoa(req.Attempt),
		executor.EnvWorkDir+"="+req.WorkDir,
		guardrail.EnvHookLog+"="+hookLog,
	)
}
