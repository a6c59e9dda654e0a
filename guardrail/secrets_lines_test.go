package guardrail

import (
	"slices"
	"strings"
	"testing"
)

func TestValueKey(t *testing.T) {
	for _, c := range []struct {
		prev, text, want string
	}{
		{"<apiToken>", "  v", "apiToken"},
		{`<clientSecret env="prod">`, "  v", "clientSecret"},
		{"<ns:token>", "  v", "ns:token"},
		{"token: |", "  v", "token"},
		{"  token: >-", "    v", "token"},
		{"token: |+2", "  v", "token"},
		{"DB_PASSWORD = \\", "  v", "DB_PASSWORD"},
		{`  "apiToken":`, "      v", "apiToken"},
		{"token:", "  v", "token"},
		{"token:", "v", ""},   // not indented under it
		{"TOKEN=", "  v", ""}, // an empty value
		{"<br/>", "  v", ""},
		{"</token>", "  v", ""},
		{"a => b", "  v", ""},
		{"x = y |", "  v", ""},
		{"|", "  v", ""},
	} {
		got, ok := valueKey(c.prev, c.text)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("valueKey(%q, %q) = %q, %v; want %q", c.prev, c.text, got, ok, c.want)
		}
	}
}

func TestCurlUsers(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"curl -u deploy:Zt8qLm2Vr9x https://x", []string{"deploy:Zt8qLm2Vr9x"}},
		{"curl -udeploy:Zt8qLm2Vr9x https://x", []string{"deploy:Zt8qLm2Vr9x"}},
		{"curl --user='deploy':'Zt8qLm2Vr9x' x", []string{"'deploy':'Zt8qLm2Vr9x'"}},
		{`curl --user "{id}":"{Zt8qLm2Vr9x}" x`, []string{`"{id}":"{Zt8qLm2Vr9x}"`}},
		{`curl --user "{id}":"{password}" x`, nil},
		{"curl --user-agent a:Zt8qLm2Vr9x x", nil},
		{"curl -u deploy: x", nil},
		{`curl -u "$U:$P" x`, nil},
		{"curl -u 'unterminated:Zt8qLm2Vr9x", nil},
	} {
		var got []string
		for _, sp := range curlUsers(c.text) {
			got = append(got, c.text[sp[0]:sp[1]])
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("curlUsers(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

// FuzzNextLineValue: the parsers of a value on the line after its name
// return spans inside their lines and names made of a name's bytes, and
// the scan of two lines does not fail.
func FuzzNextLineValue(f *testing.F) {
	for _, c := range [][2]string{
		{"<apiToken>", "    q8Zr2LmN5vXw7Tk4Pb9Hc3Jd6Fs1Gy0A</apiToken>"},
		{"client_secret: >-", `  "Rm4Tq9Wz2Lp7Xc8Vb3Nh6Kd1",`},
		{"db.password = \\", "    Wq9!rT4#kLm2Zx7"},
		{"curl https://x \\", "  --user 'a':'{Zt8qLm2Vr9x}'"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, prev, text string) {
		if s, e, _, ok := bareValue(text); ok && (s < 0 || e > len(text) || e-s < 8) {
			t.Fatalf("bareValue(%q) = %d, %d", text, s, e)
		}
		if name, ok := valueKey(prev, text); ok {
			if name == "" || !strings.Contains(prev, name) || strings.ContainsFunc(name, func(r rune) bool { return r >= 0x80 || !identByte(byte(r)) && r != ':' }) {
				t.Fatalf("valueKey(%q) = %q", prev, name)
			}
		}
		last := -1
		for _, sp := range curlUsers(text) {
			if sp[0] <= last || sp[0] > sp[1] || sp[1] > len(text) {
				t.Fatalf("curlUsers(%q): span %v after %d", text, sp, last)
			}
			last = sp[1]
		}
		for _, s := range ScanSecrets("a.yaml", prev+"\n"+text) {
			if s.Line < 1 || s.Line > 2+strings.Count(prev+text, "\n") {
				t.Fatalf("%q: line %d", prev+"\n"+text, s.Line)
			}
		}
	})
}

// FuzzKubeSecrets: the Secret data finder reports each line at most once,
// in line order, and only lines of the text.
func FuzzKubeSecrets(f *testing.F) {
	f.Add("kind: Secret\ndata:\n\textra: UnoGIWtXcTJMbTl4")
	f.Add("data:\n  a: \"UnoGIWtXcTJMbTl4\"\n  b: UnoGIWtXcTJMbTl4\nkind: 'secret'\n---\ndata:\n  c: UnoGIWtXcTJMbTl4")
	f.Fuzz(func(t *testing.T, text string) {
		n := strings.Count(text, "\n") + 1
		last := 0
		for _, s := range ScanSecrets("k8s/a.yaml", text) {
			if s.Line < last || s.Line > n {
				t.Fatalf("%q: line %d after %d of %d", text, s.Line, last, n)
			}
			last = s.Line
		}
	})
}
