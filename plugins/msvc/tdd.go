package msvc

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnish/harnish/verify"
)

// checkTDD is the test-first check: every file of the task's declared scope
// whose extension has test patterns, and that is not a test itself, needs a
// file named by one of its patterns somewhere in the tree.
func checkTDD(root string, cfg *Config, files []string) (verify.CheckResult, verify.Fingerprint, error) {
	res := verify.CheckResult{Name: "msvc (tdd)", Stage: "tdd", Dir: ".", ExitCode: -1, Passed: true}
	var (
		missing []string
		checked int
		have    map[string]bool
	)
	for _, f := range files {
		f = filepath.ToSlash(f)
		pats := cfg.TDD.Patterns[path.Ext(f)]
		if len(pats) == 0 || !isFile(filepath.Join(root, filepath.FromSlash(f))) || isTest(path.Base(f), pats) {
			continue
		}
		if have == nil {
			s, err := scan(root, cfg) // the tree as Discover sees it: build trees and state left out
			if err != nil {
				return res, verify.Fingerprint{}, err
			}
			have = s.names
		}
		checked++
		stem := strings.TrimSuffix(path.Base(f), path.Ext(f))
		var want []string
		for _, p := range pats {
			want = append(want, strings.ReplaceAll(p, "{stem}", stem))
		}
		if !slices.ContainsFunc(want, func(n string) bool { return have[n] }) {
			missing = append(missing, fmt.Sprintf("%s (want %s)", f, strings.Join(want, " or ")))
		}
	}
	if len(missing) == 0 {
		res.OutputTail = fmt.Sprintf("harnish: %d C/C++ files of the task's scope have their tests", checked)
		return res, verify.Fingerprint{}, nil
	}
	res.Passed = false
	res.OutputTail = "harnish: no test file for:\n  " + strings.Join(missing, "\n  ")
	fp := verify.NewFingerprint(verify.ClassTest, "msvc\ntdd\n"+strings.Join(missing, "\n"),
		"msvc: no test file for "+names(missing, 3))
	return res, fp, nil
}

// isTest reports whether name is itself a test file by one of pats.
func isTest(name string, pats []string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(strings.ReplaceAll(p, "{stem}", "*"), name); ok {
			return true
		}
	}
	return false
}
