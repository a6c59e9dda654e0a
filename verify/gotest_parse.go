package verify

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"
)

// Bounds that keep parsing go test -json output in constant memory per test.
const (
	maxEventLine  = 1 << 20 // longer lines are cut, and then do not parse
	maxTestOutput = 4 << 10 // output kept per failing test, its end
	maxBuildOut   = 16 << 10
)

// GoTestSummary is what a go test -json stream says about the tests. Tests
// are counted with their subtests, each by its own events.
type GoTestSummary struct {
	// Run, Passed, Failed and Skipped count tests by their run, pass, fail
	// and skip events. A test still running when its package ended (a panic,
	// a timeout) counts as failed.
	Run, Passed, Failed, Skipped int
	// FailedTests names the tests that failed, "package.Test/subtest", sorted.
	FailedTests []string
	// FailedPackages lists, sorted, the packages that failed: a build
	// failure, a failing test, a panic or TestMain failing.
	FailedPackages []string
	// BuildFailed reports whether some package did not build.
	BuildFailed bool
	// BuildOutput is what the compiler printed for packages that did not
	// build (its end, when long).
	BuildOutput string
	// TestOutput holds the end of each failed test's output, by its name in
	// FailedTests.
	TestOutput map[string]string
	// PackageOutput holds the end of the output of each failed package that
	// was printed outside any test (a panic in init, "no test files").
	PackageOutput map[string]string
	// NotJSON counts lines that are not go test -json events.
	NotJSON int
}

// testEvent is one line of go test -json output (see go doc test2json).
type testEvent struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail events
	Test        string
	Output      string
	FailedBuild string
}

// GoTestParser reads go test -json output as it is written, in memory that
// grows with the number of tests, not the output's length. It is an
// io.Writer that never fails; it is not safe for concurrent use.
type GoTestParser struct {
	line    []byte
	cut     bool // the current line was too long and is being skipped
	sum     GoTestSummary
	running map[string]string // test key -> its output's end
	pkgOut  map[string]string
	failed  map[string]bool // failed packages
	build   string
}

// ParseGoTestJSON reads a whole go test -json stream.
func ParseGoTestJSON(r io.Reader) (GoTestSummary, error) {
	var p GoTestParser
	if _, err := io.Copy(&p, r); err != nil {
		return GoTestSummary{}, err
	}
	return p.Summary(), nil
}

// Write parses the complete lines in b and keeps the rest for later.
func (p *GoTestParser) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !p.cut {
			if room := maxEventLine - len(p.line); len(chunk) > room {
				p.line, p.cut = append(p.line, chunk[:room]...), true
			} else {
				p.line = append(p.line, chunk...)
			}
		}
		if i < 0 {
			break
		}
		p.event(p.line)
		p.line, p.cut = p.line[:0], false
		b = b[i+1:]
	}
	return n, nil
}

// Summary returns what the stream said so far, counting a last line without
// a newline.
func (p *GoTestParser) Summary() GoTestSummary {
	if len(p.line) > 0 {
		p.event(p.line)
		p.line, p.cut = p.line[:0], false
	}
	s := p.sum
	s.FailedTests = slices.Sorted(slices.Values(s.FailedTests))
	s.FailedPackages = make([]string, 0, len(p.failed))
	for pkg := range p.failed {
		s.FailedPackages = append(s.FailedPackages, pkg)
	}
	slices.Sort(s.FailedPackages)
	s.BuildOutput = p.build
	s.TestOutput = maps.Clone(p.sum.TestOutput)
	s.PackageOutput = maps.Clone(p.sum.PackageOutput)
	return s
}

func (p *GoTestParser) event(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var e testEvent
	if line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
		p.sum.NotJSON++
		return
	}
	if p.running == nil {
		p.running, p.pkgOut, p.failed = map[string]string{}, map[string]string{}, map[string]bool{}
	}
	key := e.Package + "." + e.Test
	switch {
	case e.Action == "build-output":
		p.build = keepEnd(p.build+e.Output, maxBuildOut)
	case e.Action == "build-fail":
		p.sum.BuildFailed = true
	case e.Test == "":
		p.packageEvent(e)
	case e.Action == "run":
		p.sum.Run++
		p.running[key] = ""
	case e.Action == "output":
		if out, ok := p.running[key]; ok {
			p.running[key] = keepEnd(out+e.Output, maxTestOutput)
		}
	case e.Action == "pass":
		p.sum.Passed++
		delete(p.running, key)
	case e.Action == "skip":
		p.sum.Skipped++
		delete(p.running, key)
	case e.Action == "fail":
		p.testFailed(key, p.running[key])
		delete(p.running, key)
		p.failed[e.Package] = true
	}
}

func (p *GoTestParser) packageEvent(e testEvent) {
	switch e.Action {
	case "output":
		p.pkgOut[e.Package] = keepEnd(p.pkgOut[e.Package]+e.Output, maxTestOutput)
	case "fail":
		p.failed[e.Package] = true
		if e.FailedBuild != "" || strings.Contains(p.pkgOut[e.Package], "[build failed]") {
			p.sum.BuildFailed = true
		}
		// Tests of the package that never finished (a panic, a timeout)
		// failed.
		prefix := e.Package + "."
		for _, key := range slices.Sorted(maps.Keys(p.running)) {
			if strings.HasPrefix(key, prefix) {
				p.testFailed(key, p.running[key])
				delete(p.running, key)
			}
		}
		if p.sum.PackageOutput == nil {
			p.sum.PackageOutput = map[string]string{}
		}
		p.sum.PackageOutput[e.Package] = p.pkgOut[e.Package]
		delete(p.pkgOut, e.Package)
	case "pass", "skip":
		delete(p.pkgOut, e.Package)
	}
}

func (p *GoTestParser) testFailed(key, out string) {
	p.sum.Failed++
	p.sum.FailedTests = append(p.sum.FailedTests, key)
	if p.sum.TestOutput == nil {
		p.sum.TestOutput = map[string]string{}
	}
	p.sum.TestOutput[key] = out
}

// keepEnd returns the last n bytes of s, from a line start when it can.
func keepEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}
