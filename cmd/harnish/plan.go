package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/seed"
	"github.com/harnish/harnish/task"
)

var planCommand = &command{
	name:    "plan",
	args:    "--prd FILE [flags]",
	summary: "draft a plan from a PRD with an agent, validate it, write it once approved",
	help: `Plan asks an agent to draft the harnish plan of the PRD in FILE
(docs/prd-NAME.md), reading the repository in DIR (default: the current
directory), with the harnish engine's seeding rules: phases data, logic, UI,
integration tests; one task is one file, function, test or config;
acceptance checks from the PRD's test section; the guardrail assets
recorded for the PRD's tags (a "tags:" line in the PRD). Every problem of a
draft (the plan's schema and validation, and a task without a check that
runs, which is refused) is fed back to the agent, for up to --rounds
drafts (default 3); then plan stops with the last problems.

The valid plan is shown for approval: --yes approves it; on a terminal you
are asked; otherwise it is written to --review FILE for a person or an
embedder to review, and plan exits 2. Once approved it is written to -o
(default DIR/harnish.yaml) and plan prints "Seeding complete: N phases, M
tasks".

Flags:
  --executor SPEC  codex (default), claude, or a command line that gets the
                   prompt on stdin (the plan's executor kind command)
  --model M        the agent CLI's model
  --rounds N       drafts to ask for at most
  --dir DIR        the repository
  --yes            approve the plan
  --review FILE    where to leave an unapproved plan
  -o FILE          where to write the approved plan

Exit status: 0 written; 1 no PRD, a plan still invalid after the rounds, or
an error; 2 awaiting approval.
`,
	run: runPlan,
}

func runPlan(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	prd := fs.String("prd", "", "the PRD")
	spec := fs.String("executor", "codex", "codex, claude or a command line")
	model := fs.String("model", "", "the agent's model")
	rounds := fs.Int("rounds", seed.DefaultRounds, "drafts to ask for at most")
	dir := fs.String("dir", ".", "the repository")
	yes := fs.Bool("yes", false, "approve the plan")
	review := fs.String("review", "", "where to leave an unapproved plan")
	out := fs.String("o", "", "where to write the approved plan")
	code, ok := c.parse(fs, args, stdout, stderr, func() error {
		if *rounds < 1 {
			return errors.New("--rounds must be at least 1")
		}
		return nil
	})
	if !ok {
		return code
	}
	if *prd == "" {
		fmt.Fprintln(stderr, "harnish plan: no PRD: give --prd docs/prd-NAME.md (write the PRD first; plan does not guess one)")
		return exitError
	}
	if *out == "" {
		*out = filepath.Join(*dir, "harnish.yaml")
	}
	cfg := seed.Config{Executor: seedExecutor(*spec, *model), Dir: *dir, Rounds: *rounds, Guardrails: prdGuardrails(*dir, *prd)}
	res, err := seed.Draft(cmdContext(), cfg, seed.Request{PRD: *prd})
	var inv *seed.InvalidError
	switch {
	case errors.As(err, &inv):
		fmt.Fprintf(stderr, "harnish plan: after %d drafts the plan still has problems:\n", inv.Rounds)
		for _, p := range inv.Problems {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
		return exitError
	case err != nil:
		fmt.Fprintf(stderr, "harnish plan: %v\n", err)
		return exitError
	}
	phases, tasks := plural(len(res.Plan.Phases), "phase"), plural(len(res.Plan.Tasks()), "task")
	fmt.Fprintf(stderr, "drafted in %s: %s, %s\n", plural(res.Rounds, "round"), phases, tasks)
	approved := *yes
	if !approved && askTerminal() {
		fmt.Fprintf(stderr, "%s\nWrite this plan to %s? [y/N] ", res.YAML, *out)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		approved = strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes")
		if !approved {
			fmt.Fprintln(stderr, "harnish plan: not approved; nothing written")
			return 2
		}
	}
	if !approved {
		file := *review
		if file == "" {
			file = *out + ".review"
		}
		if err := os.WriteFile(file, res.YAML, 0o644); err != nil {
			fmt.Fprintf(stderr, "harnish plan: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stderr, "harnish plan: awaiting approval: the plan is in %s; approve with --yes, or move it to %s\n", file, *out)
		return 2
	}
	if err := os.WriteFile(*out, res.YAML, 0o644); err != nil {
		fmt.Fprintf(stderr, "harnish plan: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "Seeding complete: %s, %s (%s)\n", phases, tasks, *out)
	return exitOK
}

// askTerminal says whether plan may ask on the terminal; tests say no.
var askTerminal = func() bool { return isTerminal(os.Stdin) }

// seedExecutor is the agent --executor names.
func seedExecutor(spec, model string) executor.Executor {
	self, _ := os.Executable()
	hook := hookProgram(self)
	switch spec = strings.TrimSpace(spec); spec {
	case task.KindCodex:
		return &codex.Executor{Harnish: hook, Model: model}
	case task.KindClaude:
		return &claude.Executor{Harnish: hook, Model: model}
	}
	return &executor.Command{Argv: strings.Fields(spec)}
}

var prdTags = regexp.MustCompile(`(?mi)^\s*(?:\*\*)?tags(?:\*\*)?\s*[:：]\s*\[?([^\]\n]+)\]?\s*$`)

// prdGuardrails finds the guardrail assets recorded for the PRD's tags.
func prdGuardrails(dir, prd string) []string {
	p := prd
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	m := prdTags.FindSubmatch(data)
	if m == nil {
		return nil
	}
	var tags []string
	for _, t := range strings.Split(string(m[1]), ",") {
		if t = strings.Trim(strings.TrimSpace(t), `"'`); t != "" {
			tags = append(tags, t)
		}
	}
	if _, err := os.Stat(assetsPath(dir)); err != nil {
		return nil
	}
	store, err := asset.OpenFile(assetsPath(dir), nil)
	if err != nil {
		return nil
	}
	defer store.Close()
	found, err := store.Query(cmdContext(), asset.Query{Tags: tags, Type: asset.TypeGuardrail, Limit: 20})
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range found {
		out = append(out, strings.TrimSpace(a.Title+": "+a.Body))
	}
	return out
}
