package model_test

import (
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/harnish/harnish/task/model"
)

// versionSeeds are versions a plan may carry, well-formed or not.
var versionSeeds = []string{
	"1", "1.0", "1.2.3", "v1", "v1.2", "01", "1.02", "0", "2", "2.0.0", "0.9",
	"1-rc.1", "1.0.0-alpha", "1.0.0-0", "1.0.0-00", "1.0.0-01a", "1--x",
	"1.0.0+build.7", "1+a-b", "1.0.0-beta+exp.sha.5114f85", "1-", "1+", "1-a..b",
	"1.0.0+", "1.2.3.4", "", "v", "vv1", "V1", "1.", ".1", "1..2", " 1", "1 ",
	"1\n", "a", "1a", "1.0.0-é", "99999999999999999999", "1.99999999999999999999",
	"18446744073709551615", "1.0-rc_1", "1+a+b", "1-a+b-c", strings.Repeat("1", 257),
}

// The model reads versions by hand, to stay free of other modules; it must
// read them as github.com/Masterminds/semver/v3, which the host uses for
// plugin versions and task used before, does.
func TestVersionAsSemver(t *testing.T) {
	for _, v := range versionSeeds {
		checkVersion(t, v)
	}
}

func FuzzVersion(f *testing.F) {
	for _, v := range versionSeeds {
		f.Add(v)
	}
	f.Fuzz(checkVersion)
}

func checkVersion(t *testing.T, v string) {
	if v == "" {
		return // "required", whatever semver says
	}
	var want error
	if sv, err := semver.NewVersion(v); err != nil {
		want = model.ErrSchema
	} else if sv.Major() != model.SchemaMajor {
		want = model.ErrUnsupportedVersion
	}
	var got error
	for _, p := range (&model.Plan{Version: v}).Validate() {
		if p.Field == "version" {
			got = p.Err
		}
	}
	if got != want {
		t.Errorf("version %q: Validate says %v, semver %v", v, got, want)
	}
}
