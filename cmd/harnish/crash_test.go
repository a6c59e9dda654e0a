package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnish/harnish/internal/testkit"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
)

var (
	cliKills = flag.Int("clikills", 40, "SIGKILLs of harnish in TestCLISurvivesKill")
	cliSeed  = flag.Uint64("cliseed", 0, "seed of TestCLISurvivesKill's first round (the next rounds take the next seeds); 0: from the clock")
)

// TestCLISurvivesKill is a black-box soak of the harnish binary with its
// agent (the command executor running agent.sh), its checks and git. Each
// round makes a fresh repository with a plan of two phases of three tasks
// (the first's side by side),
// SIGKILLs "harnish run" at a random moment, then "harnish resume", one to
// four times in all, and lets a last resume run to the end (after a kill
// that came before the run's first record, resume may find no run, and
// "harnish run" starts it anew). It then checks that the run completed and
// that git holds it as if nothing had happened: one commit per task holding
// that task's files and nothing else; one records commit, last, holding
// records only (no state file, no temporary file) and all of them (a
// handoff and an audit log per task, the summary), since a crash must not
// lose a record the state vouches for; nothing left uncommitted; no stale
// git lock. No temporary file of harnish's may be left either, of the last
// harnish or of the killed ones (which a later one must sweep).
//
// A kill is of the harnish process alone, as the OOM killer's: whatever it
// started (the agent, the checks, git) must die with it, within two
// seconds. One kill in six takes everything harnish started with it, as a
// supervisor that kills a whole cgroup does, so that git dies mid-commit.
// Kills land after a random delay, just after a given event of harnish's
// --json stream (task.done, run.finished, ...), or while the agent hangs in
// an attempt.
//
// -clikills sets how many kills (default 40: under a minute); a failing
// round prints its seed, and -cliseed SEED -clikills 1 plays it again (the
// same plan of kills; where they land depends on timing still).
func TestCLISurvivesKill(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kills with SIGKILL and looks for survivors in /proc")
	}
	bin := harnishBinary(t)
	seed := *cliSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano() % 1_000_000_000)
	}
	start := time.Now()
	var s soakSummary
	for ; s.kills < *cliKills; seed++ {
		r := newSoakRound(t, bin, seed)
		r.play()
		r.check()
		s.add(r)
		if len(r.problems) > 0 {
			t.Error(r.report(s.failedRounds <= soakDetailedReports))
		}
	}
	t.Logf("%d rounds, %d kills, %s; %s", s.rounds, s.kills, time.Since(start).Round(time.Second), s)
}

// soakTasks are the plan's tasks by phase.
var soakTasks = [][]string{{"T1", "T2", "T3"}, {"T4", "T5", "T6"}}

// soakTaskFiles are the files the agent writes for task id, sorted; its
// commit must hold exactly these.
func soakTaskFiles(id string) []string { return []string{"f-" + id + ".txt", "out/" + id + ".txt"} }

// soakPlan is the plan of every round: each task's checks pass when its
// files exist. The attempts budget leaves room for the kills, which each
// cost the attempt they cut off. The first phase runs its three tasks side
// by side, each in a fork of its own, so kills land mid-attempt in several
// forks and in the merge queue too.
func soakPlan() string {
	var b strings.Builder
	b.WriteString("version: 1\nname: soak\nbudget: {attempts: 10}\nexecutor: {kind: command, argv: [./agent.sh]}\nphases:\n")
	for i, phase := range soakTasks {
		fmt.Fprintf(&b, "  - id: p%d\n    title: phase %d\n", i+1, i+1)
		if i == 0 {
			b.WriteString("    parallel: 3\n")
		}
		b.WriteString("    tasks:\n")
		for _, id := range phase {
			files := soakTaskFiles(id)
			fmt.Fprintf(&b, "      - id: %s\n        title: make %s\n        acceptance: [{run: [test, -f, %s]}, {run: [test, -f, %s]}]\n",
				id, id, files[0], files[1])
		}
	}
	return b.String()
}

