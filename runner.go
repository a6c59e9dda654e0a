package harnish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/loop/policy"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/telemetry"
)

// Runner drives one working tree's run of a plan with everything [Open]
// built and opened for it, and owns what it opened: the run's state (whose
// lock keeps any other host from driving the run), the experience store and
// the plugins. Close releases them.
//
// A Runner drives one run at a time; its methods are not safe for
// concurrent use.
type Runner struct {
	cfg    loop.Config
	tel    *telemetry.Telemetry // nil: off
	opened Opened
	// checked is the loop Open built to check cfg; the first drive takes it
	// unless the host may have changed cfg (it asked for Config) or
	// telemetry instruments a loop of its own, so a large plan is not
	// validated twice.
	checked *loop.Loop
	// closers release what Open opened, in the order it opened them; Close
	// calls them last to first.
	closers []io.Closer
	closed  bool
}

// Opened is what Open did besides opening, for a host to tell a person.
type Opened struct {
	// Run is the ID of the run the state holds, or of the new run Run
	// starts.
	Run string
	// Strays are the IDs of the processes a stopped host of Run had left
	// behind, which Open ended.
	Strays []int
	// ImportedFrom is the engine's asset history that Open imported into a
	// new experience store, and Imported how many assets it held; empty
	// when Open imported none (the store was not new, or the tree has no
	// history).
	ImportedFrom string
	Imported     int
	// State is the run state Open found, nil when there was none; a host
	// reads it (say, to check a resume before it goes ahead) and must not
	// change it.
	State *policy.RunState
}

// Open builds the components plan names (see [Components]), opens the run's
// state in opts.Dir/.harnish and locks it, ends what a stopped host of the
// run left running and starts answering its agents' pre-tool-use hooks over
// a socket (see Options.Unmarked), opens the experience store, and
// returns a Runner whose loop writes its records to the state directory.
// It checks the whole configuration as loop.New does, so a plan or an
// option that cannot run is an error here rather than at Run.
//
// A state that another host holds, or that is corrupt, is an error and
// nothing is written to it. Every error begins with "harnish: ". On error,
// nothing stays open. ctx bounds the opening alone (starting plugins, ending
// strays, importing assets); what Open opened lives until Close.
func Open(ctx context.Context, plan *task.Plan, opts Options) (*Runner, error) {
	r, err := open(ctx, plan, opts)
	if err != nil {
		return nil, fmt.Errorf("harnish: %w", err)
	}
	return r, nil
}

