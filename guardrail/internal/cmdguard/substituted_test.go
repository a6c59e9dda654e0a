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

// TestSedFlags: sed's e and w flags are read after a replacement that
// holds its delimiter escaped, through the one reading of s commands.
func TestSedFlags(t *testing.T) {
	if got := sedWrites(`s/a\/b/c\/d/gw out.txt`); len(got) != 1 || got[0] != "out.txt" {
		t.Errorf("sedWrites = %q, want [out.txt]", got)
	}
	if got := sedExec(`s/x/rm -r \/srv\/data/e`); len(got) != 1 || got[0] != `rm -r \/srv\/data` {
		t.Errorf("sedExec = %q, want the replacement", got)
	}
	if got := sedExec(`s/x/y/w e.txt`); got != nil {
		t.Errorf("sedExec of a w flag = %q, want none", got)
	}
}
