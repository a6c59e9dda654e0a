package acp

import (
	"context"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
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
