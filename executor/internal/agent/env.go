package agent

import (
	"strconv"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/guardrail"
)

// Env returns the variables an agent and its hooks run with: the task, phase,
// attempt and working tree of req, and the hook log the hooks append to.
func Env(req *executor.Request, hookLog string) []string {
	id := ""
	if req.Task != nil {
		id = req.Task.ID
	}
	return []string{
		executor.EnvTaskID + "=" + id,
		executor.EnvPhaseID + "=" + req.PhaseID,
		executor.EnvAttempt + "=" + strconv.Itoa(req.Attempt),
		executor.EnvWorkDir + "=" + req.WorkDir,
		guardrail.EnvHookLog + "=" + hookLog,
	}
}
