// Package claudetest is a scripted Anthropic Messages API server for testing
// what Claude Code does under harnish without a model: a plan's hooks and
// guardrails, the checks its stop hook runs, the prompts harnish sends.
//
// A test scripts the model's side, one [Turn] per request of Claude Code's
// agent loop, and points Claude Code at the server:
//
//	srv := claudetest.NewServer(t,
//		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Bash("go test ./...")}},
//		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Write(filepath.Join(dir, "calc.go"), src)}},
//		claudetest.Turn{Blocks: []claudetest.Block{claudetest.Text("Done.")}, Want: "File created"},
//	)
//	ex := srv.Executor() // a claude.Executor with ANTHROPIC_BASE_URL and a dummy key
//	ex.Harnish, ex.PlanFile = harnishBinary, planFile
//
// Afterwards [Server.Turns] holds the requests in order: the prompt harnish
// gave ([Request.Prompt]), the tool results Claude Code sent back (a call a
// hook blocked comes back as an error result with the hook's reason), and
// the stop hook's feedback ([Request.Last]).
//
// harnish's stop hook refuses every stop while the task's checks fail, and
// Claude Code then asks the model for another turn: script one for each
// refusal, or the script runs out and the attempt ends in an API error.
package claudetest
