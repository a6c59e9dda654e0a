package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/internal/transcript"
)

// Command is the executor of kind "command": it runs a program in the
// working tree with the prompt on stdin and the HARNISH_* variables set
// (see [EnvTaskID] and the others). Exit 0 claims done, exit 2 claims blocked
// with the reason on stderr, anything else is a failed attempt. The program
// may write a JSON result (summary, files_changed, usage, generalizable, and
// for the tasks after it decisions, open_questions and blocker) to the file
// named by HARNISH_RESULT_FILE.
//
// Its zero value is not usable: Argv is required. A Command is safe for
// concurrent use.
type Command struct {
	// Argv is the program and its arguments. A relative program path resolves
	// from the working tree's root.
	Argv []string
	// Env adds variables to the program's environment.
	Env map[string]string
}

// Execute runs the program for one attempt.
func (c *Command) Execute(ctx context.Context, req *Request) (*Result, error) {
	if len(c.Argv) == 0 {
		return nil, &Error{Kind: KindUnavailable, Err: errors.New("command executor: no argv")}
	}
	tmp, err := fsx.MkdirTempOwned("", "harnish-attempt-")
	if err != nil {
		return nil, &Error{Kind: KindUnavailable, Err: err}
	}
	defer os.RemoveAll(tmp)
	promptFile, resultFile := filepath.Join(tmp, "prompt.md"), filepath.Join(tmp, "result.json")
	if err := os.WriteFile(promptFile, []byte(req.Prompt), 0o600); err != nil {
		return nil, &Error{Kind: KindUnavailable, Err: err}
	}
	env := append(append(sortedEnv(c.Env), sortedEnv(req.Env)...),
		EnvTaskID+"="+req.Task.ID,
		EnvPhaseID+"="+req.PhaseID,
		EnvAttempt+"="+strconv.Itoa(req.Attempt),
		EnvWorkDir+"="+req.WorkDir,
		EnvPromptFile+"="+promptFile,
		EnvResultFile+"="+resultFile,
	)
	var stdout io.Writer
	var tw *transcript.Writer
	if req.Transcript != "" {
		if tw, err = transcript.Create(req.Transcript, transcript.Header{Agent: "command", Task: req.Task.ID, Attempt: req.Attempt}, 0); err != nil {
			return nil, &Error{Kind: KindUnavailable, Err: fmt.Errorf("command executor: %w", err)}
		}
		stdout = tw
	}
	res, err := proc.Run(ctx, proc.Spec{Stage: "execute", Argv: c.Argv, Root: req.WorkDir, Env: env,
		Stdin: strings.NewReader(req.Prompt), Stdout: stdout})
	if tw != nil {
		var end transcript.End
		if res != nil {
			end.ExitCode, end.Stderr = &res.ExitCode, res.Stderr
		}
		if err != nil {
			end.Err = err.Error()
		}
		tw.Close(end)
	}
	var pe *proc.Error
	switch {
	case err == nil:
	case errors.As(err, &pe) && pe.Kind == proc.KindExit && res.ExitCode == ExitBlocked:
		out, rerr := readResult(resultFile, res)
		if rerr != nil {
			return nil, rerr
		}
		out.Status, out.Reason, out.Transcript = StatusBlocked, strings.TrimSpace(res.Stderr), req.Transcript
		if out.Reason == "" {
			out.Reason = "the program exited 2 (blocked) and gave no reason on stderr"
		}
		return out, nil
	case errors.As(err, &pe) && (pe.Kind == proc.KindStart || pe.Kind == proc.KindConfined):
		return nil, &Error{Kind: KindUnavailable, Tail: res.Output, Err: err}
	case errors.Is(ctx.Err(), context.Canceled):
		return nil, Cancelled("execute", ctx)
	case errors.As(err, &pe) && pe.Kind == proc.KindTimeout, ctx.Err() != nil:
		return nil, &Error{Kind: KindTimeout, Tail: res.Output, Err: err}
	default:
		return nil, &Error{Kind: KindCrashed, Tail: res.Output, Err: err}
	}
	out, err := readResult(resultFile, res)
	if err != nil {
		return nil, err
	}
	out.Status, out.Transcript = StatusDone, req.Transcript
	return out, nil
}

// maxNotes bounds the decisions and the open questions of a result.
const maxNotes = 100

// commandResult is the JSON a command executor may write to its result file.
type commandResult struct {
	Summary      string   `json:"summary"`
	FilesChanged []string `json:"files_changed"`
	Usage        Usage    `json:"usage"`
	// Generalizable marks a first-try success as a pattern worth keeping.
	Generalizable bool `json:"generalizable"`
	// The handoff to the tasks after this one.
	Decisions     []string `json:"decisions"`
	OpenQuestions []string `json:"open_questions"`
	Blocker       string   `json:"blocker"`
}

