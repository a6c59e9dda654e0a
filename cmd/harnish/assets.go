package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/loop"
)

var assetsCommand = &command{
	name:    "assets",
	args:    "query|record|export|check|compress|purge|stats|import",
	summary: "query and record the experience the loop learns from",
	help: `Assets reads and writes the experience store of the working tree DIR
(--dir, default the current directory): DIR/.harnish/harnish-assets.jsonl,
the file the harnish engine's scripts keep, so both share one store (or
DIR/.harnish/assets.jsonl, where harnish kept it before, if only that exists).

  harnish assets query [--tags a,b] [--all] [--type T] [--text S] [--limit N] [--json]
      List the assets that match, best first: tag overlap, then date, then
      use. --all wants every tag instead of any. --json prints a JSON array.
  harnish assets record --type T --tags a,b --title S [--body S] [--scope S]
      Record an asset. A guardrail asset ("never do X") is how a person
      teaches every later run: the loop puts it in the prompts of tasks with
      those tags. Types: failure, pattern, guardrail, decision, snippet.
  harnish assets compress [--dry-run] [--json]
      Fold every tag that holds 5 or more records into one summary record;
      the originals go to the archive (.harnish/harnish-assets-archive.jsonl,
      the engine's). Summaries are never folded again.
  harnish assets purge [--dry-run] [--json]
      Move what is older than its type's retention (decisions 365 days,
      failures 90, snippets 180, patterns and guardrails never) to the
      archive.
  harnish assets stats [--json]
      Count the assets by type and by tag.
  harnish assets export [--format skill|agents] [--tags a,b] [--type T] [--name N] [--out FILE]
      Turn the assets of the tags (every asset without --tags) into text a
      person reviews and commits for agents to read: a skill (SKILL.md with
      name and description front matter, as Claude Code's skills have it;
      save it as .claude/skills/NAME/SKILL.md) or, with --format agents, a
      section for AGENTS.md. Guardrails come first, then failures and how
      they were resolved, patterns, decisions, snippets. --out writes FILE
      instead of stdout. No asset to export is an error.
  harnish assets check [--tags a,b] [--stale-days N] [--json]
      Report the weak records: no body, no tags (no query finds them), a
      title another asset has, or stale (neither recorded nor used for N
      days, default 180; 0: never stale). Exit status 3 when there are any,
      so a script can gate on it; --json prints them as a JSON array.
  harnish assets import FILE
      Bring in another history (such as another project's
      .harnish/harnish-assets.jsonl). A bad record is an error naming file and
      line, and then nothing is recorded. "harnish run" imports
      DIR/harnish-assets.jsonl by itself into a new store.

Exit status 0 on success, 1 on a usage error or a store that cannot be read;
check exits 3 when it found weak records.
`,
	run: runAssets,
}

