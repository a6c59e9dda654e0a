package acp

import (
	"context"
	"io"
	"os"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/harnish/harnish/executor"
)

// Test hooks into the unexported parsers.
var (
	CheckMessage = checkMessage
	RawCommand   = rawCommand
	CommandLine  = commandLine
	Lines        = lines
	EditAction   = editAction
)

// Terminals runs terminal/* commands in root, as a session does.
type Terminals = terminals

func NewTerminals(ctx context.Context, root string) *Terminals {
	return newTerminals(ctx, root, nil, time.Minute, 100*time.Millisecond)
}

func (ts *terminals) Start(p acpsdk.CreateTerminalRequest, dir string) (string, error) {
	return ts.start(p, dir)
}
func (ts *terminals) Output(id string) (acpsdk.TerminalOutputResponse, error) { return ts.output(id) }
func (ts *terminals) Wait(ctx context.Context, id string) (acpsdk.WaitForTerminalExitResponse, error) {
	return ts.wait(ctx, id)
}
func (ts *terminals) Kill(id string, release bool) error { return ts.kill(id, release) }
func (ts *terminals) Close()                             { ts.close() }

// Session is harnish's side of a session in root, judged by the built-in
// guardrail, for benchmarks of the mediation alone.
type Session = session

func NewSession(root string) (*Session, error) {
	g, err := Builtin(root, nil, false)
	if err != nil {
		return nil, err
	}
	tree, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	return newSession(root, tree, g, "T1", profiles[Codex], newTerminals(context.Background(), root, nil, time.Minute, time.Second)), nil
}

// Checker is the filter between the agent's stdout and the SDK's reader.
type Checker = checker

// NewChecker returns a checker that tells s of the order of the agent's
// updates and permission requests, as an attempt's does.
func NewChecker(s *Session) (*Checker, io.Reader) { return newChecker(nil, s.bar) }

// Violations are what the session recorded.
func (s *session) Violations() []executor.Violation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]executor.Violation(nil), s.violations...)
}
