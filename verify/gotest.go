package verify

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// GoTest is a [Verifier] that runs "go test -json" and counts the tests. It
// passes when go test exits 0, no test and no package failed, and at least
// MinTests tests ran: zero tests never pass. A failing report's fingerprint
// names the failing tests (or the build errors). It runs its own
// configuration whatever the request's Checks say, and is safe for
// concurrent use.
type GoTest struct {
	// Packages are the package patterns. Empty means ./... .
	Packages []string
	// Flags go before the packages, e.g. -race, -count=1, -run=X.
	Flags []string
	// MinTests is the fewest tests (subtests included) that must run. Zero
	// means 1.
	MinTests int
	// Dir is the module directory, relative to the working tree's root.
	Dir string
	// Timeout bounds the run. Zero means [DefaultTimeout].
	Timeout time.Duration
	// Env adds variables to the environment, as executor.Command.Env does.
	Env map[string]string
	// Go is the go command. Empty means "go" from PATH.
	Go string
}

// Verify runs go test in req.WorkDir.
func (g *GoTest) Verify(ctx context.Context, req *Request) (*Report, error) {
	goCmd := g.Go
	if goCmd == "" {
		goCmd = "go"
	}
	pkgs := g.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	argv := append(append([]string{goCmd, "test", "-json"}, g.Flags...), pkgs...)
	name := "go test " + strings.Join(pkgs, " ")
	var parser GoTestParser
	o, err := runStage(ctx, req.WorkDir, checkDeadline(g.Timeout), stage{check: name, argv: argv, dir: g.Dir, env: envList(g.Env), stdout: &parser})
	if err != nil {
		return nil, err
	}
	sum := parser.Summary()
	res := o.result
	res.TestsRun, res.TestsPassed, res.TestsFailed, res.TestsSkipped = sum.Run, sum.Passed, sum.Failed, sum.Skipped
	minTests := max(g.MinTests, 1)
	res.Passed = res.Passed && sum.Failed == 0 && len(sum.FailedPackages) == 0 && sum.Run >= minTests
	res.OutputTail = goTestTail(sum, o)
	rep := &Report{Passed: res.Passed, Checks: []CheckResult{res}}
	if rep.Passed {
		return rep, nil
	}
	var class FailureClass
	var key, summary string
	switch {
	case o.class != "":
		key, summary = res.OutputTail, fmt.Sprintf("%s: %s", name, summaryLine(res.OutputTail))
		if o.class == ClassTimeout && len(sum.FailedTests) > 0 {
			key = strings.Join(sum.FailedTests, "\n")
		}
	case sum.BuildFailed:
		class, key = ClassCompile, sum.BuildOutput
		summary = fmt.Sprintf("%s: build failed: %s", name, firstErrorLine(sum.BuildOutput))
	case len(sum.FailedTests) > 0:
		class = ClassTest
		var b strings.Builder
		for _, t := range sum.FailedTests {
			b.WriteString(t + "\n" + sum.TestOutput[t] + "\n")
		}
		key = b.String()
		summary = fmt.Sprintf("%s: %d of %d tests failed: %s", name, sum.Failed, sum.Run, listNames(sum.FailedTests, 5))
	case len(sum.FailedPackages) > 0:
		class = Classify(argv, res.OutputTail)
		key = strings.Join(sum.FailedPackages, "\n") + "\n" + res.OutputTail
		summary = fmt.Sprintf("%s: packages failed outside any test: %s", name, listNames(sum.FailedPackages, 5))
	case o.run.ExitCode != 0:
		class = Classify(argv, o.run.Stderr)
		key, summary = o.run.Stderr, fmt.Sprintf("%s: exit status %d: %s", name, o.run.ExitCode, summaryLine(o.run.Stderr))
	case sum.Run == 0:
		class, key, summary = ClassTest, "no tests ran", name+": no tests ran"
	default:
		class, key = ClassTest, "too few tests ran"
		summary = fmt.Sprintf("%s: %d tests ran, want at least %d", name, sum.Run, minTests)
	}
	rep.Fingerprint = o.fingerprint(class, req.WorkDir, name+"\n"+key, summary)
	return rep, nil
}

// goTestTail is the readable output of a go test run: the build errors, the
// output of failed tests and packages, then stderr, and a count.
func goTestTail(sum GoTestSummary, o outcome) string {
	var b strings.Builder
	b.WriteString(sum.BuildOutput)
	for _, t := range sum.FailedTests {
		b.WriteString(sum.TestOutput[t])
	}
	for _, p := range sum.FailedPackages {
		b.WriteString(sum.PackageOutput[p])
	}
	if o.run != nil {
		b.WriteString(o.run.Stderr)
	}
	if o.class != "" {
		b.WriteString(summaryLine(o.result.OutputTail) + "\n")
	}
	fmt.Fprintf(&b, "harnish: go test: %d ran, %d passed, %d failed, %d skipped\n", sum.Run, sum.Passed, sum.Failed, sum.Skipped)
	return keepEnd(b.String(), 8000)
}

func firstErrorLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