func runAssets(c *command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "harnish assets: want a subcommand\nUsage: harnish %s %s\n", c.name, c.args)
		return exitError
	}
	sub, args := args[0], args[1:]
	// One shot: load an index, answer, exit. Collecting garbage a quarter
	// as often halves the CPU a query at 100,000 records takes, for a few
	// MB more at its peak.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	fs := flag.NewFlagSet("assets "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("dir", ".", "the working tree")
	tags := fs.String("tags", "", "comma-separated tags")
	typ := fs.String("type", "", "the asset type")
	var run func() int
	switch sub {
	case "query":
		all := fs.Bool("all", false, "want every tag")
		text := fs.String("text", "", "words the asset must mention")
		limit := fs.Int("limit", 0, "the most assets to print")
		asJSON := fs.Bool("json", false, "print a JSON array")
		run = func() int {
			return assetsQuery(*dir, asset.Query{Tags: splitTags(*tags), AllTags: *all, Type: asset.Type(*typ), Text: *text, Limit: *limit},
				*asJSON, stdout, stderr)
		}
	case "record":
		title := fs.String("title", "", "one line: what the asset is about")
		body := fs.String("body", "", "the asset itself")
		scope := fs.String("scope", "", "generic, project or team")
		run = func() int {
			a := &asset.Asset{Type: asset.Type(*typ), Title: *title, Body: *body, Tags: splitTags(*tags), Scope: asset.Scope(*scope)}
			return assetsRecord(*dir, a, stdout, stderr)
		}
	case "compress", "purge":
		dry := fs.Bool("dry-run", false, "report without changing anything")
		asJSON := fs.Bool("json", false, "print the result as JSON")
		run = func() int { return assetsRewrite(sub, *dir, *dry, *asJSON, stdout, stderr) }
	case "stats":
		asJSON := fs.Bool("json", false, "print the counts as JSON")
		run = func() int { return assetsStats(*dir, *asJSON, stdout, stderr) }
	case "export":
		format := fs.String("format", "skill", "skill or agents")
		name := fs.String("name", "", "the skill's name")
		out := fs.String("out", "", "write to this file instead of stdout")
		run = func() int {
			return assetsExport(*dir, asset.Query{Tags: splitTags(*tags), Type: asset.Type(*typ)},
				asset.ExportRequest{Format: asset.ExportFormat(*format), Tags: splitTags(*tags), Name: *name}, *out, stdout, stderr)
		}
	case "check":
		days := fs.Int("stale-days", 180, "days unrecorded and unused before an asset is stale; 0: never")
		asJSON := fs.Bool("json", false, "print the weak records as a JSON array")
		run = func() int {
			if *days < 0 {
				fmt.Fprintf(stderr, "harnish assets check: --stale-days %d: want 0 or more\n", *days)
				return exitError
			}
			req := asset.CheckRequest{StaleAfter: time.Duration(*days) * 24 * time.Hour}
			if *days == 0 {
				req.StaleAfter = -1
			}
			return assetsCheck(*dir, asset.Query{Tags: splitTags(*tags), Type: asset.Type(*typ)}, req, *asJSON, stdout, stderr)
		}
	case "import":
		run = nil // needs the positional FILE; see below
	case "-h", "-help", "--help", "help":
		c.usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "harnish assets: unknown subcommand %q\nUsage: harnish %s %s\n", sub, c.name, c.args)
		return exitError
	}
	rest, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	switch {
	case err != nil:
	case sub == "import" && len(rest) != 1:
		err = errors.New("want exactly one FILE")
	case sub == "import":
		file := rest[0]
		run = func() int { return assetsImport(*dir, file, stdout, stderr) }
	case len(rest) > 0:
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets %s: %v\nUsage: harnish %s %s\n", sub, err, c.name, c.args)
		return exitError
	}
	return run()
}

// openAssets opens the working tree's store, reporting a failure as sub's.
func openAssets(sub, dir string, stderr io.Writer) (*asset.FileStore, bool) {
	store, err := asset.OpenFile(assetsPath(dir), nil)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets %s: %v\n", sub, err)
		return nil, false
	}
	return store, true
}

