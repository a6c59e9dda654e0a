package verify

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// CMake is a [Verifier] for a CMake project: it configures it, builds it,
// requires ctest --show-only=json-v1 to list at least one test, and runs
// ctest --output-on-failure, stopping at the first stage that fails. Each
// stage is a [CheckResult] with its Stage set: "configure", "compiler-id"
// (only with CompilerID), "build", "list", "test". It runs its own
// configuration whatever the request's Checks say, and is safe for
// concurrent use on different build trees.
type CMake struct {
	// Dir is the source directory, relative to the working tree's root.
	Dir string
	// Preset names the configure preset; the build and test presets of the
	// same name are used too, unless BuildPreset or TestPreset names
	// another. Empty means no presets.
	Preset string
	// BuildPreset and TestPreset name the build and test presets, with
	// Preset set. Empty means Preset.
	BuildPreset, TestPreset string
	// ConfigureArgs are added to the configure command, e.g. ["-A", "x64"]
	// or ["-DCMAKE_BUILD_TYPE=Debug"].
	ConfigureArgs []string
	// BuildDir is the build tree relative to Dir, when there is no preset.
	// Empty means "build".
	BuildDir string
	// Config is the configuration for multi-config generators (Release,
	// Debug). Empty means the generator's default.
	Config string
	// CompilerID, when set, is the CMAKE_CXX_COMPILER_ID the configured build
	// tree must report (GNU, Clang, MSVC, ...).
	CompilerID string
	// Timeout bounds all stages together. Zero means [DefaultTimeout].
	Timeout time.Duration
	// Env adds variables to the environment, as executor.Command.Env does.
	Env map[string]string
	// CMakeCommand and CTestCommand are the programs. Empty means "cmake"
	// and "ctest" from PATH.
	CMakeCommand, CTestCommand string
}

// maxListOutput bounds the JSON test list read from ctest.
const maxListOutput = 16 << 20

// Verify configures, builds and tests the project in req.WorkDir.
func (c *CMake) Verify(ctx context.Context, req *Request) (*Report, error) {
	cmake, ctest := or(c.CMakeCommand, "cmake"), or(c.CTestCommand, "ctest")
	buildDir := or(c.BuildDir, "build")
	name := "cmake"
	if c.Preset != "" {
		name += " --preset " + c.Preset
	}
	deadline := checkDeadline(c.Timeout)
	rep := &Report{Passed: true}
	run := func(stageName string, argv []string, stdout *limitBuffer) (outcome, error) {
		st := stage{check: name, stage: stageName, argv: argv, dir: c.Dir, env: envList(c.Env)}
		if stdout != nil {
			st.stdout = stdout
		}
		o, err := runStage(ctx, req.WorkDir, deadline, st)
		if err == nil {
			rep.Checks = append(rep.Checks, o.result)
		}
		return o, err
	}
	fail := func(o outcome, class FailureClass, key, summary string) (*Report, error) {
		rep.Passed = false
		rep.Checks[len(rep.Checks)-1].Passed = false
		rep.Fingerprint = o.fingerprint(class, req.WorkDir, name+"\n"+o.result.Stage+"\n"+key, name+": "+summary)
		return rep, nil
	}
	preset := func(name string, args ...string) []string {
		if c.Preset != "" {
			return append(args, "--preset", or(name, c.Preset))
		}
		return args
	}
	withConfig := func(flag string, args []string) []string {
		if c.Config != "" {
			return append(args, flag, c.Config)
		}
		return args
	}

	// Configure.
	argv := preset(c.Preset, cmake)
	if c.Preset == "" {
		argv = append(argv, "-S", ".", "-B", buildDir)
	}
	o, err := run("configure", append(argv, c.ConfigureArgs...), nil)
	if err != nil {
		return nil, err
	}
	if !o.result.Passed {
		class := ClassCompile
		if infraPattern().MatchString(o.result.OutputTail) || noCompiler().MatchString(o.result.OutputTail) {
			class = ClassInfra
		}
		return fail(o, class, cmakeErrors(o.result.OutputTail), "configure failed: "+firstCMakeError(o.result.OutputTail))
	}
	tree := builtTree(o.run.Stdout)
	if tree == "" {
		tree = filepath.Join(o.run.Dir, buildDir)
	}

	// The compiler the build tree uses.
	if c.CompilerID != "" {
		got, err := compilerID(tree)
		res := CheckResult{Name: name + " (compiler-id)", Stage: "compiler-id", Dir: cleanDir(c.Dir), ExitCode: -1, Passed: err == nil && got == c.CompilerID}
		switch {
		case err != nil:
			res.OutputTail = "harnish: " + err.Error()
		default:
			res.OutputTail = fmt.Sprintf("harnish: CMAKE_CXX_COMPILER_ID is %q, want %q", got, c.CompilerID)
		}
		rep.Checks = append(rep.Checks, res)
		if !res.Passed {
			return fail(outcome{result: res, run: o.run}, ClassInfra, res.OutputTail, res.OutputTail[len("harnish: "):])
		}
	}

	// Build.
	argv = []string{cmake, "--build", buildDir}
	if c.Preset != "" {
		argv = []string{cmake, "--build", "--preset", or(c.BuildPreset, c.Preset)}
	}
	if o, err = run("build", withConfig("--config", argv), nil); err != nil {
		return nil, err
	}
	if !o.result.Passed {
		errs := buildErrors(o.result.OutputTail)
		return fail(o, ClassCompile, errs, "build failed: "+summaryLine(errs))
	}

	// List: at least one test.
	testArgs := func(args ...string) []string {
		if c.Preset == "" {
			args = append(args, "--test-dir", buildDir)
		}
		return withConfig("-C", preset(c.TestPreset, args...))
	}
	list := &limitBuffer{max: maxListOutput}
	if o, err = run("list", testArgs(ctest, "--show-only=json-v1"), list); err != nil {
		return nil, err
	}
	if !o.result.Passed {
		return fail(o, Classify(nil, o.result.OutputTail), o.result.OutputTail, "listing tests failed: "+summaryLine(o.result.OutputTail))
	}
	tests, perr := ParseCTestList(list.Bytes())
	if list.over {
		perr = fmt.Errorf("verify: ctest json-v1: more than %d bytes", maxListOutput)
	}
	if perr != nil {
		return nil, &Error{Kind: KindProtocol, NonRetryable: true, Check: name, Tail: o.result.OutputTail, Err: perr}
	}
	if len(tests) == 0 {
		rep.Checks[len(rep.Checks)-1].OutputTail = appendLine(o.result.OutputTail, "harnish: ctest lists no tests")
		return fail(o, ClassTest, "no tests", "ctest lists no tests")
	}

	// Test.
	if o, err = run("test", testArgs(ctest, "--output-on-failure"), nil); err != nil {
		return nil, err
	}
	sum := ParseCTestOutput(o.run.Stdout)
	last := &rep.Checks[len(rep.Checks)-1]
	last.TestsRun, last.TestsFailed = sum.Total, sum.Failed
	last.TestsPassed = sum.Total - sum.Failed
	if !sum.Found {
		last.TestsRun = len(tests)
	}
	if !o.result.Passed || sum.Failed > 0 {
		if o.class == "" && len(sum.FailedTests) > 0 {
			return fail(o, ClassTest, strings.Join(sum.FailedTests, "\n"),
				fmt.Sprintf("%d of %d tests failed: %s", sum.Failed, sum.Total, listNames(sum.FailedTests, 5)))
		}
		return fail(o, ClassTest, o.result.OutputTail, "ctest failed: "+summaryLine(o.result.OutputTail))
	}
	return rep, nil
}

