package msvc

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/harnish/harnish/verify"
)

// buildTree is the build tree of a CMake project configured without
// presets: under harnish's state directory, which the loop neither commits
// nor rolls back, and apart from any tree of the user's own.
const buildTree = ".harnish/msvc/build"

// Verifier is a [verify.Verifier] for C and C++ projects built with CMake
// or MSBuild, by MSVC unless configured otherwise. It discovers the
// project ([Discover]) and the tools ([Finder]), then runs the project's
// plan: for CMake, [verify.CMake] (configure, compiler-id, build, list,
// test); for MSBuild, MSBuild.exe and the configured test command. The
// report starts with a "discover" check saying what was found, and holds
// every stage that ran after it, stopping at the first that fails.
//
// A tree with no C/C++ sources and no build metadata passes, with the
// discover check saying there was nothing to verify: the verifier may be
// installed on every repository, and one without C++ must not fail. A
// configuration that is not valid, an ambiguous or orphan project and a
// missing tool are [*verify.Error]s of [verify.KindUnavailable]: faults of
// the setup, not of the agent's change.
//
// The zero value reads [ConfigFile] from the working tree at every
// verification and looks for tools on this machine. A Verifier is safe for
// concurrent use on different working trees; it must not be copied after
// first use.
type Verifier struct {
	// Config, when set, is used instead of the working tree's
	// [ConfigFile], e.g. settings a plugin host passed in.
	Config *Config
	// Finder finds the tools.
	Finder Finder

	mu    sync.Mutex
	tools map[ProjectType]*Toolchain // found once per type
}

// Verify discovers, builds and tests the project in req.WorkDir.
func (v *Verifier) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("msvc: %w", context.Cause(ctx))
	}
	start := time.Now()
	root := cmp.Or(req.WorkDir, ".")
	unavailable := func(err error) (*verify.Report, error) {
		return nil, &verify.Error{Kind: verify.KindUnavailable, Check: "msvc", Err: err}
	}
	cfg := v.Config
	if cfg != nil {
		if err := cfg.Validate(); err != nil {
			return unavailable(err)
		}
	} else {
		var err error
		if cfg, err = LoadConfig(root); err != nil {
			return unavailable(err)
		}
	}
	deadline := start.Add(cfg.timeout())

	proj, err := Discover(root, cfg)
	if err != nil {
		return unavailable(err)
	}
	disc := verify.CheckResult{Name: "msvc (discover)", Stage: "discover", Dir: ".", ExitCode: -1, Passed: true}
	if proj.Type == "" {
		disc.OutputTail, disc.Duration = "harnish: "+proj.Reason, time.Since(start)
		return &verify.Report{Passed: true, Checks: []verify.CheckResult{disc}}, nil
	}
	if proj.Type == MSBuild && (cfg.MSBuild == nil || len(cfg.MSBuild.TestCommand) == 0) {
		return unavailable(fmt.Errorf("msvc: MSBuild project %s: set msbuild.testCommand in %s to the argv that runs its tests", proj.Path, ConfigFile))
	}
	tc, err := v.toolchain(ctx, proj.Type)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("msvc: %w", context.Cause(ctx))
	}
	if err != nil {
		return unavailable(err)
	}
	if v.Finder.windows() && tc.VisualStudio == nil && cfg.compilerID() == defaultCompilerID {
		return unavailable(fmt.Errorf("%w: vswhere found no Visual Studio with the C++ tools (%s), and compilerId is MSVC",
			ErrToolNotFound, vcTools))
	}
	disc.OutputTail, disc.Duration = describe(proj, tc), time.Since(start)
	rep := &verify.Report{Passed: true, Checks: []verify.CheckResult{disc}}

	if cfg.TDD != nil {
		var files []string
		if req.Task != nil {
			files = req.Task.Files
		}
		res, fp, err := checkTDD(root, cfg, files)
		if err != nil {
			return unavailable(err)
		}
		rep.Checks = append(rep.Checks, res)
		if !res.Passed {
			rep.Passed, rep.Fingerprint = false, fp
			return rep, nil
		}
	}

	var plan verify.Verifier
	if proj.Type == CMake {
		plan = v.cmakePlan(cfg, tc, deadline)
	} else {
		plan = msbuildPlan{cfg: cfg, tc: tc, project: proj.Path, deadline: deadline}
	}
	sub, err := plan.Verify(ctx, req)
	if err != nil {
		return nil, err
	}
	rep.Checks = append(rep.Checks, sub.Checks...)
	rep.Passed, rep.Fingerprint = sub.Passed, sub.Fingerprint
	return rep, nil
}

// toolchain finds the tools for t once, and remembers them.
func (v *Verifier) toolchain(ctx context.Context, t ProjectType) (*Toolchain, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if tc := v.tools[t]; tc != nil {
		return tc, nil
	}
	tc, err := v.Finder.Find(ctx, t)
	if err != nil {
		return nil, err
	}
	if v.tools == nil {
		v.tools = map[ProjectType]*Toolchain{}
	}
	v.tools[t] = tc
	return tc, nil
}