// soakAgent returns agent.sh for a round: it writes its task's files after
// a short pause, except on the first attempt of the tasks the round makes
// fail once (claiming done with nothing written, so the checks fail, or
// crashing after writing half). Told to by the file hang in $CLI_SOAK_CTL
// (outside the tree), it takes that file and hangs, for the test to kill
// harnish while it runs.
func soakAgent(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(`#!/bin/sh
if rm "$CLI_SOAK_CTL/hang" 2>/dev/null; then
	touch "$CLI_SOAK_CTL/hanging"
	sleep 30
fi
case $HARNISH_TASK_ID in
`)
	for _, id := range slices.Concat(soakTasks...) {
		fail := []string{"", "", "check", "crash"}[rng.IntN(4)]
		fmt.Fprintf(&b, "%s) pause=0.0%d fail=%s ;;\n", id, 1+rng.IntN(5), fail)
	}
	b.WriteString(`esac
sleep "$pause"
mkdir -p out
if [ "$HARNISH_ATTEMPT" = 1 ]; then
	case $fail in
	check) exit 0 ;;
	crash) echo "$HARNISH_TASK_ID" > "out/$HARNISH_TASK_ID.txt"; exit 1 ;;
	esac
fi
echo "$HARNISH_TASK_ID" > "f-$HARNISH_TASK_ID.txt"
echo "$HARNISH_TASK_ID" > "out/$HARNISH_TASK_ID.txt"
`)
	return b.String()
}

const (
	// soakDeadline bounds one harnish process that is not to be killed,
	// and the wait for the moment to kill one.
	soakDeadline = 60 * time.Second
	// soakDeathGrace is how long what a killed harnish started may take to
	// die.
	soakDeathGrace = 2 * time.Second
	// soakDetailedReports is how many failing rounds get the full report
	// (the round's log, git log --stat); later ones get a line each.
	soakDetailedReports = 3
)

// soakRound is one round: a repository, the harnish processes run in it
// (all but the last killed), and what went wrong.
type soakRound struct {
	t      *testing.T
	bin    string
	seed   uint64
	rng    *rand.Rand
	dir    string // the working tree
	ctl    string // the agent's control directory, outside the tree
	tmp    string // TMPDIR of every process of the round
	marker string // NAME=VALUE in the environment of every process of the round
	base   string // the commit the run starts from
	trunk  string // the branch it starts on

	planned, kills int
	landed         []string // per kill: where it landed (the last event seen)
	tempBefore     []string // temporary files there before the last process
	completed      bool     // the last process ended on its own with exit 0
	log            []string // what happened, for the report
	problems       []soakProblem
}

// soakProblem is a check that failed: which, and how.
type soakProblem struct{ check, detail string }

func newSoakRound(t *testing.T, bin string, seed uint64) *soakRound {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x50a4))
	r := &soakRound{t: t, bin: bin, seed: seed, rng: rng, dir: testkit.GitTree(t), ctl: t.TempDir(), tmp: t.TempDir(),
		marker:  fmt.Sprintf("CLI_SOAK_ROUND=%d-%d", os.Getpid(), seed),
		planned: 1 + rng.IntN(4)}
	files := map[string]string{"harnish.yaml": soakPlan(), "agent.sh": soakAgent(rng)}
	if rng.IntN(2) == 0 {
		files[".gitignore"] = ".harnish/\n"
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Git(t, r.dir, "add", "-A")
	testkit.Git(t, r.dir, "commit", "-q", "-m", "setup")
	r.base = testkit.Git(t, r.dir, "rev-parse", "HEAD")
	r.trunk = testkit.Git(t, r.dir, "branch", "--show-current")
	r.logf("seed %d: %d kills planned, .gitignore %q", seed, r.planned, files[".gitignore"])
	return r
}

func (r *soakRound) logf(format string, args ...any) {
	r.log = append(r.log, fmt.Sprintf(format, args...))
}

func (r *soakRound) problem(check, format string, args ...any) {
	r.problems = append(r.problems, soakProblem{check, fmt.Sprintf(format, args...)})
}

