package harnish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/harnish/harnish/internal/proc"
)

// marked is the mark this process carries for an open Runner, if any: the
// environment has room for one.
var marked struct {
	sync.Mutex
	mark string
}

// processMark is a Runner's hold on the process's mark; Close gives it back.
type processMark struct {
	mark    string
	prev    string // the value before Open, as the process started with it
	hadPrev bool
}

// markRun ends what a killed host of the run left behind, then marks every
// process this one starts from now on as the run's (proc.EnvRun in its own
// environment, which they inherit): an agent still editing the tree must not
// work beside the next attempt. The caller holds the run's lock, so no live
// host drives the run. The mark names the state directory as well as the
// run: run IDs are times, and two trees' runs may share one.
func markRun(ctx context.Context, mark string) (*processMark, []int, error) {
	marked.Lock()
	defer marked.Unlock()
	if marked.mark != "" {
		return nil, nil, fmt.Errorf("another Runner of this process marks its processes (%s=%s); open one of them with Options.Unmarked",
			proc.EnvRun, marked.mark)
	}
	killed, err := proc.KillStrays(ctx, proc.EnvRun, mark)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return nil, killed, err
	}
	m := &processMark{mark: mark}
	m.prev, m.hadPrev = os.LookupEnv(proc.EnvRun)
	if err := os.Setenv(proc.EnvRun, mark); err != nil {
		return nil, killed, err
	}
	marked.mark = mark
	return m, killed, nil
}

// Close takes the mark away, putting back what the environment held before.
func (m *processMark) Close() error {
	marked.Lock()
	defer marked.Unlock()
	if marked.mark != m.mark {
		return nil
	}
	marked.mark = ""
	if m.hadPrev {
		return os.Setenv(proc.EnvRun, m.prev)
	}
	return os.Unsetenv(proc.EnvRun)
}
