package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/task/importer"
)

var importCommand = &command{
	name:    "import",
	args:    "[flags] PATH",
	summary: "convert a peer tool's plan or progress into a harnish plan",
	help: `Import reads the work another tool has under way and writes it as a harnish
plan, keeping what is done, in progress and still to do:

  progress  a harnish-engine progress file (.harnish/harnish-current-work.json,
            and harnish-progress-archive.jsonl beside it)
  steps     a step tree of the Codex step executor (phases/index.json)
  plansmd   a Plans.md of claude-code-harness (with plans/manifest.json,
            --plan NAME picks a named plan; default: the active one)

PATH is the file, or a directory holding one of them; --format auto (the
default) tells the format from the path. The peers do not name the agent
that carries the work out: the plan's executor is the one each peer drives
(progress and plansmd: claude; steps: codex) unless --executor says
codex, claude, or a command line (run with the prompt on stdin, see the
plan's executor kind command). The plan goes to -o FILE (YAML, or
JSON when FILE ends in .json) or to stdout. Every field the plan does not
carry over as written is reported on stderr as

	warning: file:line:col: field: message

followed by a summary line. "harnish run --plan PATH" imports the same way,
and then writes the run's progress back into the peer's file as tasks start,
finish or stop (atomically, in the peer's own terms: the progress file's
done/doing/todo, the step index's completed/error/blocked with summary and
timestamps, Plans.md's cc:WIP and cc:完了 [commit]), so a team can keep its
old tool's view while harnish drives the work.

Exit status 0 when a plan was written (warnings or not), 1 otherwise.
`,
	run: runImport,
}

func runImport(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "auto", "the source's format")
	named := fs.String("plan", "", "the named plan of plans/manifest.json")
	out := fs.String("o", "", "the file to write the plan to")
	exec := fs.String("executor", "", "codex, claude, or a command line")
	paths, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	var f importer.Format
	if err == nil {
		f, err = importer.ParseFormat(*format)
	}
	if err == nil && len(paths) != 1 {
		err = errors.New("want exactly one PATH")
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish import: %v\nUsage: harnish %s %s\n", err, c.name, c.args)
		return exitError
	}
	res, err := importer.Import(paths[0], importer.Options{Format: f, Plan: *named})
	if err != nil {
		fmt.Fprintf(stderr, "harnish import: %v\n", err)
		return exitError
	}
	res.Plan.Executor = executorFor(*exec, res.Format)
	reportImport(stderr, res)
	data, err := encodePlan(res.Plan, strings.EqualFold(filepath.Ext(*out), ".json"))
	if err == nil {
		if *out == "" {
			_, err = stdout.Write(data)
		} else {
			err = os.WriteFile(*out, data, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish import: %v\n", err)
		return exitError
	}
	return exitOK
}

// executorFor reads --executor: codex, claude, or a command line; empty
// means the agent the peer of format f drives.
func executorFor(spec string, f importer.Format) *task.Component {
	switch spec = strings.TrimSpace(spec); spec {
	case "":
		if f == importer.FormatSteps {
			return &task.Component{Kind: task.KindCodex}
		}
		return &task.Component{Kind: task.KindClaude}
	case task.KindCodex, task.KindClaude:
		return &task.Component{Kind: spec}
	}
	return &task.Component{Kind: task.KindCommand, Argv: strings.Fields(spec)}
}

// reportImport prints the warnings of an import and what it found.
func reportImport(w io.Writer, res *importer.Result) {
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	count := map[task.Status]int{}
	for _, pt := range res.Plan.Tasks() {
		count[cmpStatus(pt.Task.Status)]++
	}
	fmt.Fprintf(w, "imported %s from %s (%s): %s, %d done, %d doing, %d to do; executor %s; %s\n",
		plural(len(res.Plan.Phases), "phase"), res.Source, res.Format, plural(len(res.Plan.Tasks()), "task"),
		count[task.StatusDone], count[task.StatusDoing], count[task.StatusTodo],
		strings.TrimSpace(res.Plan.Executor.Kind+" "+strings.Join(res.Plan.Executor.Argv, " ")), plural(len(res.Warnings), "warning"))
}

func cmpStatus(s task.Status) task.Status {
	if s == "" {
		return task.StatusTodo
	}
	return s
}

// encodePlan writes a plan as task.Load reads it: JSON, or YAML with the
// same keys in the same order.
func encodePlan(p *task.Plan, asJSON bool) ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil || asJSON {
		return append(data, '\n'), err
	}
	// JSON is YAML: decode it into nodes, then print them in block style.
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		n.Style = 0
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "\n") {
			n.Style = yaml.LiteralStyle
		}
		for _, c := range n.Content {
			block(c)
		}
		width := 0
		for _, c := range n.Content {
			width += len(c.Value) + 2
		}
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 && width <= 72 && !slices.ContainsFunc(n.Content, func(c *yaml.Node) bool {
			return c.Kind != yaml.ScalarNode || strings.Contains(c.Value, "\n")
		}) {
			n.Style = yaml.FlowStyle // [go, test, ./...]
		}
	}
	block(&doc)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// peerPlan imports the plan at file when it is a peer tool's (a progress
// file, a step tree, a Plans.md, or a directory holding one), and writes
// the converted plan to a file of its own for the run to keep. ok is false
// for a harnish plan.
func peerPlan(file, exec string, stderr io.Writer) (res *importer.Result, converted string, ok bool, err error) {
	if !isPeerFile(file) {
		return nil, "", false, nil
	}
	res, err = importer.Import(file, importer.Options{})
	if err != nil {
		return nil, "", true, err
	}
	res.Plan.Executor = executorFor(exec, res.Format)
	reportImport(stderr, res)
	converted, err = tempPlan(res.Plan, false)
	if err != nil {
		return nil, "", true, err
	}
	return res, converted, true, nil
}

// isPeerFile tells a peer's file from a harnish plan: by its name, and for
// another JSON file by its keys (a progress file has done, doing or todo; a
// harnish plan none of them).
func isPeerFile(file string) bool {
	st, err := os.Stat(file)
	switch {
	case err != nil:
		return false
	case st.IsDir():
		return true
	}
	base := strings.ToLower(filepath.Base(file))
	switch {
	case base == "harnish-current-work.json",
		base == "index.json" && filepath.Base(filepath.Dir(file)) == "phases",
		strings.HasSuffix(base, ".md"), strings.HasSuffix(base, ".markdown"):
		return true
	case strings.HasSuffix(base, ".json"):
		data, err := os.ReadFile(file)
		if err != nil || len(data) > task.MaxPlanSize {
			return false
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal(data, &keys) != nil {
			return false
		}
		_, done := keys["done"]
		_, doing := keys["doing"]
		_, todo := keys["todo"]
		return done || doing || todo
	}
	return false
}
