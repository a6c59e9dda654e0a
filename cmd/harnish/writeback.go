package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

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

// peerRecord is the file in the state directory that names the peer's
// source a run was started from, so resume writes back to it too.
const peerRecord = "peer-source.json"

type peerSource struct {
	Path   string          `json:"path"`
	Format importer.Format `json:"format"`
}

// rememberPeer records the source of an imported plan for resume.
func rememberPeer(stateDir string, res *importer.Result) error {
	abs, err := filepath.Abs(res.Source)
	if err != nil {
		return err
	}
	data, err := json.Marshal(peerSource{Path: abs, Format: res.Format})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(stateDir, peerRecord), append(data, '\n'), 0o644)
}

// resumeWriteBack is the write-back of a resumed run whose plan came from a
// peer's source, or nil for one that did not. The source is imported again,
// as it now reads, to find each task in it.
func resumeWriteBack(stateDir string, stderr io.Writer) loop.Observer {
	data, err := os.ReadFile(filepath.Join(stateDir, peerRecord))
	if err != nil {
		return nil
	}
	var src peerSource
	if err := json.Unmarshal(data, &src); err != nil {
		fmt.Fprintf(stderr, "harnish resume: %s: %v; the peer's file is not written\n", peerRecord, err)
		return nil
	}
	res, err := importer.Import(src.Path, importer.Options{Format: src.Format})
	if err == nil {
		var w *importer.Writer
		if w, err = res.Writer(); err == nil {
			return writeBack(w, stateDir, stderr)
		}
	}
	fmt.Fprintf(stderr, "harnish resume: the peer's file %s: %v; it is not written\n", src.Path, err)
	return nil
}
