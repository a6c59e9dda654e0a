package verify

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

var (
	// infraPattern: the check could not run for reasons outside the change.
	infraPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?im)command not found|executable file not found|no such file or directory.*(?:exec|command)|` +
			`no space left on device|connection refused|network is unreachable|temporary failure in name resolution|` +
			`could not resolve host|i/o timeout|cannot allocate memory|out of memory|killed by signal 9|` +
			`dial tcp|TLS handshake timeout|proxyconnect|^\S*sh: (?:\d+: )?\S+: not found`)
	})
	// timeoutPattern: the tests ran out of time.
	timeoutPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)panic: test timed out after|\*\*\*Timeout\b|^\s*\d+ - .+ \(Timeout\)\s*$`)
	})
	// lintPattern: a linter, vet or formatter objected.
	lintPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\bvet: |possible misuse of|call has arguments but no formatting directives|` +
			`wrong type for|of wrong type|possible Printf formatting directive|copies lock value|passes lock by value|unreachable code|result of .* call not used|` +
			`self-assignment of|composite literal uses unkeyed fields|the cancel function .* not used|struct field tag|` +
			`\b(?:golangci-lint|staticcheck|revive|eslint|ruff|flake8|pylint|clippy|shellcheck|prettier)\b|would reformat|` +
			`\bgofmt\b|is not gofmt(?:ed|-ed)`)
	})
	// compilePattern: the code does not build, for certain.
	compilePattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^CMake Error|\[build failed\]|\[setup failed\]|^# \S+.*\n\S+\.go:\d+:\d+: |` +
			`\.(?:c|cc|cpp|cxx|h|hpp|hxx|rs|java|kt|ts|tsx|swift|cs)[:(]\d+\S*:? (?:fatal )?error\b|` +
			`undefined reference to|\bld returned \d+ exit status|\berror (?:C|LNK|MSB)\d{4}:|\berror TS\d{4}:|` +
			`(?i)compil(?:e|ation) (?:error|failed|terminated)`)
	})
	// testPattern: tests ran and failed.
	testPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*--- FAIL|^FAIL\b|\btests? failed\b|\bAssertionError\b|\b\d+ failed\b|^not ok \d+`)
	})
	// weakCompilePattern: probably a build error, when no test failed.
	weakCompilePattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)\berror(?:\[E\d+\])?: |\bsyntax error\b|\bSyntaxError\b`)
	})
)

// linters are programs whose failing is a lint failure, whatever they print.
var linters = map[string]bool{
	"gofmt": true, "goimports": true, "golangci-lint": true, "staticcheck": true, "revive": true,
	"eslint": true, "prettier": true, "ruff": true, "flake8": true, "pylint": true, "black": true,
	"shellcheck": true, "clang-format": true, "clang-tidy": true, "cargo-clippy": true, "markdownlint": true,
}

// Classify guesses the class of a failed check from what ran and what it
// printed: [ClassInfra] when the tools or machine failed it, [ClassTimeout]
// when tests ran out of their own time, [ClassLint]
// for linters and vet, [ClassCompile] for build errors, and [ClassTest]
// otherwise (a check that fails is, by default, a test that fails).
// Verifiers that know better (a timeout, a build stage) set the class
// themselves.
func Classify(argv []string, output string) FailureClass {
	switch {
	case infraPattern().MatchString(output):
		return ClassInfra
	case timeoutPattern().MatchString(output):
		return ClassTimeout
	case isLinter(argv), lintPattern().MatchString(output):
		return ClassLint
	case compilePattern().MatchString(output):
		return ClassCompile
	case testPattern().MatchString(output):
		return ClassTest
	case weakCompilePattern().MatchString(output):
		return ClassCompile
	}
	return ClassTest
}

func isLinter(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	prog := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	if linters[prog] {
		return true
	}
	// go vet, cargo clippy, npm run lint and the like.
	for _, a := range argv[1:] {
		switch a {
		case "vet", "clippy", "lint", "fmt", "format", "--check":
			return true
		}
	}
	return false
}
