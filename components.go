package harnish

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/executor"
	"github.com/harnish/harnish/executor/acp"
	"github.com/harnish/harnish/executor/claude"
	"github.com/harnish/harnish/executor/codex"
	"github.com/harnish/harnish/guardrail"
	"github.com/harnish/harnish/internal/gitx"
	"github.com/harnish/harnish/loop"
	"github.com/harnish/harnish/plugins"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// Components builds the loop configuration of plan and opts, short of what
// [Open] opens on disk (Store, Assets, RecordsDir): the executor, reviewer
// and debugger the plan names, the verifier that runs each task's own
// acceptance checks, the edit guardrail of the plan's settings, and the
// options (Gate, Observer, Logger, rollback and, in a git working tree,
// commits and branch). It is for a host with a store of its own; most
// callers want Open.
//
// The plan's components map as follows. Executor: kind command is an
// [executor.Command], codex a [codex.Executor], claude a [claude.Executor]
// (whose hooks run Options.HookProgram with Options.PlanFile), acp an
// [acp.Executor] of the agent it names (judging by the plan's guardrails
// in process), plugin the
// named plugin's executor. Reviewer: kind command is a
// [verify.CommandReviewer], plugin the named plugin's reviewer; none, no
// review. Debugger: kind command is an [executor.CommandDebugger], plugin the
// named plugin's debugger; none, no debugger. Advisor: kind command is an
// [executor.CommandAdvisor], plugin the named plugin's advisor; none, no
// advisor. Any other kind is an error, as is a plan with no executor.
// Outside a git working tree a [loop.DirWorkspace] reads the tree (the
// guardrail's audit and the rollback work as in git) and nothing is
// committed.
//
// Plugins named by the plan are started from Options.PluginManifest, and
// only those. The returned Closer stops them; it is never nil when err is
// nil. Every error begins with "harnish: ".
func Components(ctx context.Context, plan *task.Plan, opts Options) (loop.Config, io.Closer, error) {
	cfg, host, err := components(ctx, plan, opts)
	if err != nil {
		return loop.Config{}, nil, fmt.Errorf("harnish: %w", err)
	}
	return cfg, host, nil
}

func components(ctx context.Context, plan *task.Plan, opts Options) (loop.Config, io.Closer, error) {
	if plan == nil {
		return loop.Config{}, nil, errors.New("no plan")
	}
	dir, err := filepath.Abs(cmp.Or(opts.Dir, "."))
	if err != nil {
		return loop.Config{}, nil, fmt.Errorf("Options.Dir: %w", err)
	}
	g, err := guardrail.NewEditGuard(guardrail.PlanEditConfig(plan, os.DirFS(dir)))
	if err != nil {
		return loop.Config{}, nil, err
	}
	cfg := loop.Config{Plan: plan, WorkDir: dir, Verifier: verify.Acceptance{}, Guardrail: g,
		Gate: opts.Gate, Observer: opts.Observer, Logger: opts.Logger, RunID: opts.RunID}
	if plan.Executor == nil {
		return cfg, nil, errors.New("the plan names no executor (executor: {kind: command, argv: [...]})")
	}
	var advisor *task.Component
	if plan.Advisor != nil {
		advisor = plan.Advisor.Component()
	}
	for _, c := range []struct {
		what string
		c    *task.Component
	}{{"debugger", plan.Debugger}, {"advisor", advisor}} {
		if c.c != nil && c.c.Kind != task.KindCommand && c.c.Kind != task.KindPlugin {
			return cfg, nil, fmt.Errorf("%s kind %q is not available in this harnish; use kind command or plugin", c.what, c.c.Kind)
		}
	}
	var named []string
	for _, c := range []*task.Component{plan.Executor, plan.Reviewer, plan.Debugger, advisor} {
		if c != nil && c.Kind == task.KindPlugin {
			named = append(named, c.Plugin)
		}
	}
	checks := checkPlugins(plan)
	for _, name := range checks {
		if !slices.Contains(named, name) {
			named = append(named, name)
		}
	}
	host, err := openPlugins(ctx, cmp.Or(opts.PluginManifest, filepath.Join(dir, guardrail.PluginManifest)), named, opts)
	if err != nil {
		return cfg, nil, err
	}
	fail := func(err error) (loop.Config, io.Closer, error) {
		host.Close()
		return cfg, nil, err
	}
	switch c := plan.Executor; c.Kind {
	case task.KindCommand:
		cfg.Executor = &executor.Command{Argv: c.Argv, Env: c.Env}
	case task.KindPlugin:
		if cfg.Executor, err = host.Executor(c.Plugin); err != nil {
			return fail(err)
		}
	case task.KindCodex:
		cfg.Executor = &codex.Executor{Harnish: opts.HookProgram, PlanFile: opts.PlanFile, Model: c.Model, Env: c.Env,
			Sandbox: c.Sandbox, Args: c.Args}
	case task.KindClaude:
		cfg.Executor = &claude.Executor{Harnish: opts.HookProgram, PlanFile: opts.PlanFile, Model: c.Model, Env: c.Env,
			PermissionMode: c.PermissionMode, AllowedTools: c.AllowedTools, Args: c.Args}
	case task.KindACP:
		if _, ok := acp.Lookup(c.Agent); c.Agent != "" && !ok {
			return fail(fmt.Errorf("executor agent %q: want one of %s, or argv alone for another ACP agent", c.Agent, strings.Join(acp.Agents(), ", ")))
		}
		cfg.Executor = &acp.Executor{Agent: c.Agent, Command: c.Argv, Model: c.Model, Args: c.Args, Env: c.Env, Plan: plan}
	default:
		return fail(fmt.Errorf("executor kind %q is not available in this harnish", c.Kind))
	}
	if len(checks) > 0 {
		acc := verify.Acceptance{Plugins: map[string]verify.Verifier{}}
		for _, name := range checks {
			if acc.Plugins[name], err = host.Verifier(name); err != nil {
				return fail(err)
			}
		}
		cfg.Verifier = acc
	}
	switch c := plan.Debugger; {
	case c == nil:
	case c.Kind == task.KindPlugin:
		if cfg.Debugger, err = host.Debugger(c.Plugin); err != nil {
			return fail(err)
		}
	default:
		cfg.Debugger = &executor.CommandDebugger{Argv: c.Argv, Env: c.Env}
	}
	switch c := advisor; {
	case c == nil:
	case c.Kind == task.KindPlugin:
		if cfg.Advisor, err = host.Advisor(c.Plugin); err != nil {
			return fail(err)
		}
	default:
		cfg.Advisor = &executor.CommandAdvisor{Argv: c.Argv, Env: c.Env}
	}
	switch c := plan.Reviewer; {
	case c == nil:
	case c.Kind == task.KindCommand:
		cfg.Reviewer = &verify.CommandReviewer{Argv: c.Argv, Env: c.Env}
	case c.Kind == task.KindPlugin:
		if cfg.Reviewer, err = host.Reviewer(c.Plugin); err != nil {
			return fail(err)
		}
	default:
		return fail(fmt.Errorf("reviewer kind %q is not available in this harnish; use kind command or plugin", c.Kind))
	}
	history(&cfg, opts)
	return cfg, host, nil
}