// play runs harnish in the round's tree, killing it as many times as
// planned, and then once more to its end.
func (r *soakRound) play() {
	verb := "run"
	for r.kills < r.planned {
		x := r.runHarnish(verb, r.killPlan(verb))
		switch {
		case x.hung:
			return
		case x.killed:
			r.kills++
			r.landed = append(r.landed, x.last.String())
			r.afterKill()
			verb = "resume"
		case x.code == exitOK:
			r.completed = true // before its kill came
			return
		case !r.nothingToResume(verb, x.code):
			r.refused(verb, x)
			return
		default:
			verb = "run"
		}
	}
	for {
		x := r.runHarnish(verb, killPlan{})
		switch {
		case x.hung:
			return
		case x.code == exitOK:
			r.completed = true
			return
		case !r.nothingToResume(verb, x.code):
			r.refused(verb, x)
			return
		}
		verb = "run"
	}
}

// refused records that harnish verb, after the kills so far, failed
// where it should have carried the run on.
func (r *soakRound) refused(verb string, x soakExit) {
	r.problem(verb+"-refused", "%s after %d kills exited %d after %s (the last kill landed after %s):\n%s",
		verb, r.kills, x.code, x.last, r.lastLanded(), cmp.Or(tail(x.stderr), "(nothing on stderr)"))
}

// nothingToResume says whether a process that failed was a resume that
// found no run: a kill that landed before the run's first record leaves
// none, and then "harnish run" starts it anew. It is a problem when the
// state exists but cannot be read.
func (r *soakRound) nothingToResume(verb string, code int) bool {
	_, err := loop.ReadState(filepath.Join(r.dir, loop.StateDir))
	if err != nil && !errors.Is(err, loop.ErrNoState) {
		r.problem("state", "the state does not read: %v", err)
		return false
	}
	return verb == "resume" && code == exitError && errors.Is(err, loop.ErrNoState)
}

func (r *soakRound) lastLanded() string {
	if len(r.landed) == 0 {
		return "(no kill)"
	}
	return r.landed[len(r.landed)-1]
}

// afterKill checks what a kill left: everything the killed harnish started
// dies with it, within soakDeathGrace; survivors are killed so that the
// round can go on. The state must still read.
func (r *soakRound) afterKill() {
	if alive := r.awaitNoProcesses(); len(alive) > 0 {
		r.problem("processes", "kill %d (after %s): %d processes of the killed harnish still alive %s later:\n  %s",
			r.kills, r.lastLanded(), len(alive), soakDeathGrace, strings.Join(alive, "\n  "))
		r.killProcesses()
	}
	if _, err := loop.ReadState(filepath.Join(r.dir, loop.StateDir)); err != nil && !errors.Is(err, loop.ErrNoState) {
		r.problem("state", "kill %d (after %s): the state does not read: %v", r.kills, r.lastLanded(), err)
	}
}

// killPlan says when to kill the next process: after a random delay
// (sometimes a short one, to land in its start), just after an event, or
// while the agent hangs; and, one time in six, to kill what it started
// with it.
func (r *soakRound) killPlan(verb string) killPlan {
	k := r.killMoment(verb)
	k.tree = r.rng.IntN(6) == 0
	return k
}

func (r *soakRound) killMoment(verb string) killPlan {
	switch n := r.rng.IntN(100); {
	case n < 15:
		return killPlan{hang: true}
	case n < 55:
		events := []string{"task.done", "task.done", "task.done", "run.finished", "run.finished", "attempt.started",
			"attempt.started", "attempt.finished", "verify.passed", "verify.failed", "task.started",
			"milestone.reached", "milestone.approved"}
		if verb == "run" {
			events = append(events, "run.started", "run.started")
		}
		k := killPlan{event: events[r.rng.IntN(len(events))], nth: 1}
		if strings.HasPrefix(k.event, "task.") || strings.HasPrefix(k.event, "attempt.") {
			k.nth += r.rng.IntN(3)
		}
		if r.rng.IntN(2) == 0 {
			k.after = time.Duration(r.rng.IntN(15_000)) * time.Microsecond
		}
		return k
	case n < 70:
		return killPlan{after: time.Duration(1+r.rng.IntN(40_000)) * time.Microsecond}
	default:
		return killPlan{after: time.Duration(1+r.rng.IntN(1_200_000)) * time.Microsecond}
	}
}