var (
	builtLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^-- Build files have been written to: (.+?)\s*$`)
	})
	noCompiler = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`No CMAKE_\w+_COMPILER could be found|CMAKE_\w+_COMPILER not set`)
	})
	cmakeError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^CMake Error`)
	})
	compilerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^set\(CMAKE_CXX_COMPILER_ID "([^"]*)"\)`)
	})
)

// builtTree returns the build tree cmake says it configured, or "".
func builtTree(stdout string) string {
	m := builtLine().FindAllStringSubmatch(stdout, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// compilerID reads CMAKE_CXX_COMPILER_ID from the build tree: CMake records
// it in CMakeFiles/<version>/CMakeCXXCompiler.cmake (a cache entry of the
// same name, which a user may set, takes precedence).
func compilerID(tree string) (string, error) {
	if id, ok := cacheEntry(filepath.Join(tree, "CMakeCache.txt"), "CMAKE_CXX_COMPILER_ID"); ok {
		return id, nil
	}
	files, _ := filepath.Glob(filepath.Join(tree, "CMakeFiles", "*", "CMakeCXXCompiler.cmake"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := compilerRE().FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				return m[1], nil
			}
		}
	}
	return "", fmt.Errorf("no C++ compiler ID in build tree %s (is CXX enabled?)", tree)
}

// cacheEntry reads NAME:TYPE=VALUE from a CMakeCache.txt.
func cacheEntry(path, name string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), "=")
		if n, _, _ := strings.Cut(key, ":"); ok && n == name {
			return value, true
		}
	}
	return "", false
}

// cmakeErrors returns the "CMake Error" blocks of configure output, or all
// of it when there are none.
func cmakeErrors(out string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case cmakeError().MatchString(line):
			in = true
		case in && line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t"):
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return out
	}
	return b.String()
}

func firstCMakeError(out string) string {
	lines := strings.Split(cmakeErrors(out), "\n")
	for i, l := range lines {
		if cmakeError().MatchString(l) && i+1 < len(lines) {
			if next := strings.TrimSpace(lines[i+1]); next != "" {
				return strings.TrimSpace(l) + " " + next
			}
			return strings.TrimSpace(l)
		}
	}
	return summaryLine(out)
}

// buildErrors keeps the lines of build output that report errors, or all
// of it when none says "error".
func buildErrors(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "error") || strings.Contains(l, "undefined reference") {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return out
	}
	return b.String()
}

// limitBuffer keeps what is written up to max bytes, and notes overflow.
type limitBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (l *limitBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); len(p) > room {
		l.over = true
		if room > 0 {
			l.Buffer.Write(p[:room])
		}
		return 0, errors.New("verify: output over the limit")
	}
	return l.Buffer.Write(p)
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
