package looptest

import (
	"context"
	"testing"

	"github.com/harnish/harnish/loop"
)

// Run runs a loop over cfg to its end and returns the result and the events.
// Fields cfg leaves nil get test defaults: a fresh [Store], a [Clock], a
// [Verifier] that passes, an [Executor] that claims done, a [Recorder] as
// the observer, and an empty temporary directory as the working tree (not
// the test's own directory, whose repository the loop would read). The run error (an *policy.OutcomeError for a run that did
// not complete) is returned for errors.Is; a config New rejects fails t.
func Run(t testing.TB, cfg loop.Config) (*loop.Result, *Recorder, error) {
	t.Helper()
	rec := &Recorder{}
	if cfg.Store == nil {
		cfg.Store = NewStore()
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = t.TempDir()
	}
	if cfg.Now == nil {
		cfg.Now = (&Clock{}).Now
	}
	if cfg.Executor == nil {
		cfg.Executor = &Executor{}
	}
	if cfg.Verifier == nil {
		cfg.Verifier = &Verifier{}
	}
	if cfg.RunID == "" {
		cfg.RunID = "test-run"
	}
	if cfg.Observer == nil {
		cfg.Observer = rec
	}
	l, err := loop.New(cfg)
	if err != nil {
		t.Fatalf("looptest: %v", err)
	}
	res, err := l.Run(context.Background())
	if res == nil && err != nil {
		t.Fatalf("looptest: the run could not be driven: %v", err)
	}
	return res, rec, err
}