// killPlan says when to kill a process: after the nth event of type
// event, plus the delay after; after the delay after alone; once the agent
// hangs. The zero killPlan never kills.
//
// A kill is of harnish alone, as the OOM killer's, unless tree is set: then
// of harnish and every process it started, at once, as a supervisor that
// kills a whole cgroup does (so git dies mid-commit even where harnish
// does not take its children with it).
type killPlan struct {
	event string
	nth   int
	after time.Duration
	hang  bool
	tree  bool
}

func (k killPlan) String() string {
	what := "killed"
	if k.tree {
		what = "killed with its processes"
	}
	switch {
	case k.hang:
		return what + " while the agent hangs"
	case k.event != "":
		return fmt.Sprintf("%s %s after event %s #%d", what, k.after, k.event, k.nth)
	case k.after > 0:
		return fmt.Sprintf("%s after %s", what, k.after)
	}
	return "never killed"
}

// soakEvent is what the soak reads of harnish's --json events.
type soakEvent struct {
	Type    string `json:"type"`
	Task    string `json:"task"`
	Attempt int    `json:"attempt"`
	Outcome string `json:"outcome"`
	Message string `json:"message"`
}

func (e soakEvent) String() string {
	switch {
	case e.Type == "":
		return "start"
	case e.Attempt > 0:
		return fmt.Sprintf("%s %s#%d", e.Type, e.Task, e.Attempt)
	case e.Outcome != "" && e.Outcome != string(policy.Completed):
		return fmt.Sprintf("%s %s (%s)", e.Type, e.Outcome, e.Message)
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s%s", e.Type, e.Task, e.Outcome))
}

// soakExit is how a harnish process ended.
type soakExit struct {
	killed bool // by the soak's SIGKILL
	hung   bool // it ran past soakDeadline
	code   int
	last   soakEvent
	stderr string
}

// runHarnish runs harnish verb in the round's tree and kills it as k says.
func (r *soakRound) runHarnish(verb string, k killPlan) soakExit {
	if k.hang {
		if err := os.WriteFile(filepath.Join(r.ctl, "hang"), nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.tempBefore = r.tempFiles()
	p := r.startHarnish(verb)
	started := time.Now()
	var x soakExit
	switch moment, ended := r.awaitKillMoment(p, k); {
	case moment && k.tree:
		r.killTree(p.cmd.Process)
	case moment:
		p.cmd.Process.Signal(syscall.SIGKILL)
	case !ended:
		x.hung = true
		r.killProcesses()
	}
	p.reap()
	os.Remove(filepath.Join(r.ctl, "hang")) // not taken: no attempt ran
	os.Remove(filepath.Join(r.ctl, "hanging"))

	x.last, x.stderr = p.last, p.stderr.String()
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	x.killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL && !x.hung
	x.code = p.cmd.ProcessState.ExitCode()
	switch {
	case x.hung:
		r.problem("hang", "%s ran past %s without ending (last event: %s); killed:\n%s", verb, soakDeadline, x.last, tail(x.stderr))
	case x.killed:
		r.logf("%s: %s, %s in, after %s", verb, k, time.Since(started).Round(time.Millisecond), x.last)
	default:
		r.logf("%s: exit %d (was to be %s), last event %s", verb, x.code, k, x.last)
	}
	if s := strings.TrimSpace(x.stderr); s != "" {
		r.logf("  stderr: %s", tail(s))
	}
	return x
}

// harnishProcess is a harnish process the round started, and the events it
// printed.
type harnishProcess struct {
	cmd    *exec.Cmd
	events chan soakEvent // closed at the end of its stdout
	last   soakEvent      // the last event read
	stderr bytes.Buffer
}

// startHarnish starts harnish verb --json in the round's tree, with the
// round's TMPDIR, control directory and marker in its environment.
func (r *soakRound) startHarnish(verb string) *harnishProcess {
	p := &harnishProcess{cmd: exec.Command(r.bin, verb, "--dir", r.dir, "--yes", "--json"), events: make(chan soakEvent)}
	p.cmd.Env = append(os.Environ(), "TMPDIR="+r.tmp, "CLI_SOAK_CTL="+r.ctl, r.marker)
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err == nil {
		err = p.cmd.Start()
	}
	if err != nil {
		r.t.Fatal(err)
	}
	go func() {
		defer close(p.events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var e soakEvent
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				p.events <- e
			}
		}
	}()
	return p
}

// awaitKillMoment reads p's events until k's moment to kill it comes
// (moment) or its output ends (ended); neither within soakDeadline, it
// hangs.
func (r *soakRound) awaitKillMoment(p *harnishProcess, k killPlan) (moment, ended bool) {
	var timer <-chan time.Time
	if k.event == "" && k.after > 0 {
		timer = time.After(k.after)
	}
	var poll <-chan time.Time
	if k.hang {
		ticker := time.NewTicker(5 * time.Millisecond)
		defer ticker.Stop()
		poll = ticker.C
	}
	deadline := time.After(soakDeadline)
	seen := 0
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				return false, true
			}
			p.last = e
			if e.Type == k.event {
				if seen++; seen == k.nth {
					time.Sleep(k.after)
					return true, false
				}
			}
		case <-timer:
			return true, false
		case <-poll:
			if _, err := os.Stat(filepath.Join(r.ctl, "hanging")); err == nil {
				return true, false
			}
		case <-deadline:
			return false, false
		}
	}
}