// checkPlugins returns the verifier plugins the plan's checks name, once
// each, in plan order.
func checkPlugins(plan *task.Plan) []string {
	var out []string
	for _, pt := range plan.Tasks() {
		for _, c := range pt.Task.Acceptance {
			if c.Plugin != "" && !slices.Contains(out, c.Plugin) {
				out = append(out, c.Plugin)
			}
		}
	}
	return out
}

// history maps the options that need a history (commits, the branch) onto
// cfg in a git working tree. Elsewhere a [loop.DirWorkspace] reads the tree,
// so the edit guardrail still judges each attempt's change and a rollback
// still undoes a failed one; nothing is committed.
func history(cfg *loop.Config, opts Options) {
	cfg.Rollback = opts.Rollback
	if !gitx.InRepo(cfg.WorkDir) {
		cfg.Workspace = &loop.DirWorkspace{Dir: cfg.WorkDir}
		if cfg.Logger != nil {
			cfg.Logger.Info("harnish: not a git working tree: changes are read from snapshots of the directory, and nothing is committed", "dir", cfg.WorkDir)
		}
		return
	}
	cfg.CommitTasks, cfg.Branch = opts.CommitTasks, opts.Branch
}

// pluginHost is the plugins a plan uses; a nil one has none, and closes
// as nothing.
type pluginHost struct{ *plugins.Host }

func (h pluginHost) Close() error {
	if h.Host == nil {
		return nil
	}
	return h.Host.Close()
}

// openPlugins starts the plugins of the manifest at path that the plan
// names, and no others: one the plan does not use must not stop the run.
func openPlugins(ctx context.Context, path string, named []string, opts Options) (pluginHost, error) {
	if len(named) == 0 {
		return pluginHost{}, nil
	}
	if _, err := os.Stat(path); err != nil {
		return pluginHost{}, fmt.Errorf("the plan names plugins, and the plugin manifest %s cannot be read: %w", path, err)
	}
	m, err := plugins.LoadManifest(path)
	if err != nil {
		return pluginHost{}, err
	}
	used := &plugins.Manifest{}
	for _, s := range m.Plugins {
		if slices.Contains(named, s.Name) {
			used.Plugins = append(used.Plugins, s)
		}
	}
	for _, name := range named {
		if !slices.ContainsFunc(used.Plugins, func(s plugins.Spec) bool { return s.Name == name }) {
			return pluginHost{}, fmt.Errorf("the plan names plugin %q, which %s does not list", name, path)
		}
	}
	h, err := plugins.Open(ctx, plugins.Config{Manifest: used, Logger: opts.Logger})
	return pluginHost{h}, err
}