// cmakePlan is verify.CMake set up from the configuration.
func (v *Verifier) cmakePlan(cfg *Config, tc *Toolchain, deadline time.Time) *verify.CMake {
	src := relPath(cfg.sourceDir())
	c := &verify.CMake{Dir: src, CompilerID: cfg.compilerID(), Timeout: remaining(deadline),
		CMakeCommand: tc.CMake, CTestCommand: tc.CTest}
	if cfg.presets() {
		m := cfg.CMake
		c.Preset, c.BuildPreset, c.TestPreset = m.ConfigurePreset, m.BuildPreset, m.TestPreset
		c.BuildDir = fromSource(src, relPath(m.BinaryDir))
		c.Config = cfg.Configuration // only when set: the presets choose otherwise
		return c
	}
	c.BuildDir = fromSource(src, relPath(buildTree))
	c.Config = cfg.configuration()
	generator := ""
	if cfg.CMake != nil {
		generator = cfg.CMake.Generator
	}
	if generator != "" {
		c.ConfigureArgs = append(c.ConfigureArgs, "-G", generator)
	}
	if v.visualStudioGenerator(generator, tc) {
		c.ConfigureArgs = append(c.ConfigureArgs, "-A", cfg.platform(),
			"-DCMAKE_GENERATOR_INSTANCE="+tc.VisualStudio.InstallationPath)
	} else {
		// Single-configuration generators take the configuration here.
		c.ConfigureArgs = append(c.ConfigureArgs, "-DCMAKE_BUILD_TYPE="+c.Config)
	}
	return c
}

// visualStudioGenerator reports whether CMake will use a Visual Studio
// generator, the only kind that takes -A: one named, or CMake's default on
// Windows with Visual Studio installed and CMAKE_GENERATOR unset.
func (v *Verifier) visualStudioGenerator(generator string, tc *Toolchain) bool {
	if !v.Finder.windows() || tc.VisualStudio == nil {
		return false
	}
	generator = cmp.Or(generator, v.Finder.getenv("CMAKE_GENERATOR"))
	return generator == "" || strings.HasPrefix(generator, "Visual Studio")
}

// msbuildPlan builds with MSBuild.exe, then runs the test command (which
// the configuration has).
type msbuildPlan struct {
	cfg      *Config
	tc       *Toolchain
	project  string // slash path
	deadline time.Time
}

func (p msbuildPlan) Verify(ctx context.Context, req *verify.Request) (*verify.Report, error) {
	build := &verify.Command{Timeout: remaining(p.deadline), Argv: []string{p.tc.MSBuild, filepath.FromSlash(p.project),
		"/m", "/nologo", "/p:Configuration=" + p.cfg.configuration(), "/p:Platform=" + p.cfg.platform()}}
	rep, err := build.Verify(ctx, req)
	if err != nil {
		return nil, err
	}
	rep.Checks[0].Stage = "build"
	if !rep.Passed {
		return rep, nil
	}
	test, err := (&verify.Command{Argv: p.cfg.MSBuild.TestCommand, Timeout: remaining(p.deadline)}).Verify(ctx, req)
	if err != nil {
		return nil, err
	}
	res := &test.Checks[0]
	res.Stage = "test"
	if sum := verify.ParseCTestOutput(res.OutputTail); sum.Found {
		res.TestsRun, res.TestsFailed, res.TestsPassed = sum.Total, sum.Failed, sum.Total-sum.Failed
	}
	rep.Checks = append(rep.Checks, *res)
	rep.Passed, rep.Fingerprint = test.Passed, test.Fingerprint
	return rep, nil
}

// describe says what discovery found, for the discover check's output.
func describe(proj *Project, tc *Toolchain) string {
	lines := []string{fmt.Sprintf("harnish: %s project %s (%s)", proj.Type, proj.Path, proj.Reason)}
	if vs := tc.VisualStudio; vs != nil {
		lines = append(lines, fmt.Sprintf("harnish: Visual Studio %s %s at %s", vs.DisplayName, vs.InstallationVersion, vs.InstallationPath))
	}
	for _, t := range []struct{ name, path string }{{"cmake", tc.CMake}, {"ctest", tc.CTest}, {"MSBuild", tc.MSBuild}} {
		if t.path != "" {
			lines = append(lines, "harnish: "+t.name+": "+t.path)
		}
	}
	return strings.Join(lines, "\n")
}

// fromSource returns the repository path p relative to the source
// directory src, as verify.CMake wants its build tree.
func fromSource(src, p string) string {
	rel, err := filepath.Rel(src, p)
	if err != nil {
		return p
	}
	return rel
}

// remaining is the time left until deadline; once it has passed, the
// shortest time there is, so that the next stage times out rather than
// running unbounded.
func remaining(deadline time.Time) time.Duration {
	return max(time.Until(deadline), time.Nanosecond)
}
