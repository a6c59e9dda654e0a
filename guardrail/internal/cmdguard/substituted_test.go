package cmdguard

import (
	"strings"
	"testing"
)

// TestSubstituted: the text a sed script or perl's -pe code puts into the
// lines it edits, with its group references read as what they refer to.
func TestSubstituted(t *testing.T) {
	for _, tt := range []struct{ script, want string }{
		{"s/PLACEHOLDER/sk_live_abc/", "sk_live_abc\n"},
		{`s/^\(API_KEY=\).*/\1abc123/`, "API_KEY=abc123\n"},
		{`s/^API_KEY=.*/&x/g`, "API_KEY=x\n"},
		{"s|password: .*|password: hunter2|", "password: hunter2\n"},
		{`s/a\/b/c\/d/`, "c/d\n"},
		{`s{(db_password\s*=\s*).*}{$1Q7v}`, "db_password=Q7v\n"},
		{`s/(API_TOKEN=)\S+/${1}Xk9/`, "API_TOKEN=Xk9\n"},
		{`s/x/a\nb/`, "a\nb\n"},
		{"1a\\\nextra line", "extra line\n"},
		{"$a token: abc", "token: abc\n"},
		{"/^#/d; s/x/y/", "y\n"},
		{"p", ""},
		{"s/unterminated/", ""},
		{"set -e", ""},
		{`s/(a)/$9/`, "\n"},
	} {
		if got := substituted(tt.script); got != tt.want {
			t.Errorf("substituted(%q) = %q; want %q", tt.script, got, tt.want)
		}
	}
}

// FuzzSubstituted checks that no script makes the reading of its
// substitutions panic, and that it reads no more than the script holds
// (but for the groups a reference repeats).
func FuzzSubstituted(f *testing.F) {
	for _, s := range []string{"s/a/b/", `s/\(x\)/\1\1/`, "s{a}{b}", "s{a} <b>", "s(a)[b]", `s/a/${1}/`, "1a\\", "s", "s//", `s/\\/\/`, "$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if out := substituted(script); len(out) > 2*len(script)*(1+strings.Count(script, `\`)+strings.Count(script, "&")+strings.Count(script, "$"))+len(script)+1 {
			t.Errorf("substituted(%q) = %d bytes", script, len(out))
		}
	})
}

func TestQuotedTexts(t *testing.T) {
	for _, tt := range []struct{ code, want string }{
		{`sub(/x/, "abc")`, "abc\n"},
		{`a = 'it''s'; b = "q\"r"`, "it\ns\nq\\\"r\n"},
		{`"unterminated`, ""},
		{`none`, ""},
	} {
		if got := quotedTexts(tt.code); got != tt.want {
			t.Errorf("quotedTexts(%q) = %q; want %q", tt.code, got, tt.want)
		}
	}
}
