package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	src := `# comment
title = "x"
[allowlist]
paths = [
    '''a\.lock$''', # why
    '''b''',
]
[[rules]]
id = "demo-token"
regex = '''\bdemo_[a-z]{8}\b'''
entropy = 3.5
keywords = ["demo_"]
[[rules.allowlists]]
regexTarget = "line"
regexes = ['''example''']
`
	cfg, err := parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &config{
		Allowlist: allowlist{Paths: []string{`a\.lock$`, "b"}},
		Rules: []rule{{ID: "demo-token", Regex: `\bdemo_[a-z]{8}\b`, Entropy: 3.5, Keywords: []string{"demo_"},
			Allowlists: []allowlist{{RegexTarget: "line", Regexes: []string{"example"}}}}},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("parse (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"[[rules", "x = '''y", "[[nope]]", "[[rules]]\nzz = 1", "a = [1,", "k = ?"} {
		if _, err := parse(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line ") {
			t.Errorf("parse(%q) = %v, want an error naming the line", bad, err)
		}
	}
}

// FuzzParse checks that no input makes the converter panic.
func FuzzParse(f *testing.F) {
	f.Add("[[rules]]\nid = \"x\"\nkeywords = [\"a\", '''b''']\n")
	f.Add("[allowlist]\nregexes = [\n'''x''',\n]\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = parse(strings.NewReader(src))
	})
}
