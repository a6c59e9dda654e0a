package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/harnish/harnish/task/internal/quote"
)

// SchemaMajor is the plan schema major this package reads.
const SchemaMajor = 1

// maxVersionLen bounds a version string, as the semver parsers do.
const maxVersionLen = 256

// versionMajor reads ver as a semantic version and returns its major. It
// reads what github.com/Masterminds/semver/v3's NewVersion does, which the
// host uses for plugin versions, written out here to keep the model free of
// other modules: one to three dot-separated numbers, after an optional "v",
// then an optional "-prerelease" and "+build" of dot-separated identifiers of
// letters, digits and '-', a numeric prerelease identifier having no leading
// zero. Short forms such as 1 and 1.2 are fine; leading zeros in the numbers
// are not an error.
func versionMajor(ver string) (uint64, bool) {
	if len(ver) > maxVersionLen {
		return 0, false
	}
	rest, build, hasBuild := strings.Cut(strings.TrimPrefix(ver, "v"), "+")
	if hasBuild && !identifiers(build, false) {
		return 0, false
	}
	core, pre, hasPre := strings.Cut(rest, "-")
	if hasPre && !identifiers(pre, true) {
		return 0, false
	}
	nums := strings.Split(core, ".")
	if len(nums) > 3 {
		return 0, false
	}
	var major uint64
	for i, n := range nums {
		if n == "" || strings.Trim(n, "0123456789") != "" {
			return 0, false
		}
		v, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			return 0, false
		}
		if i == 0 {
			major = v
		}
	}
	return major, true
}

// identifiers reports whether s is dot-separated identifiers of ASCII
// letters, digits and '-'; a prerelease's numeric ones have no leading zero.
func identifiers(s string, pre bool) bool {
	for id := range strings.SplitSeq(s, ".") {
		if id == "" {
			return false
		}
		numeric := true
		for _, c := range []byte(id) {
			switch {
			case '0' <= c && c <= '9':
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '-':
				numeric = false
			default:
				return false
			}
		}
		if pre && numeric && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// unsupportedVersion says why a plan of schema version ver cannot be read, if
// it cannot. A version that is not semver is left to the validator.
func unsupportedVersion(ver string) (string, bool) {
	major, ok := versionMajor(ver)
	switch {
	case !ok:
		return "", false
	case major > SchemaMajor:
		return fmt.Sprintf("plan schema version %s is newer than this harnish reads (%d.x); upgrade harnish", quote.Bare(ver), SchemaMajor), true
	case major < SchemaMajor:
		return fmt.Sprintf("plan schema version %s is older than this harnish reads (%d.x); write version: %d", quote.Bare(ver), SchemaMajor, SchemaMajor), true
	}
	return "", false
}