// reap reads the events p wrote before it ended, and waits for it. A
// survivor holding its stdout open does not hold the round up.
func (p *harnishProcess) reap() {
	grace := time.After(soakDeathGrace)
drain:
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				break drain
			}
			p.last = e
		case <-grace:
			break drain
		}
	}
	p.cmd.Wait() // closes stdout, which ends the reader
	for e := range p.events {
		p.last = e
	}
}

// tail is the end of a process's output, short enough for a report.
func tail(s string) string {
	const max = 600
	s = strings.TrimSpace(s)
	if len(s) > max {
		s = "…" + s[len(s)-max:]
	}
	return s
}

// check checks the end of the round: the run completed, git holds it
// right, and nothing of it is left running or lying around. When the last
// process failed, that is told already; git is checked still if the state
// says the run completed.
func (r *soakRound) check() {
	if alive := r.awaitNoProcesses(); len(alive) > 0 {
		r.problem("processes", "after the last harnish ended, %d of its processes still alive %s later:\n  %s",
			len(alive), soakDeathGrace, strings.Join(alive, "\n  "))
		r.killProcesses()
	}
	st, ok := r.checkCompleted()
	if !ok {
		return
	}
	if r.checkCommits(st) {
		r.checkRecordsComplete()
	}
	r.checkWorktreeCommitted()
	r.checkNoGitLocks()
	r.checkNoForks()
	if r.completed {
		r.checkNoTempFiles()
	}
}

// checkCompleted checks that harnish status says the run completed with
// every task done, and returns the state. After a process that failed, a
// run that did not complete is no further problem.
func (r *soakRound) checkCompleted() (*policy.RunState, bool) {
	out, err := exec.Command(r.bin, "status", "--dir", r.dir, "--json").CombinedOutput()
	var st policy.RunState
	if err == nil {
		err = json.Unmarshal(out, &st)
	}
	switch {
	case err != nil && r.completed:
		r.problem("status", "harnish status --json: %v\n%s", err, tail(string(out)))
		return nil, false
	case err != nil, !r.completed && st.Outcome != policy.Completed:
		return nil, false
	case st.Outcome != policy.Completed:
		r.problem("status", "harnish exited 0, and the run is %q (%s), not completed", st.Outcome, st.Reason)
		return nil, false
	}
	ok := true
	for _, id := range slices.Concat(soakTasks...) {
		if ts := st.Tasks[id]; ts == nil || ts.Status != policy.StatusDone {
			r.problem("status", "the run completed, and task %s is not done: %+v", id, ts)
			ok = false
		}
	}
	return &st, ok
}

// soakCommit is a commit of the run's branch.
type soakCommit struct {
	hash, subject string
	trailers      map[string]string
	files         []string
}

func (c soakCommit) String() string { return c.hash[:12] + " " + c.subject }

