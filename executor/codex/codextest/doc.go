// Package codextest is a scripted model for tests that drive the real Codex
// CLI: a server on 127.0.0.1 that speaks the OpenAI Responses API as Codex
// expects it, answering each request with the next turn of a script.
//
// A turn is what the model "says": shell commands (through exec_command, the
// tool Codex declares for a model it does not know), apply_patch edits sent
// the same way, and a final message. The server records every request, so a
// test can check what reached the model: the prompt harnish rendered, the
// output of a tool call a hook blocked, the reason a stop hook gave.
//
//	srv := codextest.NewServer(t,
//		codextest.Turn{Items: []codextest.Item{codextest.ApplyPatch(patch)}},
//		codextest.Turn{Items: []codextest.Item{codextest.Message("Done.")},
//			Expect: codextest.Containing("Success. Updated the following files")},
//	)
//	ex := &codex.Executor{Provider: srv.Provider(), Model: codextest.Model}
//
// A script that does not match the conversation fails the test at once: a
// request beyond the script, a malformed turn or an expectation that does
// not hold is a test error, and Codex gets an HTTP 400 it does not retry.
package codextest
