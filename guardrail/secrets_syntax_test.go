package guardrail

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// argPairRegexp is what argPairs matches by hand, for names that are
// credentials.
var argPairRegexp = regexp.MustCompile(`["']([A-Za-z][\w.-]*)["']\s*,\s*(?:[\w.:-]+\(\s*)?["']([^"'\s]{8,})["']`)

// argPairsDiffer returns how argPairs' spans differ from the regexp's
// matches whose name is a credential's; "" when they do not. The regexp
// finds matches left to right without overlap, argPairs at every name, so
// argPairs' spans must hold the regexp's.
func argPairsDiffer(text string) string {
	got := argPairs(text)
	for _, m := range argPairRegexp.FindAllStringSubmatchIndex(text, -1) {
		if text[m[0]] != text[m[3]] || text[m[4]-1] != text[m[5]] || !credentialName(text[m[2]:m[3]]) {
			continue // quotes that do not pair, or not a credential
		}
		if !slices.Contains(got, [2]int{m[4], m[5]}) {
			return fmt.Sprintf("argPairs = %v, the regexp found %v", got, m)
		}
	}
	return ""
}

func TestArgPairs(t *testing.T) {
	for _, c := range []struct {
		text string
		want [][2]int
	}{
		{`req.Header.Set("X-Api-Key", "0123456789abcdefXYZ")`, [][2]int{{29, 48}}},
		{`os.Setenv('GITHUB_TOKEN', 'abcd1234efgh')`, [][2]int{{27, 39}}},
		{`h.insert("x-api-key", HeaderValue::from_static("abcd1234efgh"));`, [][2]int{{48, 60}}},
		{`fmt.Errorf("save %s: %w", key, err)`, nil},
		{`log.Info("token", "short")`, nil},
		{`m.Put("password", "has blank")`, nil},
	} {
		if got := argPairs(c.text); !slices.Equal(got, c.want) {
			t.Errorf("argPairs(%q) = %v, want %v", c.text, got, c.want)
		}
		if d := argPairsDiffer(c.text); d != "" {
			t.Errorf("%q: %s", c.text, d)
		}
	}
}

func FuzzArgPairs(f *testing.F) {
	for _, s := range []string{`a("token", "abcdefgh1")`, `x('api_key' , f('12345678'))`, `"", ""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, sp := range argPairs(text) {
			if sp[0] < 1 || sp[1] > len(text) || sp[1]-sp[0] < 8 {
				t.Fatalf("argPairs(%q): span %v", text, sp)
			}
		}
		if d := argPairsDiffer(text); d != "" {
			t.Fatalf("%q: %s", text, d)
		}
	})
}

func TestConcatenated(t *testing.T) {
	for _, c := range []struct {
		text, next, want string
	}{
		{`const t = "ghp_abcdefgh" + "ijklmnop12345678";`, "", "ghp_abcdefghijklmnop12345678"},
		{`KEY = ("dop_v1_0123456789"`, `       "abcdef0123456789")`, "dop_v1_0123456789abcdef0123456789"},
		{`T = ''.join(['npm_abcdefgh', 'ijklmnop1234'])`, "", "npm_abcdefghijklmnop1234"},
		{`url := "https://api.example.com/v1/users?page=" + strconv.Itoa(page)`, "", ""},
		{`s := "a" + "b"`, "", ""}, // shorter than a token
		{`x := "abcdefghijkl" + y + "mnopqrstuvwx"`, "", ""},
	} {
		got, _, ok := concatenated(c.text, c.next)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("concatenated(%q, %q) = %q, %t; want %q", c.text, c.next, got, ok, c.want)
		}
	}
}

// FuzzConcatenated checks that what concatenated joins is the literals'
// bytes, in order, and where it says the first starts is a quote.
func FuzzConcatenated(f *testing.F) {
	f.Add(`a = "0123456789" + '0123456789'`, `"x"`)
	f.Add(`("abc"`, `"defghijklmnopqrs")`)
	f.Fuzz(func(t *testing.T, text, next string) {
		j, s, ok := concatenated(text, next)
		if !ok {
			return
		}
		if len(j) < 16 || s < 0 || s >= len(text) || !strings.ContainsRune("\"'`", rune(text[s])) {
			t.Fatalf("concatenated(%q, %q) = %q, %d", text, next, j, s)
		}
		if len(j) > len(text)+len(next) {
			t.Fatalf("concatenated(%q, %q) = %q: longer than its input", text, next, j)
		}
	})
}