// branchCommits returns the commits from the round's base to HEAD, oldest
// first.
func (r *soakRound) branchCommits() []soakCommit {
	var commits []soakCommit
	for _, h := range strings.Fields(r.git("rev-list", "--reverse", r.base+"..HEAD")) {
		subject, trailers, _ := strings.Cut(r.git("show", "-s", "--format=%s%n%(trailers:only,unfold)", h), "\n")
		c := soakCommit{hash: h, subject: subject, trailers: map[string]string{}}
		for _, line := range strings.Split(trailers, "\n") {
			if k, v, ok := strings.Cut(line, ": "); ok {
				c.trailers[k] = v
			}
		}
		c.files = strings.Fields(r.git("diff-tree", "--no-commit-id", "--name-only", "--no-renames", "-r", h))
		commits = append(commits, c)
	}
	return commits
}

// checkCommits checks the run's branch: it is harnish's and the trunk did
// not move; every task has exactly one commit, holding its files and
// nothing else; the records commit closes the run, once, holding records
// only; and every commit is one of those. It returns whether the records
// commit is there.
func (r *soakRound) checkCommits(st *policy.RunState) (recorded bool) {
	if b := r.git("branch", "--show-current"); !strings.HasPrefix(b, "harnish/soak-") {
		r.problem("branch", "the run ended on branch %q, not harnish/soak-…", b)
	}
	if got := r.git("rev-parse", "refs/heads/"+r.trunk); got != r.base {
		r.problem("branch", "%s moved from %.12s to %.12s", r.trunk, r.base, got)
	}
	commits := r.branchCommits()
	byTask := map[string][]soakCommit{}
	var records []soakCommit
	for _, c := range commits {
		if run := c.trailers["Harnish-Run"]; run != st.Run {
			r.problem("commits", "%s: Harnish-Run %q, not the run's %q", c, run, st.Run)
		}
		switch id, outcome := c.trailers["Harnish-Task"], c.trailers["Harnish-Outcome"]; {
		case id != "":
			byTask[id] = append(byTask[id], c)
			if want := soakTaskFiles(id); !slices.Equal(c.files, want) {
				r.problem("task-commit", "%s holds %v, not exactly task %s's files %v", c, c.files, id, want)
			}
			// A task side by side is committed by the merge queue before its
			// attempt is recorded: a kill in between has the next attempt find
			// that commit, made by an earlier attempt.
			n, _ := strconv.Atoi(c.trailers["Harnish-Attempts"])
			if ts := st.Tasks[id]; ts != nil && (n > ts.Attempts || n < 1 || n != ts.Attempts && !slices.Contains(soakTasks[0], id)) {
				r.problem("task-commit", "%s: Harnish-Attempts %q, the state says %d", c, c.trailers["Harnish-Attempts"], ts.Attempts)
			}
		case outcome != "":
			records = append(records, c)
			for _, f := range c.files {
				if !isRecord(f) {
					r.problem("records-commit", "%s holds %s, not a record", c, f)
				}
			}
		default:
			r.problem("commits", "%s is neither a task's commit nor the records'", c)
		}
	}
	for _, id := range slices.Concat(soakTasks...) {
		if n := len(byTask[id]); n != 1 {
			r.problem("task-commit", "task %s has %d commits, want 1", id, n)
		}
	}
	completed := 0
	for _, c := range records {
		if c.trailers["Harnish-Outcome"] == string(policy.Completed) {
			completed++
		}
	}
	switch last := len(commits) - 1; {
	case completed != 1:
		r.problem("records-commit", "%d records commits of the completed run, want 1", completed)
	case commits[last].trailers["Harnish-Outcome"] != string(policy.Completed):
		r.problem("records-commit", "the last commit is %s, not the completed run's records", commits[last])
	}
	return completed > 0
}

// isRecord says whether path is one of the run's records, as the README
// lists them: .harnish/handoffs/<task>.json, .harnish/logs/<plan>/task-<id>.json,
// .harnish/escalation-*.md, .harnish/summary.md. State files, temporary
// files and anything else are not.
func isRecord(path string) bool {
	name, ok := strings.CutPrefix(path, loop.StateDir+"/")
	if !ok {
		return false
	}
	for _, pattern := range []string{"handoffs/[^.]*.json", "logs/*/task-*.json", "escalation-*.md", "summary.md"} {
		if m, _ := filepath.Match(pattern, name); m {
			return true
		}
	}
	return false
}