// readResult reads the optional result file; a file that does not parse is
// a protocol error of the executor, reported with its output tail.
func readResult(path string, run *proc.Result) (*Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Result{Summary: lastLine(run.Stdout)}, nil
	}
	if err != nil {
		return nil, &Error{Kind: KindProtocol, Tail: run.Output, Err: err}
	}
	var cr commandResult
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cr); err != nil {
		return nil, &Error{Kind: KindProtocol, Tail: run.Output,
			Err: fmt.Errorf("result file %s does not parse: %w", filepath.Base(path), err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{Kind: KindProtocol, Tail: run.Output,
			Err: fmt.Errorf("result file %s: data after the JSON object", filepath.Base(path))}
	}
	if cr.Usage.InputTokens < 0 || cr.Usage.OutputTokens < 0 || cr.Usage.CostUSD < 0 {
		return nil, &Error{Kind: KindProtocol, Tail: run.Output,
			Err: fmt.Errorf("result file %s: negative usage", filepath.Base(path))}
	}
	if len(cr.Decisions) > maxNotes || len(cr.OpenQuestions) > maxNotes {
		return nil, &Error{Kind: KindProtocol, Tail: run.Output,
			Err: fmt.Errorf("result file %s: more than %d decisions or open questions", filepath.Base(path), maxNotes)}
	}
	return &Result{Summary: cr.Summary, FilesChanged: cr.FilesChanged, Usage: cr.Usage, Generalizable: cr.Generalizable,
		Decisions: cr.Decisions, OpenQuestions: cr.OpenQuestions, Blocker: cr.Blocker}, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func sortedEnv(m map[string]string) []string {
	env := make([]string, 0, len(m)+6)
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// CommandDebugger is the debugger of kind "command": it runs a program in
// the working tree with the task and its failed attempts as JSON on stdin,
// and reads its answer from stdout: {"found": true, "root_cause": "...",
// "fix": "..."} or {"found": false, "five_whys": [...]}. An answer that
// does not parse is a protocol error with the program's output tail.
type CommandDebugger struct {
	Argv []string
	Env  map[string]string
}

// debugInput is what a command debugger reads on stdin.
type debugInput struct {
	Task     any       `json:"task"`
	Phase    string    `json:"phase"`
	Failures []Failure `json:"failures"`
	Diff     string    `json:"diff,omitempty"`
}

// Debug runs the program and parses its answer.
func (d *CommandDebugger) Debug(ctx context.Context, req *DebugRequest) (*Diagnosis, error) {
	var diag Diagnosis
	in := debugInput{Task: req.Task, Phase: req.PhaseID, Failures: req.Failures, Diff: req.Diff}
	tail, err := runJSON(ctx, "debugger", d.Argv, append(sortedEnv(d.Env), sortedEnv(req.Env)...), req.WorkDir, in, &diag)
	if err != nil {
		return nil, err
	}
	if diag.Found && (diag.RootCause == "" || diag.Fix == "") {
		return nil, &Error{Kind: KindProtocol, Tail: tail, Err: errors.New("debugger found a root cause but gave no root_cause or fix")}
	}
	return &diag, nil
}

// runJSON runs a component program (who names it: debugger, advisor) in dir
// with in as JSON on stdin, and decodes its answer from stdout into out,
// strictly. It returns the program's output tail, for the errors its
// caller adds, and an [*Error] for a program that does not start, fails or
// answers what does not parse.
func runJSON(ctx context.Context, who string, argv []string, env []string, dir string, in, out any) (string, error) {
	input, err := json.Marshal(in)
	if err != nil {
		return "", &Error{Kind: KindUnavailable, Err: err}
	}
	stdout := &capped{max: maxAnswer}
	res, err := proc.Run(ctx, proc.Spec{Stage: who, Argv: argv, Root: dir, Env: env,
		Stdin: bytes.NewReader(input), Stdout: stdout})
	if err != nil {
		kind := KindCrashed
		var pe *proc.Error
		if errors.As(err, &pe) && (pe.Kind == proc.KindStart || pe.Kind == proc.KindConfined) {
			kind = KindUnavailable
		}
		return res.Output, &Error{Kind: kind, Tail: res.Output, Err: err}
	}
	if stdout.over {
		return res.Output, &Error{Kind: KindProtocol, Tail: res.Output, Err: fmt.Errorf("%s answer is larger than %d bytes", who, maxAnswer)}
	}
	dec := json.NewDecoder(&stdout.buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return res.Output, &Error{Kind: KindProtocol, Tail: res.Output, Err: fmt.Errorf("%s answer does not parse: %w", who, err)}
	}
	return res.Output, nil
}

// maxAnswer bounds what a component program may print as its JSON answer.
const maxAnswer = 1 << 20

// capped keeps the first max bytes written to it and notes any more.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}
