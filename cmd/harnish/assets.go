package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/harnish/harnish/asset"
	"github.com/harnish/harnish/loop"
)

var assetsCommand = &command{
	name:    "assets",
	args:    "query|record [flags]",
	summary: "query and record the experience the loop learns from",
	help: `Assets reads and writes the experience store of the working tree DIR,
DIR/.harnish/assets.jsonl (--dir, default the current directory).

  harnish assets query [--tags a,b] [--all] [--type T] [--text S] [--limit N] [--json]
      List the assets that match, best first: tag overlap, then date, then
      use. --all wants every tag instead of any. --json prints a JSON array.
  harnish assets record --type T --tags a,b --title S [--body S] [--scope S]
      Record an asset. A guardrail asset ("never do X") is how a person
      teaches every later run: the loop puts it in the prompts of tasks with
      those tags. Types: failure, pattern, guardrail, decision, snippet.

Exit status 0 on success, 1 on a usage error or a store that cannot be read.
`,
	run: runAssets,
}

func runAssets(c *command, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "harnish assets: want a subcommand\nUsage: harnish %s %s\n", c.name, c.args)
		return exitError
	}
	sub, args := args[0], args[1:]
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
	case "-h", "-help", "--help", "help":
		c.usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "harnish assets: unknown subcommand %q\nUsage: harnish %s %s\n", sub, c.name, c.args)
		return exitError
	}
	rest, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets %s: %v\nUsage: harnish %s %s\n", sub, err, c.name, c.args)
		return exitError
	}
	return run()
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
func assetsPath(dir string) string { return filepath.Join(dir, loop.StateDir, "assets.jsonl") }

func assetsQuery(dir string, q asset.Query, asJSON bool, stdout, stderr io.Writer) int {
	store, err := asset.OpenFile(assetsPath(dir), nil)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets query: %v\n", err)
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
	store, err := asset.OpenFile(assetsPath(dir), nil)
	if err != nil {
		fmt.Fprintf(stderr, "harnish assets record: %v\n", err)
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
