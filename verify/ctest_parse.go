package verify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ParseCTestList reads the output of ctest --show-only=json-v1 and returns
// the names of the tests it lists, in order. Output that is not a ctestInfo
// object of major version 1 is an error.
func ParseCTestList(data []byte) ([]string, error) {
	var info struct {
		Kind    string `json:"kind"`
		Version struct {
			Major int `json:"major"`
		} `json:"version"`
		Tests *[]struct {
			Name string `json:"name"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("verify: ctest json-v1: %w", err)
	}
	if info.Kind != "ctestInfo" || info.Version.Major != 1 || info.Tests == nil {
		return nil, fmt.Errorf("verify: ctest json-v1: not a ctestInfo object of version 1 (kind %q, major %d)", info.Kind, info.Version.Major)
	}
	names := make([]string, 0, len(*info.Tests))
	for _, t := range *info.Tests {
		names = append(names, t.Name)
	}
	return names, nil
}

// CTestSummary is what the end of ctest's output says.
type CTestSummary struct {
	// Found reports whether the output has ctest's summary line.
	Found bool
	// Total and Failed count tests as the summary line does.
	Total, Failed int
	// FailedTests lists the failed tests as "name (Status)", sorted, e.g.
	// "divides (Failed)", "hangs (Timeout)".
	FailedTests []string
}

var (
	ctestTotals = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\d+% tests passed, (\d+) tests? failed out of (\d+)`)
	})
	ctestFailed = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\d+\s+-\s+(.+?)\s+\(([^()]+)\)\s*$`)
	})
)

// ParseCTestOutput reads the summary at the end of ctest's output: the
// "N% tests passed, F tests failed out of T" line and the list that follows
// "The following tests FAILED:".
func ParseCTestOutput(out string) CTestSummary {
	var s CTestSummary
	m := ctestTotals().FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		return s
	}
	last := m[len(m)-1]
	s.Found = true
	s.Failed, _ = strconv.Atoi(last[1])
	s.Total, _ = strconv.Atoi(last[2])
	_, list, ok := strings.Cut(out[strings.LastIndex(out, last[0]):], "The following tests FAILED:")
	if !ok {
		return s
	}
	for _, line := range strings.Split(list, "\n")[1:] {
		f := ctestFailed().FindStringSubmatch(line)
		if f == nil {
			break
		}
		s.FailedTests = append(s.FailedTests, f[1]+" ("+f[2]+")")
	}
	slices.Sort(s.FailedTests)
	return s
}
