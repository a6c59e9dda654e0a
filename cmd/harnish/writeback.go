package main

import (
	"fmt"
	"io"

	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

// writeBack keeps the peer's file a run was started from up to date: each
// task's start, finish and stop, and, at a milestone and at the end, the
// commits of the tasks done. A write that fails is reported, and the run
// goes on: the peer's view is a courtesy, the run's own state the record.
func writeBack(w *importer.Writer, stateDir string, stderr io.Writer) loop.Observer {
	committed := map[string]bool{}
	write := func(u importer.Update) {
		if err := w.Write(u); err != nil {
			fmt.Fprintf(stderr, "harnish: %v\n", err)
		}
	}
	return loop.ObserverFunc(func(e loop.Event) {
		switch e.Type {
		case loop.TaskStarted:
			write(importer.Update{Task: e.Task, Status: task.StatusDoing, Time: e.Time})
		case loop.TaskDone:
			write(importer.Update{Task: e.Task, Status: task.StatusDone, Summary: e.Message, Time: e.Time})
		case loop.TaskEscalated, loop.TaskHalted, loop.TaskBlocked:
			why := e.Message
			if why == "" {
				why = string(e.Type)
			}
			write(importer.Update{Task: e.Task, Stopped: "harnish: " + why, Blocked: e.Type == loop.TaskBlocked, Time: e.Time})
		case loop.MilestoneReached, loop.RunFinished:
			st, err := loop.ReadState(stateDir)
			if err != nil {
				return
			}
			for id, ts := range st.Tasks {
				if ts.Status == policy.StatusDone && ts.Commit != "" && !committed[id] {
					committed[id] = true
					write(importer.Update{Task: id, Status: task.StatusDone, Commit: ts.Commit, Time: e.Time})
				}
			}
		}
	})
}

// observers sends each event to every observer.
func observers(obs ...loop.Observer) loop.Observer {
	return loop.ObserverFunc(func(e loop.Event) {
		for _, o := range obs {
			o.Observe(e)
		}
	})
}