// checkRecordsComplete checks that the run's records are all in HEAD: a
// handoff and an audit log per task, and the completion summary. A crash
// must not lose a record, since the durable state says what it holds.
func (r *soakRound) checkRecordsComplete() {
	have := strings.Fields(r.git("ls-tree", "-r", "--name-only", "HEAD", "--", loop.StateDir))
	want := []string{loop.StateDir + "/summary.md"}
	for _, id := range slices.Concat(soakTasks...) {
		want = append(want, loop.StateDir+"/handoffs/"+id+".json", loop.StateDir+"/logs/soak/task-"+id+".json")
	}
	var missing []string
	for _, p := range want {
		if !slices.Contains(have, p) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		r.problem("records-incomplete", "HEAD lacks the records %v", missing)
	}
}

// checkWorktreeCommitted checks that git status shows nothing but the
// state: every task's files and every record are committed, and no stray
// file lies among the records.
func (r *soakRound) checkWorktreeCommitted() {
	var files, records, strays []string
	for _, line := range strings.Split(r.git("status", "--porcelain", "--untracked-files=all"), "\n") {
		if len(line) < 4 {
			continue
		}
		path := line[3:]
		name, inState := strings.CutPrefix(path, loop.StateDir+"/")
		switch {
		case !inState:
			files = append(files, line)
		case isRecord(path):
			records = append(records, line)
		case strings.HasPrefix(name, "handoffs/"), strings.HasPrefix(name, "logs/"):
			strays = append(strays, line)
		}
	}
	if len(files) > 0 {
		r.problem("worktree", "files left uncommitted: %q", files)
	}
	if len(records) > 0 {
		r.problem("worktree", "records left uncommitted: %q", records)
	}
	if len(strays) > 0 {
		r.problem("worktree", "stray files among the records: %q", strays)
	}
}

// checkNoGitLocks checks that no git lock file is left in the repository.
func (r *soakRound) checkNoGitLocks() {
	gitDir := filepath.Join(r.dir, ".git")
	filepath.WalkDir(gitDir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && d.Name() == "objects":
			return filepath.SkipDir
		case strings.HasSuffix(d.Name(), ".lock"):
			rel, _ := filepath.Rel(r.dir, path)
			r.problem("git-lock", "stale git lock %s", rel)
		}
		return nil
	})
}

// checkNoForks checks that no task's working copy (a git worktree of the
// first phase, whose tasks run side by side) outlives a completed run.
func (r *soakRound) checkNoForks() {
	out, err := exec.Command("git", "-C", r.dir, "worktree", "list", "--porcelain").Output()
	if err != nil {
		r.problem("forks", "git worktree list: %v", err)
		return
	}
	if n := strings.Count(string(out), "worktree "); n != 1 {
		r.problem("forks", "%d worktrees after the run, want the tree's own only:\n%s", n, out)
	}
	br, _ := exec.Command("git", "-C", r.dir, "branch", "--list", "harnish/fork/*").Output()
	if b := strings.TrimSpace(string(br)); b != "" {
		r.problem("forks", "fork branches left: %s", b)
	}
}

// tempFiles lists harnish's temporary files and directories in the
// round's TMPDIR.
func (r *soakRound) tempFiles() []string {
	var names []string
	for _, pattern := range []string{"harnish-attempt-*", "harnish-index-*"} {
		m, _ := filepath.Glob(filepath.Join(r.tmp, pattern))
		for _, p := range m {
			names = append(names, filepath.Base(p))
		}
	}
	return names
}

