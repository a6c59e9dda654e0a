package agent

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/internal/transcript"
)

// LookPath finds prog (def when prog is empty) as exec.LookPath does and
// makes it absolute, since the agent runs in another directory.
func LookPath(prog, def string) (string, error) {
	if prog == "" {
		prog = def
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// SortedEnv returns m as KEY=VALUE entries in a stable order.
func SortedEnv(m map[string]string) []string {
	env := make([]string, 0, len(m)+8)
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// DefaultHookTimeout bounds each hook when the attempt has no deadline.
const DefaultHookTimeout = 30 * time.Minute

// HookTimeout is how long, in whole seconds, a hook may run: the attempt's
// time left (the earlier of ctx's deadline and deadline), so a stop hook's
// checks can use all of it.
func HookTimeout(ctx context.Context, deadline time.Time) int {
	d := DefaultHookTimeout
	if dl, ok := ctx.Deadline(); ok && (deadline.IsZero() || dl.Before(deadline)) {
		deadline = dl
	}
	if !deadline.IsZero() {
		d = time.Until(deadline)
	}
	return max(1, int(math.Ceil(d.Seconds())))
}

// Transcript starts the attempt's transcript (see internal/transcript):
// at req.Transcript when the host names one, else in dir ("": none) as
// "<agent>-<task>-<attempt>-*.jsonl", the task ID made safe for a file
// name. It returns where the agent's stream goes (stream, and the
// transcript), the file's path, and the func that ends it with how the
// attempt ended.
func Transcript(dir, agentName string, req *executor.Request, stream io.Writer) (io.Writer, string, func(transcript.End), error) {
	path := req.Transcript
	if path == "" && dir == "" {
		return stream, "", func(transcript.End) {}, nil
	}
	if path == "" {
		id := transcript.SafeName(req.Task.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, "", nil, fmt.Errorf("%s: transcript: %w", agentName, err)
		}
		f, err := os.CreateTemp(dir, fmt.Sprintf("%s-%s-%s-*.jsonl", agentName, id, strconv.Itoa(req.Attempt)))
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: transcript: %w", agentName, err)
		}
		path = f.Name()
		f.Close()
	}
	w, err := transcript.Create(path, transcript.Header{Agent: agentName, Task: req.Task.ID, Attempt: req.Attempt}, 0)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: transcript: %w", agentName, err)
	}
	// The transcript's Write never fails (it stops keeping what it cannot
	// write), so it never cuts the stream.
	return io.MultiWriter(stream, w), path, func(e transcript.End) { w.Close(e) }, nil
}

// EndOf is how a process run ended, for its transcript.
func EndOf(res *proc.Result, err error) transcript.End {
	var e transcript.End
	if res != nil {
		code := res.ExitCode
		e.ExitCode, e.Stderr = &code, res.Stderr
	}
	if err != nil {
		e.Err = err.Error()
	}
	return e
}

// Paths returns the absolute working tree of req (the current directory
// when it names none), which the agent runs in and its hooks guard, and the
// plan file made absolute, a relative one resolving from that tree.
func Paths(req *executor.Request, planFile string) (root, plan string, err error) {
	if root, err = filepath.Abs(cmp.Or(req.WorkDir, ".")); err != nil {
		return "", "", err
	}
	if plan = planFile; plan != "" && !filepath.IsAbs(plan) {
		plan = filepath.Join(root, plan)
	}
	return root, plan, nil
}
