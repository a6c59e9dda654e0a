package executor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/internal/fsx"
	"github.com/harnish/harnish/schema"
	"github.com/harnish/harnish/task"
)

// script writes an executable shell script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := fsx.WriteExecutable(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCommandExecute(t *testing.T) {
	tk := &task.Task{ID: "T1", Title: "t"}
	for _, tc := range []struct {
		name     string
		body     string
		want     *executor.Result
		wantKind executor.ErrorKind
		wantErr  string
	}{
		{
			name: "exit 0 claims done, with the result file",
			body: `cat > "$HARNISH_WORKDIR/prompt.copy"
printf '%s %s %s %s' "$HARNISH_TASK_ID" "$HARNISH_PHASE_ID" "$HARNISH_ATTEMPT" "$EXTRA" > "$HARNISH_WORKDIR/env.copy"
cmp -s "$HARNISH_PROMPT_FILE" "$HARNISH_WORKDIR/prompt.copy" || exit 9
echo '{"summary":"added divide","files_changed":["calc.go"],"usage":{"input_tokens":100,"output_tokens":20,"cost_usd":0.5}}' > "$HARNISH_RESULT_FILE"`,
			want: &executor.Result{Status: executor.StatusDone, Summary: "added divide", FilesChanged: []string{"calc.go"},
				Usage: executor.Usage{InputTokens: 100, OutputTokens: 20, CostUSD: 0.5}},
		},
		{
			name: "a result may mark the success generalizable",
			body: `echo '{"summary":"table test","generalizable":true}' > "$HARNISH_RESULT_FILE"`,
			want: &executor.Result{Status: executor.StatusDone, Summary: "table test", Generalizable: true},
		},
		{
			name: "a result may leave the next tasks decisions, questions and a blocker",
			body: `echo '{"summary":"s","decisions":["kept floats"],"open_questions":["rename?"],"blocker":"no key"}' > "$HARNISH_RESULT_FILE"`,
			want: &executor.Result{Status: executor.StatusDone, Summary: "s", Decisions: []string{"kept floats"}, OpenQuestions: []string{"rename?"}, Blocker: "no key"},
		},
		{
			name: "exit 0 without a result file: the last line of stdout is the summary",
			body: "echo working\necho all done\n",
			want: &executor.Result{Status: executor.StatusDone, Summary: "all done"},
		},
		{
			name: "exit 2 claims blocked, the reason on stderr",
			body: "echo 'need the API key' >&2\nexit 2\n",
			want: &executor.Result{Status: executor.StatusBlocked, Reason: "need the API key"},
		},
		{
			name:     "another exit status is a crash",
			body:     "echo boom >&2\nexit 3\n",
			wantKind: executor.KindCrashed,
		},
		{
			name:     "a result file that does not parse is a protocol error",
			body:     `echo '{"summary": 3}' > "$HARNISH_RESULT_FILE"`,
			wantKind: executor.KindProtocol,
			wantErr:  "result file result.json does not parse",
		},
		{
			name:     "an unknown field in the result file is a protocol error",
			body:     `echo '{"sumary": "x"}' > "$HARNISH_RESULT_FILE"`,
			wantKind: executor.KindProtocol,
			wantErr:  `unknown field "sumary"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prog := script(t, dir, "agent.sh", tc.body)
			c := &executor.Command{Argv: []string{prog}, Env: map[string]string{"EXTRA": "x"}}
			got, err := c.Execute(context.Background(), &executor.Request{Task: tk, PhaseID: "p1", Attempt: 2, WorkDir: dir, Prompt: "do it\n"})
			if tc.wantKind != "" {
				var ee *executor.Error
				if !errors.As(err, &ee) || ee.Kind != tc.wantKind || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want kind %s containing %q", err, tc.wantKind, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandEnvAndPrompt(t *testing.T) {
	dir := t.TempDir()
	prog := script(t, dir, "agent.sh", `cat > "$HARNISH_WORKDIR/prompt.copy"
printf '%s %s %s %s %s %s' "$HARNISH_TASK_ID" "$HARNISH_PHASE_ID" "$HARNISH_ATTEMPT" "$EXTRA" "$SHARED" "$TRACEPARENT" > "$HARNISH_WORKDIR/env.copy"`)
	c := &executor.Command{Argv: []string{prog}, Env: map[string]string{"EXTRA": "x", "SHARED": "plan"}}
	// The request's Env wins over the plan's, and not over HARNISH_*.
	reqEnv := map[string]string{"SHARED": "host", "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "HARNISH_ATTEMPT": "9"}
	if _, err := c.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, PhaseID: "p1", Attempt: 2, WorkDir: dir, Prompt: "do it\n", Env: reqEnv}); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"prompt.copy": "do it\n", "env.copy": "T1 p1 2 x host 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s = %q, want %q", file, b, want)
		}
	}
}

func TestCommandUnavailableAndTimeout(t *testing.T) {
	dir := t.TempDir()
	c := &executor.Command{Argv: []string{filepath.Join(dir, "missing")}}
	_, err := c.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: dir})
	if !errors.Is(err, executor.ErrUnavailable) {
		t.Errorf("missing program: %v, want ErrUnavailable", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c = &executor.Command{Argv: []string{script(t, dir, "slow.sh", "sleep 30\n")}}
	start := time.Now()
	_, err = c.Execute(ctx, &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: dir})
	if !errors.Is(err, executor.ErrTimeout) {
		t.Errorf("slow program: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the slow program was stopped after %s", d)
	}
}

// A run the caller cancels is not a timeout: the error is the context's
// cause and matches context.Canceled, not a retryable *executor.Error.
func TestCommandCancelled(t *testing.T) {
	dir := t.TempDir()
	c := &executor.Command{Argv: []string{script(t, dir, "slow.sh", "sleep 30\n")}}
	stopped := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(stopped) })
	_, err := c.Execute(ctx, &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 1, WorkDir: dir})
	if _, isExec := errors.AsType[*executor.Error](err); isExec || !errors.Is(err, context.Canceled) || !errors.Is(err, stopped) {
		t.Errorf("cancelled: %v (an *executor.Error: %v), want the cause and context.Canceled", err, isExec)
	}
}

func TestCommandDebugger(t *testing.T) {
	req := &executor.DebugRequest{Task: &task.Task{ID: "T1", Title: "t"}, PhaseID: "p1",
		Failures: []executor.Failure{{Attempt: 1, Fingerprint: "test:a"}, {Attempt: 2, Fingerprint: "test:a"}},
		Diff:     "--- a/x\n+++ b/x\n", Env: map[string]string{"TRACEPARENT": "00-tp"}}
	for _, tc := range []struct {
		name     string
		body     string
		want     *executor.Diagnosis
		wantKind executor.ErrorKind
	}{
		{"root cause, from the failures and the diff", `tee in.json | grep -q '"fingerprint":"test:a"' && grep -q '"diff":"--- a/x' in.json && echo '{"found": true, "root_cause": "off by one", "fix": "use <="}'`,
			&executor.Diagnosis{Found: true, RootCause: "off by one", Fix: "use <="}, ""},
		{"none, with the request's Env", `cat >/dev/null; test "$TRACEPARENT" = 00-tp && echo '{"found": false, "five_whys": ["w1"]}'`,
			&executor.Diagnosis{FiveWhys: []string{"w1"}}, ""},
		{"not JSON", `cat >/dev/null; echo 'I think it is a race'`, nil, executor.KindProtocol},
		{"found but no fix", `cat >/dev/null; echo '{"found": true, "root_cause": "x"}'`, nil, executor.KindProtocol},
		{"exit 1", `exit 1`, nil, executor.KindCrashed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			req.WorkDir = dir
			d := &executor.CommandDebugger{Argv: []string{script(t, dir, "debug.sh", tc.body)}}
			got, err := d.Debug(context.Background(), req)
			if tc.wantKind != "" {
				var ee *executor.Error
				if !errors.As(err, &ee) || ee.Kind != tc.wantKind {
					t.Fatalf("error %v, want kind %s", err, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnosis (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandAdvisor(t *testing.T) {
	req := &executor.AdviceRequest{Task: &task.Task{ID: "T1", Title: "t"}, PhaseID: "p1", Point: schema.AtRepeat,
		Failures: []executor.Failure{{Attempt: 1, Fingerprint: "test:a"}, {Attempt: 2, Fingerprint: "test:a"}}}
	for _, tc := range []struct {
		name     string
		body     string
		want     *executor.Advice
		wantKind executor.ErrorKind
	}{
		{"a correction, from the point and the failures", `tee in.json | grep -q '"point":"repeat"' && grep -q '"fingerprint":"test:a"' in.json && echo '{"verdict": "CORRECTION", "advice": "use <="}'`,
			&executor.Advice{Verdict: schema.AdviseCorrection, Text: "use <="}, ""},
		{"stop", `cat >/dev/null; echo '{"verdict": "STOP", "advice": "unsafe"}'`,
			&executor.Advice{Verdict: schema.AdviseStop, Text: "unsafe"}, ""},
		{"an unknown verdict", `cat >/dev/null; echo '{"verdict": "MAYBE", "advice": "x"}'`, nil, executor.KindProtocol},
		{"no text", `cat >/dev/null; echo '{"verdict": "PLAN"}'`, nil, executor.KindProtocol},
		{"an unknown field", `cat >/dev/null; echo '{"verdict": "PLAN", "advice": "x", "mood": "calm"}'`, nil, executor.KindProtocol},
		{"not JSON", `cat >/dev/null; echo 'try harder'`, nil, executor.KindProtocol},
		{"exit 1", `exit 1`, nil, executor.KindCrashed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			req.WorkDir = dir
			a := &executor.CommandAdvisor{Argv: []string{script(t, dir, "advise.sh", tc.body)}}
			got, err := a.Advise(context.Background(), req)
			if tc.wantKind != "" {
				var ee *executor.Error
				if !errors.As(err, &ee) || ee.Kind != tc.wantKind {
					t.Fatalf("error %v, want kind %s", err, tc.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("advice (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommandTranscript: with a transcript asked for, the program's stdout,
// its exit code and its stderr are kept in it, for a failed attempt too.
func TestCommandTranscript(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string // after the header
	}{
		{"done", `echo '{"event":"edit"}'; echo working; echo warn >&2`,
			[]string{`{"event":"edit"}`, `{"harnish":"stdout","line":"working"}`, `{"harnish":"exit","exit_code":0,"stderr":"warn\n"}`}},
		{"crashed", `echo half; echo 'it broke' >&2; exit 7`,
			[]string{`{"harnish":"stdout","line":"half"}`, `{"harnish":"exit","exit_code":7,"stderr":"it broke\n","error":"proc: execute: "}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &executor.Command{Argv: []string{script(t, dir, "agent.sh", tt.body)}}
			path := filepath.Join(dir, ".harnish", "transcripts", "T1-3.jsonl")
			res, _ := c.Execute(context.Background(), &executor.Request{Task: &task.Task{ID: "T1"}, Attempt: 3, WorkDir: dir, Transcript: path})
			if res != nil && res.Transcript != path {
				t.Errorf("Result.Transcript %q, want %q", res.Transcript, path)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if !strings.HasPrefix(lines[0], `{"harnish":"attempt","agent":"command","task":"T1","attempt":3,`) {
				t.Errorf("header %s", lines[0])
			}
			// The error names the program's temporary path: its start will do.
			if last := lines[len(lines)-1]; strings.HasPrefix(last, strings.TrimSuffix(tt.want[len(tt.want)-1], `"}`)) {
				lines[len(lines)-1] = tt.want[len(tt.want)-1]
			}
			if diff := cmp.Diff(tt.want, lines[1:]); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
		})
	}
}
