package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/flagx"
	"github.com/harnish/harnish/plugins"
)

var pluginsCommand = &command{
	name:    "plugins",
	args:    "list|check [--manifest FILE] [--dir DIR] [--json]",
	summary: "show the plugins of the manifest, or start them and check each",
	help: `Plugins reads the plugin manifest: --manifest FILE, else
DIR/` + guardrail.PluginManifest + ` (DIR defaults to the current directory).

  harnish plugins list
      Print each plugin the manifest names: name, path, version constraint
      and call timeout. Nothing is started.

  harnish plugins check
      Start every plugin as a run would: check its binary against its
      SHA-256, shake hands, ask its version and capabilities and check them
      against the manifest, hand it its settings. Print each plugin's version
      and what it serves, or why it cannot be used.

--json prints a JSON array instead of lines.

Plans name a plugin with {kind: plugin, plugin: NAME} for their executor or
reviewer; "harnish run" starts them from the same manifest.

Exit status 0 when the manifest loads (and, for check, every plugin
starts), 1 otherwise.
`,
	run: runPlugins,
}

// pluginLine is one plugin as list and check print it.
type pluginLine struct {
	Name         string   `json:"name"`
	Path         string   `json:"path"`
	Constraint   string   `json:"constraint,omitempty"`
	Timeout      string   `json:"timeout,omitempty"`
	Version      string   `json:"version,omitempty"`
	APIVersion   string   `json:"api_version,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	Error        string   `json:"error,omitempty"`
}

func runPlugins(c *command, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	manifest := fs.String("manifest", "", "the plugin manifest")
	dir := fs.String("dir", ".", "the working tree")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := flagx.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(stdout)
		return exitOK
	}
	if err == nil && (len(rest) != 1 || rest[0] != "list" && rest[0] != "check") {
		err = errors.New("want list or check")
	}
	if err != nil {
		fmt.Fprintf(stderr, "harnish plugins: %v\nUsage: harnish %s %s\n", err, c.name, c.args)
		return exitError
	}
	path := cmp.Or(*manifest, filepath.Join(*dir, guardrail.PluginManifest))
	m, err := plugins.LoadManifest(path)
	if err != nil {
		fmt.Fprintf(stderr, "harnish plugins: %v\n", err)
		return exitError
	}
	lines := make([]pluginLine, len(m.Plugins))
	for i, s := range m.Plugins {
		lines[i] = pluginLine{Name: s.Name, Path: s.Path, Constraint: s.Version}
		if s.Timeout > 0 {
			lines[i].Timeout = s.Timeout.String()
		}
	}
	status := exitOK
	if rest[0] == "check" {
		// One host per plugin, so one that cannot start does not hide the others.
		for i, s := range m.Plugins {
			info, err := checkPlugin(s, stderr)
			if err != nil {
				lines[i].Error, status = err.Error(), exitError
				continue
			}
			lines[i].Version, lines[i].APIVersion = info.Version, info.APIVersion
			for _, cp := range info.Capabilities {
				lines[i].Capabilities = append(lines[i].Capabilities, string(cp))
			}
			slices.Sort(lines[i].Capabilities)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(lines)
		return status
	}
	for _, l := range lines {
		fmt.Fprintf(stdout, "%s\t%s", l.Name, l.Path)
		if l.Constraint != "" {
			fmt.Fprintf(stdout, "\tversion %s", l.Constraint)
		}
		switch {
		case l.Error != "":
			fmt.Fprintf(stdout, "\tFAILED: %s", l.Error)
		case l.Version != "":
			fmt.Fprintf(stdout, "\tok: %s, API %s, serves %s", l.Version, l.APIVersion, strings.Join(l.Capabilities, ", "))
		}
		fmt.Fprintln(stdout)
	}
	return status
}

// checkPlugin starts one plugin, asks who it is and stops it.
func checkPlugin(s plugins.Spec, stderr io.Writer) (plugins.Info, error) {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := plugins.Open(context.Background(), plugins.Config{Manifest: &plugins.Manifest{Plugins: []plugins.Spec{s}}, Logger: logger})
	if err != nil {
		return plugins.Info{}, err
	}
	defer h.Close()
	return h.Plugins()[0], nil
}
