// Package geminitest is a scripted Gemini API server for testing what Gemini
// CLI (and any agent that speaks the Gemini API) does under harnish without
// a model: the permission requests, file writes and commands harnish
// mediates over the Agent Client Protocol, and the prompts it sends.
//
// A test scripts the model's side, one [Turn] per streamed request of the
// agent loop, and points the agent at the server:
//
//	srv := geminitest.NewServer(t,
//		geminitest.Turn{Parts: []geminitest.Part{geminitest.WriteFile(filepath.Join(dir, "calc.txt"), "add\n")}},
//		geminitest.Turn{Parts: []geminitest.Part{geminitest.Shell("go test ./...")}},
//		geminitest.Turn{Parts: []geminitest.Part{geminitest.Text("Done.")}},
//	)
//	env := srv.Env() // GOOGLE_GEMINI_BASE_URL and a dummy GEMINI_API_KEY
//
// The server answers POST …/models/MODEL:streamGenerateContent?alt=sse with
// the next turn as Server-Sent Events, function calls as the CLI's tools
// expect them (run_shell_command, write_file, replace), and usage metadata.
// Afterwards [Server.Turns] holds the requests in order: the prompt
// ([Request.Prompt]) and the function responses that came back (a call
// harnish rejected comes back as an error response).
package geminitest