func open(ctx context.Context, plan *task.Plan, opts Options) (_ *Runner, err error) {
	if plan == nil {
		return nil, errors.New("no plan")
	}
	dir, err := filepath.Abs(cmp.Or(opts.Dir, "."))
	if err != nil {
		return nil, fmt.Errorf("Options.Dir: %w", err)
	}
	r := &Runner{cfg: loop.Config{Logger: opts.Logger}} // for r.info until the components are built
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	// The state's lock first, then the run's mark, then the components: a
	// plugin is started only by the host that holds the run, and carries
	// the mark, so a stray it leaves is found like the agent's.
	stateDir := filepath.Join(dir, loop.StateDir)
	store, err := loop.OpenDir(stateDir, nil)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, store)
	if gitx.InRepo(dir) {
		// The state stays out of the user's git status and commits.
		if err := gitx.IgnoreDir(stateDir); err != nil {
			return nil, err
		}
	}
	runID := opts.RunID
	switch st, err := store.Load(ctx); {
	case err == nil:
		r.opened.Run, r.opened.State = st.Run, st
	case errors.Is(err, loop.ErrNoState):
		if runID == "" {
			runID = time.Now().UTC().Format("20060102T150405.000000000Z")
		}
		r.opened.Run = runID
	default:
		return nil, err
	}
	if !opts.Unmarked {
		m, killed, err := markRun(ctx, stateDir+"#"+r.opened.Run)
		if len(killed) > 0 {
			r.opened.Strays = killed
			r.info("harnish: ended the processes a stopped host of the run left behind", "run", r.opened.Run, "pids", killed)
		}
		if err != nil {
			return nil, fmt.Errorf("end what run %s left behind: %w", r.opened.Run, err)
		}
		r.closers = append(r.closers, m)
		// The agents' hooks ask the run; without the socket (a path too
		// long for one, say) each judges its call itself, the same way.
		if hs, err := serveHooks(ctx, stateDir, opts.Logger); err != nil {
			r.info("harnish: the agents' hooks judge each call in a process of their own", "err", err)
		} else {
			r.closers = append(r.closers, hs)
		}
	}
	cfg, host, err := components(ctx, plan, opts)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, host)
	r.cfg = cfg
	if r.tel, err = telemetry.New(telemetry.Config{TracerProvider: opts.TracerProvider, MeterProvider: opts.MeterProvider}); err != nil {
		return nil, err
	}
	r.cfg.Store, r.cfg.RecordsDir, r.cfg.RunID = store, stateDir, runID
	r.cfg.SessionNotes = opts.SessionNotes
	if !opts.NoTranscripts {
		r.cfg.TranscriptDir = filepath.Join(dir, loop.TranscriptsDir)
	}

	if !opts.NoAssets {
		if err := r.openAssets(ctx, stateDir); err != nil {
			return nil, err
		}
	}
	if r.checked, err = loop.New(r.cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// openAssets opens the experience store of the state directory; a new one
// first takes in the engine's history, when the tree has one.
func (r *Runner) openAssets(ctx context.Context, stateDir string) error {
	path := asset.StorePath(stateDir)
	_, statErr := os.Stat(path)
	assets, err := asset.OpenFile(path, nil)
	if err != nil {
		return err
	}
	r.closers = append(r.closers, assets)
	r.cfg.Assets = assets
	engine := filepath.Join(r.cfg.WorkDir, "harnish-assets.jsonl")
	if !errors.Is(statErr, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(engine); err != nil {
		return nil
	}
	n, err := asset.Import(ctx, assets, engine)
	if err != nil {
		return err
	}
	r.opened.ImportedFrom, r.opened.Imported = engine, n
	r.info("harnish: imported the engine's asset history", "file", engine, "assets", n)
	return nil
}

func (r *Runner) info(msg string, args ...any) {
	if r.cfg.Logger != nil {
		r.cfg.Logger.Info(msg, args...)
	}
}

// Config is the configuration Run and Resume build their loop from. A host
// may change a field before calling them, to swap one component for its own
// (the Runner still closes only what Open opened); loop.New checks the
// result at the call.
func (r *Runner) Config() *loop.Config {
	r.checked = nil // the host may change it: the next drive checks it anew
	return &r.cfg
}

// Opened reports what Open did besides opening.
func (r *Runner) Opened() Opened {
	o := r.opened
	o.Strays = slices.Clone(o.Strays)
	return o
}

// Run starts the plan's run, or continues the one the state holds, and
// drives it until it ends; see loop.Loop.Run for its result and errors.
// Cancelling ctx ends the run cancelled, in a state Resume continues.
func (r *Runner) Run(ctx context.Context) (*loop.Result, error) {
	return r.drive(ctx, (*loop.Loop).Run)
}

// Resume reopens the run the state holds after any stop or crash and
// drives it on, as opts say (opts.Approve approves the milestone gate it
// waits at). See loop.Loop.Resume.
func (r *Runner) Resume(ctx context.Context, opts loop.ResumeOptions) (*loop.Result, error) {
	return r.drive(ctx, func(l *loop.Loop, ctx context.Context) (*loop.Result, error) { return l.Resume(ctx, opts) })
}

// drive builds a loop of the configuration, instrumented when the options
// asked for telemetry, and drives it with f.
func (r *Runner) drive(ctx context.Context, f func(*loop.Loop, context.Context) (*loop.Result, error)) (*loop.Result, error) {
	if r.closed {
		return nil, errors.New("harnish: the Runner is closed")
	}
	l := r.checked
	r.checked = nil // a loop drives one run
	ctx, cfg, end := r.tel.Instrument(ctx, r.cfg)
	if l == nil || r.tel != nil {
		var err error
		if l, err = loop.New(cfg); err != nil {
			end(err)
			return nil, err
		}
	}
	res, err := f(l, ctx)
	end(err)
	return res, err
}

// Close releases what Open opened: the experience store, the process mark,
// the state and its lock (another Open of the tree may follow), and the
// plugins. Closing again does nothing.
func (r *Runner) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for _, c := range slices.Backward(r.closers) {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
