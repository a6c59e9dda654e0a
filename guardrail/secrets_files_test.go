package guardrail

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// addFinders adds finders to fileFinders, each name after prefix, so the
// file finders' fuzz test runs them too. A name given twice is a test's
// mistake that would silently drop a finder from the fuzz test.
func addFinders(prefix string, finders map[string]func(string) []found) {
	for name, find := range finders {
		if _, ok := fileFinders[prefix+name]; ok {
			panic("two finders named " + prefix + name)
		}
		fileFinders[prefix+name] = find
	}
}

// finderCase is a line and what one finder, by name, must take of it:
// the bytes of each value, in order, or nil for a look-alike.
type finderCase struct {
	finder, text string
	want         []string
}

// checkFinders runs each case's finder of finders on its line.
func checkFinders(t *testing.T, finders map[string]func(string) []found, cases []finderCase) {
	t.Helper()
	for _, c := range cases {
		find, ok := finders[c.finder]
		if !ok {
			t.Fatalf("no finder named %q", c.finder)
		}
		var got []string
		for _, f := range find(c.text) {
			got = append(got, c.text[f.start:f.end])
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s(%q) (-want +got):\n%s", c.finder, c.text, diff)
		}
	}
}

// scanCase is a file's path and text, and whether ScanSecrets must find a
// secret in it.
type scanCase struct {
	path, text string
	want       bool
}

// checkScans runs ScanSecrets on each case.
func checkScans(t *testing.T, cases []scanCase) {
	t.Helper()
	for _, c := range cases {
		if got := ScanSecrets(c.path, c.text); len(got) > 0 != c.want {
			t.Errorf("ScanSecrets(%q, %q) found %+v, want a secret: %v", c.path, c.text, got, c.want)
		}
	}
}

// fileFinders are secrets_files.go's finders of one line, by name.
var fileFinders = map[string]func(string) []found{
	"command":     findCommandPasswords,
	"conninfo":    findConninfo,
	"identified":  findIdentifiedBy,
	"insert":      findInsertValues,
	"envdefaults": findEnvDefaults,
	"authargs":    findAuthArgs,
	"fallbacks":   findEnvFallbacks,
	"relay":       findRelay,
	"calls":       findCredentialCalls,
	"userpass":    findUserPassArgs,
	"fields":      findKeyValueFields,
	"keyparams":   findKeyParams,
	"mnemonic":    findMnemonic,
	"keypair":     findKeypair,
	"codespans":   findCodeSpans,
	"authpass":    findAuthUserPass,
	"define":      func(t string) []found { return findDefine(t, 0) },
	"barecode": func(t string) []found {
		bareCodeValue(t, t)
		bareCodeValue("password = ", t)
		userlistLine(t, 1)
		sealedCiphertext(t)
		return nil
	},
	"shellwords":  func(t string) []found { return wordsFound(t) },
	"valueshapes": func(t string) []found { literal(t); isPlaceholder(t); generated(t); strongKey(t); return nil },
}

// wordsFound returns shellWords' words as spans, for the span checks.
func wordsFound(text string) []found {
	var out []found
	for _, w := range shellWords(text) {
		out = append(out, found{start: w.start, end: w.end})
	}
	return out
}

// quoteComma is what codeShapes' args asks first: a literal's closing
// quote, maybe a blank, and a comma.
var quoteComma = regexp.MustCompile(`["'] ?,`)

// FuzzFileFinders checks the finders of secrets_files.go on any line:
// they do not panic, their spans are inside the line, in order and not
// empty, shellWords' words do not overlap, and codeShapes and
// keypairArray agree with what they stand for, said the slow way.
func FuzzFileFinders(f *testing.F) {
	// Every corpus line is a seed when the seeds run as a test; a fuzzing
	// run starts from one in twenty, or it spends its minute on the
	// ~12,000 seeds and never mutates one.
	step, n := 1, 0
	if fl := flag.Lookup("test.fuzz"); fl != nil && fl.Value.String() != "" {
		step = 20
	}
	for _, c := range secretTexts(f) {
		for l := range strings.SplitSeq(c[1], "\n") {
			if n++; n%step == 0 {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		for name, find := range fileFinders {
			last := -1
			for _, x := range find(text) {
				if x.start < 0 || x.end > len(text) || x.start > x.end || name != "shellwords" && x.start == x.end {
					t.Fatalf("%s: span %d:%d of a line of %d bytes: %q", name, x.start, x.end, len(text), text)
				}
				if name == "shellwords" && x.start < last {
					t.Fatalf("shellWords: word at %d overlaps the one ending at %d: %q", x.start, last, text)
				}
				last = x.end
			}
		}
		calls, args, fields := codeShapes(text)
		wantCalls := strings.Contains(text, `("`) || strings.Contains(text, `('`)
		wantArgs := quoteComma.MatchString(text) && (strings.Contains(text, "@") || strings.Contains(text, "cn=") || strings.Contains(text, "uid=") || strings.Contains(text, "CN=") || strings.Contains(text, "UID="))
		if calls != wantCalls || args != wantArgs || fields != strings.Contains(text, `"value"`) {
			t.Fatalf("codeShapes(%q) = %v %v %v, want %v %v %v", text, calls, args, fields, wantCalls, wantArgs, strings.Contains(text, `"value"`))
		}
		tf := &tfVariables{credential: true}
		for _, s := range tf.line(text, 1) {
			if s.Line != 1 || !strings.HasSuffix(s.Masked, "***") {
				t.Fatalf("tfVariables.line(%q) = %+v", text, s)
			}
		}
		if got, want := keypairArray(text), keypairSlow(text); got != want {
			t.Fatalf("keypairArray(%q) = %v, want %v", text, got, want)
		}
	})
}

// keypairSlow is keypairArray by strconv: a JSON array of 64 numbers
// from 0 to 255, the first right after the bracket.
func keypairSlow(text string) bool {
	t := strings.TrimRight(strings.TrimSpace(text), ",")
	if len(t) < 129 || !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") || t[1] < '0' || t[1] > '9' {
		return false
	}
	parts := strings.Split(t[1:len(t)-1], ",")
	if len(parts) != 64 {
		return false
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || len(p) > 3 || p[0] == '+' || p[0] == '-' {
			return false
		}
	}
	return true
}

func TestShellWordsAndCommands(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`ldapsearch -x -w 'Ab9:c%x' -b dc=x`, "Ab9:c%x"},
		{`redis-cli --pass=s3cr3tV4lue1 PING`, "s3cr3tV4lue1"},
		{`htpasswd -bc /etc/htpasswd ops Zq9mLt2Vx`, "Zq9mLt2Vx"},
		{`htpasswd -c /etc/htpasswd ops`, ""},
		{`ldapsearch -x -W -b dc=x | grep -w s3cr3tV4lue1`, ""},
	} {
		got := ""
		if fs := findCommandPasswords(c.text); len(fs) > 0 {
			got = strings.Trim(c.text[fs[0].start:fs[0].end], `'"`)
		}
		if got != c.want {
			t.Errorf("findCommandPasswords(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