// base64ValueRegexp is what base64Value matches by hand.
var base64ValueRegexp = regexp.MustCompile(`[:= \t"']([A-Za-z0-9+/]*={0,2})["']?[ \t\n\f\r,]*$`)

func base64ValueDiffers(text string) string {
	s, e, ok := base64Value(text)
	m := base64ValueRegexp.FindStringSubmatchIndex(text)
	want := m != nil && m[3]-m[2] >= 16 && (m[3]-m[2])%4 == 0
	if ok != want || ok && (s != m[2] || e != m[3]) {
		return fmt.Sprintf("base64Value = %d, %d, %t; the regexp: %v", s, e, ok, m)
	}
	return ""
}

func TestBase64Value(t *testing.T) {
	for _, text := range []string{
		"  gh: Z2hwX1ZVcGJpN3hiVExhUFJPenhQMHNwd1dUNjJLV2FYY1BxRGFpZA==",
		`  "auth": "YWJjZGVmZ2hpamtsbW5vcA==",`,
		"client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=",
		"	if err := s.store.Save(ctx, key, value); err != nil {",
		"x = abcdefghijklmno", "x = abcdefghijklmnop", "abcdefghijklmnop", "x=" + strings.Repeat("=", 20),
	} {
		if d := base64ValueDiffers(text); d != "" {
			t.Errorf("%q: %s", text, d)
		}
	}
}

func FuzzBase64Value(f *testing.F) {
	f.Add("  data: YWJjZGVmZ2hpamtsbW5vcA==")
	f.Add(`"k": 'abcdefghijklmnop'`)
	f.Fuzz(func(t *testing.T, text string) {
		if d := base64ValueDiffers(text); d != "" {
			t.Fatalf("%q: %s", text, d)
		}
	})
}

// keyNameOf is keyName by splitWords, the way credentialName's long
// names are judged.
func keyNameOf(name string) bool {
	words := splitWords(name)
	n := len(words)
	if n == 0 || words[n-1] != "key" && words[n-1] != "pat" {
		return false
	}
	if !strings.EqualFold(name[len(name)-3:], words[n-1]) {
		return false // a separator after the word
	}
	return n == 1 || words[n-1] == "pat" || !slices.Contains(notSecretKey, words[n-2])
}

func TestKeyName(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"key", true}, {"KEY", true}, {"apiKey", true}, {"config.key", true}, {"aKey", true},
		{"PublicKey", false}, {"public_key", false}, {"PUB_KEY", false}, {"cacheKey", false}, {"HOST-KEY", false},
		{"monkey", false}, {"GH_PAT", true}, {"pat", true}, {"compat", false}, {"azureDevopsPat", true},
	} {
		if got := keyName(c.name); got != c.want {
			t.Errorf("keyName(%q) = %t, want %t", c.name, got, c.want)
		}
		if got, want := keyName(c.name), keyNameOf(c.name); got != want {
			t.Errorf("keyName(%q) = %t, by words %t", c.name, got, want)
		}
	}
}

func FuzzKeyName(f *testing.F) {
	for _, s := range []string{"apiKey", "public_key", "GH_PAT", "x.key"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for i := 0; i < len(name); i++ {
			if !identByte(name[i]) {
				return // assignments' names are identifier bytes
			}
		}
		if got, want := keyName(name), keyNameOf(name); got != want {
			t.Fatalf("keyName(%q) = %t, by words %t", name, got, want)
		}
	})
}
