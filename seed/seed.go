package seed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/task"
)

// DefaultRounds is how many drafts [Draft] asks for when
// [Config.Rounds] is zero: the first and two corrections.
const DefaultRounds = 3

// DraftFile is the file, relative to the working tree, the agent writes its
// draft to. Draft removes it once read.
const DraftFile = "harnish-plan.draft.yaml"

// Errors of [Draft].
var (
	// ErrNoPRD: the PRD file does not exist or is empty. Draft does not guess
	// a plan without one.
	ErrNoPRD = errors.New("seed: no PRD")
	// ErrInvalid: the last draft still had problems when the rounds ran out;
	// the [*InvalidError] lists them.
	ErrInvalid = errors.New("seed: the drafted plan is not valid")
)

// InvalidError is the error of a draft that stayed invalid. It unwraps to
// [ErrInvalid].
type InvalidError struct {
	Rounds   int
	Problems []string // of the last draft
	Draft    []byte   // the last draft, as the agent wrote it
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("seed: after %d rounds the drafted plan still has %d problems: %s",
		e.Rounds, len(e.Problems), strings.Join(e.Problems[:min(len(e.Problems), 5)], "; "))
}

// Unwrap returns [ErrInvalid].
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Config configures [Draft].
type Config struct {
	// Executor drafts the plan. Required.
	Executor executor.Executor
	// Dir is the working tree the agent reads and writes the draft in.
	// Empty means the current directory.
	Dir string
	// Rounds bounds the drafts asked for. Zero means [DefaultRounds].
	Rounds int
	// Guardrails are rules the host knows for the PRD's tags (its guardrail
	// assets), one a line, given to the agent as they are.
	Guardrails []string
	// Logger receives a line per round. Nil means silence.
	Logger *slog.Logger
}

// Request is one PRD to plan.
type Request struct {
	// PRD is the path of the PRD, absolute or relative to Dir.
	PRD string
	// Name names the plan; empty means the PRD's name ("docs/prd-cache.md"
	// gives "cache").
	Name string
}

// Result is a valid plan and how it was reached.
type Result struct {
	Plan *task.Plan
	// YAML is the plan as the agent wrote it, ready to write to a file.
	YAML []byte
	// Rounds is the number of drafts it took, from 1.
	Rounds int
	// Feedback lists, per round that was refused, the problems fed back.
	Feedback [][]string
}

// Draft asks the executor for a plan for the PRD, and for corrections
// while the draft has problems, up to the configured rounds.
func Draft(ctx context.Context, cfg Config, req Request) (*Result, error) {
	if cfg.Executor == nil {
		return nil, errors.New("seed: Config.Executor is required")
	}
	dir, err := filepath.Abs(cmpOr(cfg.Dir, "."))
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	prdPath := req.PRD
	if prdPath == "" {
		return nil, fmt.Errorf("%w: give the PRD's file (the engine's template: docs/prd-NAME.md)", ErrNoPRD)
	}
	if !filepath.IsAbs(prdPath) {
		prdPath = filepath.Join(dir, prdPath)
	}
	prd, err := os.ReadFile(prdPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s does not exist; write the PRD first (docs/prd-NAME.md), then plan from it", ErrNoPRD, req.PRD)
	case err != nil:
		return nil, fmt.Errorf("seed: %w", err)
	case len(strings.TrimSpace(string(prd))) == 0:
		return nil, fmt.Errorf("%w: %s is empty", ErrNoPRD, req.PRD)
	case len(prd) > task.MaxPlanSize:
		return nil, fmt.Errorf("seed: %s is over %d bytes", req.PRD, task.MaxPlanSize)
	}
	name := req.Name
	if name == "" {
		base := strings.TrimSuffix(filepath.Base(prdPath), filepath.Ext(prdPath))
		name = slug(strings.TrimPrefix(base, "prd-"))
	}
	rounds := cmpOr(cfg.Rounds, DefaultRounds)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	draftPath := filepath.Join(dir, DraftFile)
	res := &Result{}
	var problems []string
	var last []byte
	for round := 1; round <= rounds; round++ {
		prompt := Prompt(PromptInput{PRDPath: req.PRD, PRD: string(prd), Name: name, Files: listFiles(dir),
			Guardrails: cfg.Guardrails, Problems: problems, Previous: last})
		os.Remove(draftPath)
		out, err := cfg.Executor.Execute(ctx, &executor.Request{
			Task:    &task.Task{ID: "seed", Title: "Draft the plan of " + name, Objective: "Write the harnish plan for " + req.PRD + " to " + DraftFile},
			PhaseID: "seed", Attempt: round, WorkDir: dir, Prompt: prompt,
		})
		if err != nil {
			return nil, fmt.Errorf("seed: round %d: the executor: %w", round, err)
		}
		data, err := os.ReadFile(draftPath)
		os.Remove(draftPath)
		if errors.Is(err, fs.ErrNotExist) && out != nil {
			data, err = fenced(out.Summary), nil
		}
		if err != nil {
			return nil, fmt.Errorf("seed: round %d: %w", round, err)
		}
		last = data
		res.Rounds = round
		plan, ps := Check(DraftFile, data)
		log.Info("seed round", "round", round, "problems", len(ps))
		if len(ps) == 0 {
			res.Plan, res.YAML = plan, data
			return res, nil
		}
		problems = ps
		res.Feedback = append(res.Feedback, ps)
	}
	return nil, &InvalidError{Rounds: rounds, Problems: problems, Draft: last}
}

// Check validates a draft strictly: it must parse as a plan with no error
// and no warning, and every task must have a check that runs. It returns
// the plan when there are no problems. Tasks without a check that runs are
// found even in a draft that does not parse, so one round of feedback can
// name every problem.
func Check(name string, data []byte) (*task.Plan, []string) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, []string{fmt.Sprintf("%s: no plan was written: write the whole plan, as YAML, to %s", name, DraftFile)}
	}
	var problems []string
	plan, err := task.Parse(name, data)
	var ps task.Problems
	switch {
	case errors.As(err, &ps):
		for _, p := range ps {
			problems = append(problems, p.Error())
		}
	case err != nil:
		problems = append(problems, err.Error())
	default:
		for _, p := range plan.Validate() {
			problems = append(problems, p.Error()) // warnings too: strict
		}
	}
	var loose struct {
		Phases []struct {
			Tasks []struct {
				ID         string           `yaml:"id"`
				Acceptance []map[string]any `yaml:"acceptance"`
			} `yaml:"tasks"`
		} `yaml:"phases"`
	}
	if yaml.Unmarshal(data, &loose) == nil {
		for i, ph := range loose.Phases {
			for j, t := range ph.Tasks {
				if !slices.ContainsFunc(t.Acceptance, func(c map[string]any) bool {
					return c["run"] != nil || c["sh"] != nil || c["gotest"] != nil || c["cmake"] != nil
				}) {
					problems = append(problems, fmt.Sprintf("%s: phases[%d].tasks[%d].acceptance: task %q has no check that runs (run, sh, gotest or cmake); take its criteria from the PRD's test section",
						name, i, j, t.ID))
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return plan, nil
}

var fence = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```(?:ya?ml)?\\s*\\n(.*?)```") })

// fenced returns the first YAML block of a message, for an agent that
// answers with the plan instead of writing it.
func fenced(msg string) []byte {
	if m := fence().FindStringSubmatch(msg); m != nil {
		return []byte(m[1])
	}
	return nil
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a == zero {
		return b
	}
	return a
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return cmpOr(strings.Trim(b.String(), "-"), "plan")
}
