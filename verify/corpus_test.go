package verify_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/harnish/harnish/verify"
)

// TestFingerprintCorpus reads real failures recorded by
// testdata/corpus/generate.sh, each run twice in different temporary
// directories: CLASS/FAILURE/runN.txt. Every run of a failure must classify
// as CLASS and share one fingerprint; different failures must not share one.
func TestFingerprintCorpus(t *testing.T) {
	runs, err := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*", "run*.txt"))
	if err != nil || len(runs) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	owner := map[string]string{} // hash -> failure
	failures := map[string][]string{}
	for _, run := range runs {
		failure := filepath.Dir(run)
		failures[failure] = append(failures[failure], run)
	}
	classes := map[verify.FailureClass]bool{}
	differ := 0 // failures whose runs differ byte for byte: normalization has work to do
	for _, failure := range slices.Sorted(maps.Keys(failures)) {
		class := verify.FailureClass(filepath.Base(filepath.Dir(failure)))
		classes[class] = true
		var first verify.Fingerprint
		for i, run := range failures[failure] {
			data, err := os.ReadFile(run)
			if err != nil {
				t.Fatal(err)
			}
			got := verify.Classify(nil, string(data))
			if got != class {
				t.Errorf("%s: class %q, want %q", run, got, class)
			}
			fp := verify.NewFingerprint(got, string(data), "")
			if i == 0 {
				first = fp
				continue
			}
			if !fp.Same(first) {
				t.Errorf("%s: fingerprint %v differs from the first run's %v; normalized:\n%s\n--- first run normalized:\n%s",
					run, fp, first, verify.Normalize(string(data)), normalizedFile(t, failures[failure][0]))
			}
		}
		if a, b := readFile(t, failures[failure][0]), readFile(t, failures[failure][len(failures[failure])-1]); a != b {
			differ++
		}
		if len(failures[failure]) < 2 {
			t.Errorf("%s: %d run(s), want at least 2", failure, len(failures[failure]))
		}
		if prev, dup := owner[first.Hash]; dup {
			t.Errorf("%s and %s share fingerprint %v", prev, failure, first)
		}
		owner[first.Hash] = failure
	}
	if differ < len(failures)/2 {
		t.Errorf("only %d of %d failures differ between runs; the corpus hardly tests normalization", differ, len(failures))
	}
	for _, c := range []verify.FailureClass{verify.ClassCompile, verify.ClassTest, verify.ClassLint, verify.ClassTimeout, verify.ClassInfra} {
		if !classes[c] {
			t.Errorf("the corpus has no failure of class %q", c)
		}
	}
}

func normalizedFile(t *testing.T, path string) string { return verify.Normalize(readFile(t, path)) }

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