func assetsRewrite(sub, dir string, dry, asJSON bool, stdout, stderr io.Writer) int {
	store, ok := openAssets(sub, dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	var res any
	var err error
	var line string
	if sub == "compress" {
		var r *asset.CompressResult
		if r, err = store.Compress(cmdContext(), asset.CompressRequest{DryRun: dry}); err == nil {
			res = r
			line = fmt.Sprintf("%d assets -> %d: %d folded into %d summaries", r.Before, r.After, len(r.Folded), len(r.Summaries))
		}
	} else {
		var r *asset.PurgeResult
		if r, err = store.Purge(cmdContext(), asset.PurgeRequest{ByAge: true, DryRun: dry}); err == nil {
			res = r
			line = fmt.Sprintf("%d purged to %s, %d left", len(r.Purged), store.ArchivePath(), r.Remaining)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets %s: %v\n", sub, err)
		return exitError
	}
	if asJSON {
		json.NewEncoder(stdout).Encode(res)
		return exitOK
	}
	if dry {
		line = "dry run: " + line
	}
	fmt.Fprintln(stdout, line)
	return exitOK
}

func assetsStats(dir string, asJSON bool, stdout, stderr io.Writer) int {
	store, ok := openAssets("stats", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	st, err := store.Stats(cmdContext())
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets stats: %v\n", err)
		return exitError
	}
	if asJSON {
		json.NewEncoder(stdout).Encode(st)
		return exitOK
	}
	fmt.Fprintf(stdout, "%d assets (%d summaries, %d records compressed away)\n", st.Total, st.Summaries, st.Compressed)
	for _, t := range []asset.Type{asset.TypeFailure, asset.TypePattern, asset.TypeGuardrail, asset.TypeDecision, asset.TypeSnippet} {
		if n := st.ByType[t]; n > 0 {
			fmt.Fprintf(stdout, "  %-10s %d\n", t, n)
		}
	}
	return exitOK
}

func assetsImport(dir, file string, stdout, stderr io.Writer) int {
	store, ok := openAssets("import", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	n, err := asset.Import(cmdContext(), store, file)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets import: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "imported %d assets from %s\n", n, file)
	return exitOK
}

func splitTags(s string) []string {
	var tags []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// assetsPath is where the working tree's experience lives.
func assetsPath(dir string) string { return asset.StorePath(filepath.Join(dir, loop.StateDir)) }

func assetsQuery(dir string, q asset.Query, asJSON bool, stdout, stderr io.Writer) int {
	store, ok := openAssets("query", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	found, err := store.Query(cmdContext(), q)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets query: %v\n", err)
		return exitError
	}
	if asJSON {
		if found == nil {
			found = []*asset.Asset{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(found); err != nil {
			fmt.Fprintf(stderr, "harnish assets query: %v\n", err)
			return exitError
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, a := range found {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Type, a.Slug, strings.Join(a.Tags, ","), a.Title)
	}
	tw.Flush()
	return exitOK
}

func assetsRecord(dir string, a *asset.Asset, stdout, stderr io.Writer) int {
	if err := a.Validate(); err != nil {
		fmt.Fprintf(stderr, "harnish assets record: %v\n", err)
		return exitError
	}
	store, ok := openAssets("record", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	if err := store.Record(cmdContext(), a); err != nil {
		fmt.Fprintf(stderr, "harnish assets record: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "recorded %s %q\n", a.Type, a.Title)
	return exitOK
}

func assetsExport(dir string, q asset.Query, req asset.ExportRequest, out string, stdout, stderr io.Writer) int {
	store, ok := openAssets("export", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	found, err := store.Query(cmdContext(), q)
	if err == nil && len(found) == 0 {
		err = errors.New("no asset matches")
	}
	var text []byte
	if err == nil {
		text, err = asset.Export(found, req)
	}
	if err == nil && out != "" {
		if err = os.MkdirAll(filepath.Dir(out), 0o755); err == nil {
			err = os.WriteFile(out, text, 0o644)
		}
	} else if err == nil {
		_, err = stdout.Write(text)
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets export: %v\n", err)
		return exitError
	}
	if out != "" {
		fmt.Fprintf(stdout, "exported %d assets to %s; review it before committing\n", len(found), out)
	}
	return exitOK
}

// exitWeak is the exit status of an assets check that found weak records.
const exitWeak = 3

func assetsCheck(dir string, q asset.Query, req asset.CheckRequest, asJSON bool, stdout, stderr io.Writer) int {
	store, ok := openAssets("check", dir, stderr)
	if !ok {
		return exitError
	}
	defer store.Close()
	found, err := store.Query(cmdContext(), q)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets check: %v\n", err)
		return exitError
	}
	weak := asset.Check(found, req)
	if asJSON {
		if weak == nil {
			weak = []asset.Weakness{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(weak)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, w := range weak {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.Problem, w.Type, w.Slug, w.Title, w.Detail)
		}
		tw.Flush()
		fmt.Fprintf(stdout, "%d weak record(s) among %d assets\n", len(weak), len(found))
	}
	if len(weak) > 0 {
		return exitWeak
	}
	return exitOK
}