// checkNoTempFiles checks that no temporary file of harnish's is left in
// the round's TMPDIR once the last harnish ended: neither its own nor, once
// it has swept them, those of the processes killed before it. One named for
// an owner that is alive (prefix, PID, "-", ...: a reused PID) may stay.
func (r *soakRound) checkNoTempFiles() {
	var own, killed []string
	for _, name := range r.tempFiles() {
		switch {
		case ownerAlive(name):
		case slices.Contains(r.tempBefore, name):
			killed = append(killed, name)
		default:
			own = append(own, name)
		}
	}
	if len(own) > 0 {
		r.problem("temp-files", "the last harnish left its temporary files in TMPDIR: %v", own)
	}
	if len(killed) > 0 {
		r.problem("stale-temp-files", "temporary files of killed harnish processes are left in TMPDIR: %v", killed)
	}
}

// ownerAlive says whether a temporary file's name, harnish-KIND-PID-RANDOM,
// names a process that is alive.
func ownerAlive(name string) bool {
	_, rest, _ := strings.Cut(strings.TrimPrefix(name, "harnish-"), "-")
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return ok && err == nil && pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func (r *soakRound) git(args ...string) string {
	r.t.Helper()
	return testkit.Git(r.t, r.dir, args...)
}

// roundProcesses lists the live processes whose environment holds the
// round's marker (zombies are dead already), as "pid cmdline".
func (r *soakRound) roundProcesses() []string {
	entries, _ := os.ReadDir("/proc")
	var procs []string
	marker := []byte("\x00" + r.marker + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), marker) {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		procs = append(procs, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
	}
	return procs
}

// awaitNoProcesses waits up to soakDeathGrace for the round's processes to
// be gone, and returns those still alive then.
func (r *soakRound) awaitNoProcesses() []string {
	deadline := time.Now().Add(soakDeathGrace)
	for {
		alive := r.roundProcesses()
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killTree kills harnish and what it started. harnish is stopped first, so
// that it does not see its children die.
func (r *soakRound) killTree(harnish *os.Process) {
	harnish.Signal(syscall.SIGSTOP)
	r.killProcesses()
}

// killProcesses kills, by pid, what is left of the round's processes
// (descendants of harnish processes the round started), and waits for
// them to be gone.
func (r *soakRound) killProcesses() {
	for range 100 {
		alive := r.roundProcesses()
		if len(alive) == 0 {
			return
		}
		for _, p := range alive {
			pid, _ := strconv.Atoi(strings.Fields(p)[0])
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("round %d: the round's processes do not die: %v", r.seed, r.roundProcesses())
}

// report says what went wrong in the round and how to replay it; detailed,
// it adds the round's log and git log --stat.
func (r *soakRound) report(detailed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "round with seed %d (replay: -cliseed %d -clikills 1), %d kills, last landed after %s:\n",
		r.seed, r.seed, r.kills, r.lastLanded())
	for _, p := range r.problems {
		fmt.Fprintf(&b, "  [%s] %s\n", p.check, p.detail)
	}
	if !detailed {
		return b.String()
	}
	b.WriteString("what happened:\n")
	for _, l := range r.log {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	cmd := exec.Command("git", "log", "--stat", "--format=%h %s%n%(trailers:only,unfold)", "HEAD")
	cmd.Dir = r.dir
	out, _ := cmd.CombinedOutput()
	fmt.Fprintf(&b, "git log --stat (on %s):\n%s", strings.TrimSpace(r.git("branch", "--show-current")), out)
	return b.String()
}

// soakSummary counts over the rounds.
type soakSummary struct {
	rounds, kills, failedRounds int
	landed                      map[string]int // kills by the event they came after
	failed                      map[string]int // rounds by check failed
}

func (s *soakSummary) add(r *soakRound) {
	if s.landed == nil {
		s.landed, s.failed = map[string]int{}, map[string]int{}
	}
	s.rounds++
	s.kills += r.kills
	for _, l := range r.landed {
		s.landed[strings.Fields(l)[0]]++
	}
	checks := map[string]bool{}
	for _, p := range r.problems {
		checks[p.check] = true
	}
	for c := range checks {
		s.failed[c]++
	}
	if len(checks) > 0 {
		s.failedRounds++
	}
}

func (s soakSummary) String() string {
	counts := func(m map[string]int) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("kills landed after: %s; %d rounds failed, by check: %s",
		counts(s.landed), s.failedRounds, cmp.Or(counts(s.failed), "none"))
}
