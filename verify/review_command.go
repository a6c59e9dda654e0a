package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/harnish/harnish/internal/proc"
	"github.com/harnish/harnish/task"
)

// DefaultReviewTimeout bounds a reviewer program that sets no timeout.
const DefaultReviewTimeout = 10 * time.Minute

// maxReviewOutput bounds the answer read from a reviewer program.
const maxReviewOutput = 4 << 20

// ReviewInput is what a [CommandReviewer]'s program reads on stdin, as JSON.
type ReviewInput struct {
	Task    *task.Task `json:"task"`
	PhaseID string     `json:"phase_id,omitempty"`
	Attempt int        `json:"attempt,omitempty"`
	Diff    string     `json:"diff"`
	Files   []string   `json:"files"`
}

// CommandReviewer is a [Reviewer] that runs a program (an agent CLI with a
// review prompt, a script) in the working tree's root with the task and its
// diff as a [ReviewInput] on stdin, and reads its findings from stdout as
// {"findings": [{"severity", "file", "line", "message", "rule"}]}
// ([ParseReview]). An answer that does not parse is an [*Error] of
// [KindProtocol] carrying the output's tail, never an empty review; a
// program that exits non-zero is [KindCrashed], one that runs out of time
// [KindTimeout], one that cannot start [KindUnavailable]. It is safe for
// concurrent use.
type CommandReviewer struct {
	// Argv is the program and its arguments; a relative program path
	// resolves from the working tree's root.
	Argv []string
	// Env adds variables to the environment, as executor.Command.Env does.
	Env map[string]string
	// Timeout bounds the program. Zero means [DefaultReviewTimeout].
	Timeout time.Duration
}

// Review runs the program on req.
func (r *CommandReviewer) Review(ctx context.Context, req *ReviewRequest) (*Review, error) {
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return nil, &Error{Kind: KindUnavailable, Err: errors.New("reviewer: no program")}
	}
	files := req.Files
	if files == nil {
		files = []string{}
	}
	in, err := json.Marshal(ReviewInput{Task: req.Task, PhaseID: req.PhaseID, Attempt: req.Attempt, Diff: req.Diff, Files: files})
	if err != nil {
		return nil, &Error{Kind: KindUnavailable, Err: fmt.Errorf("reviewer input: %w", err)}
	}
	out := &limitBuffer{max: maxReviewOutput}
	res, err := runComponent(ctx, proc.Spec{Stage: "review", Argv: r.Argv, Root: req.WorkDir, Env: envList(r.Env),
		Stdin: bytes.NewReader(in), Stdout: out, Timeout: or(r.Timeout, DefaultReviewTimeout)})
	if err != nil {
		return nil, err
	}
	if out.over {
		return nil, &Error{Kind: KindProtocol, NonRetryable: true, Tail: res.Stdout, Err: fmt.Errorf("reviewer answer over %d bytes", maxReviewOutput)}
	}
	review, err := ParseReview(out.Bytes())
	if err != nil {
		return nil, &Error{Kind: KindProtocol, NonRetryable: true, Tail: res.Output, Err: fmt.Errorf("reviewer %s: %w", r.Argv[0], err)}
	}
	return review, nil
}

// runComponent runs a reviewer's program and maps a failure onto [*Error]
// kinds; a cancelled ctx gives an error wrapping its cause.
func runComponent(ctx context.Context, s proc.Spec) (*proc.Result, error) {
	res, err := proc.Run(ctx, s)
	if err == nil {
		return res, nil
	}
	pe, ok := errors.AsType[*proc.Error](err)
	if !ok || pe.Kind == proc.KindCanceled {
		return nil, fmt.Errorf("verify: %s: %w", s.Stage, err)
	}
	kind := map[proc.Kind]ErrorKind{
		proc.KindConfined: KindUnavailable,
		proc.KindStart:    KindUnavailable,
		proc.KindTimeout:  KindTimeout,
		proc.KindExit:     KindCrashed,
	}[pe.Kind]
	return nil, &Error{Kind: kind, Tail: pe.Diagnostics(), Err: err}
}
