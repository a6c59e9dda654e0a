package guardrail

import (
	"encoding/base64"
	"slices"
	"strings"
)

// The readings of this file keep the assignment rule off what real code
// gives a credential's name that is no credential. They were found by
// scanning every file of a Go module cache, Go's own sources and the agent
// CLIs' npm packages (about 30,000 files) and reading what was flagged
// outside tests: enum constants and configuration keys named for what they
// key, versions, escape sequences, options, prose after a colon, shell
// expansions, concatenations and URLs without credentials.

// notCredentialValue reports whether v, a value given a credential's name,
// is by its shape something else.
func notCredentialValue(v string) bool {
	switch {
	case v == "":
		return false
	case versionRange(v), escapeText(v), plainURL(v), rootDir(v):
		return true
	case strings.HasPrefix(v, "--") && len(v) > 2 && letter(v[2]):
		return true // --label: the next option, not the value of the one before
	case v[0] == '+' && len(v) > 1 && wordy(strings.TrimRight(v[1:], ")];,")):
		return true // "PWD="+dir: a string joined with a variable
	case cmdlet(v):
		return true // $c.Credentials = New-Object ...: PowerShell's call
	case namesCredential(v):
		return true // "invalid_token", "server-invalid-token-1": a name or a label
	}
	switch strings.ToLower(v) {
	case "value", "str", "text", "nullptr", "bytes", "object", "any", "char", "varchar":
		return true // a type or the word for a value: --password value
	}
	return false
}

// namesCredential reports whether v is words naming a credential, joined
// by separators: its last word, or the last before a number, is one
// (invalid_token, x-amz-security-token, client-valid-token-1).
func namesCredential(v string) bool {
	words := valueWords(v)
	if len(words) == 2 && credentialWord([]byte(words[0])) && slices.Contains(holderWords, words[1]) {
		return true // tokenValue, secret_string
	}
	if !strings.ContainsAny(v, "-_.:") {
		return false
	}
	if len(words) >= 2 && strings.Trim(words[len(words)-1], "0123456789") == "" {
		words = words[:len(words)-1]
	}
	return len(words) >= 2 && credentialWord([]byte(words[len(words)-1]))
}

// versionRange reports whether v is a version or a range of them:
// ^1.0.0, ~2.3, >=1.2.3-beta.1, v1.4.0 (a dependency's, in a manifest).
func versionRange(v string) bool {
	v = strings.TrimLeft(v, "^~>=<v")
	dots := 0
	i := 0
	for ; i < len(v); i++ {
		c := v[i]
		if c == '.' && i > 0 && v[i-1] != '.' {
			dots++
			continue
		}
		if c < '0' || c > '9' {
			break
		}
	}
	if dots == 0 || i == 0 || v[i-1] == '.' {
		return false
	}
	if i == len(v) {
		return true
	}
	if v[i] != '-' && v[i] != '+' {
		return false
	}
	// A pre-release or build: short words and numbers.
	for _, part := range strings.FieldsFunc(v[i+1:], func(r rune) bool { return r == '.' || r == '-' }) {
		if len(part) > 12 || !wordy(part) && strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// escapeText reports whether v is text for a terminal or a character
// written as escapes: "\x1b[32mPASS", "\u3299\ufe0f".
func escapeText(v string) bool {
	for _, ansi := range []string{`\x1b[`, `\033[`, `\e[`, `\u001b[`, `\u001B[`, `\x1B[`} {
		if strings.Contains(v, ansi) {
			return true
		}
	}
	n := 0
	for i := 0; i < len(v); {
		if v[i] != '\\' || i+1 >= len(v) {
			return false
		}
		width := 0
		switch v[i+1] {
		case 'u':
			width = 4
		case 'x':
			width = 2
		case 'U':
			width = 8
		default:
			return false
		}
		if i+2+width > len(v) || !hexOnly(v[i+2:i+2+width]) {
			return false
		}
		i += 2 + width
		n++
	}
	return n > 0 && n <= 4
}

// plainURL reports whether v is a URL that holds no credential: no user
// information, and no part of its path or query a generated token.
func plainURL(v string) bool {
	i := strings.Index(v, "://")
	if i <= 0 || !letter(v[0]) {
		return false
	}
	for j := 1; j < i; j++ {
		if c := v[j]; !letter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '.' && c != '-' {
			return false
		}
	}
	rest := v[i+3:]
	host, path := rest, ""
	if k := strings.IndexAny(rest, "/?#"); k >= 0 {
		host, path = rest[:k], rest[k:]
	}
	if strings.Contains(host, "@") {
		return false
	}
	// A part of the path or query that mixes letters and digits, as a
	// webhook's does (/hooks/catch/bJdWL5uSLdrq), is a token.
	for _, part := range strings.FieldsFunc(path, func(r rune) bool { return strings.ContainsRune("/?&=#;", r) }) {
		if len(part) >= 10 && strings.ContainsAny(part, "0123456789") && strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }) >= 0 &&
			strings.Trim(part, "0123456789-_.") != "" && !versionRange(part) {
			return false
		}
	}
	return true
}

// rootDir reports whether v is a directory at the root, /etc, /data: a
// mount point or a path constant.
func rootDir(v string) bool {
	if len(v) < 3 || v[0] != '/' {
		return false
	}
	v = strings.TrimSuffix(v[1:], "/")
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' && i > 0 || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return v != ""
}

// cmdletVerbs are the verbs of PowerShell's cmdlets that compute a value.
var cmdletVerbs = []string{"New-", "Get-", "Read-", "Import-", "ConvertTo-", "ConvertFrom-", "Invoke-", "Join-", "Select-", "Resolve-", "Test-"}

// cmdlet reports whether v is a cmdlet's name, Verb-Noun.
func cmdlet(v string) bool {
	for _, verb := range cmdletVerbs {
		if rest, ok := strings.CutPrefix(v, verb); ok {
			return len(rest) > 1 && rest[0] >= 'A' && rest[0] <= 'Z' && wordy(rest)
		}
	}
	return false
}

// ownName reports whether v, given the name, is that name or a part of it
// written as a string: an enum's constant (CorsErrorInvalidAllowCredentials
// = "InvalidAllowCredentials"), the key of a setting a constant names
// (s3DisableExpressSessionAuthKey = "s3_disable_express_session_auth",
// oauth2ServiceAccountKey = "oauth2.google.serviceAccount"), a header's
// name (headerAmzSessionToken = "x-amz-s3session-token"), a prefix strings
// are built with (credential = "Credential="). Both are split into words;
// v must be words alone, and either the name's first or last words, or
// words of which at least half are the name's.
func ownName(name, v string) bool {
	vw := valueWords(v)
	if len(vw) == 0 {
		return false
	}
	nw := splitWords(name)
	if len(nw) == 0 {
		return false
	}
	n, w := strings.Join(nw, ""), strings.Join(vw, "")
	switch {
	case n == w:
		return true
	case len(nw) >= 2 && len(w) >= 4 && (wordsEnd(nw, w) >= 2 || wordsStart(nw, w) >= 2):
		return true // but not elastic for ELASTIC_PASSWORD: a password of one word
	case len(nw) == 1 && len(w) >= 8 && len(w) < len(n) && strings.HasSuffix(n, w):
		return true // "PGSSLPASSWORD": "sslpassword": a name in capitals and its tail
	case len(nw) >= 2 && len(n) >= 8 && strings.HasPrefix(w, n) && len(w)-len(n) <= 6:
		return true // encryptionKey = "encryptionKey1024"
	}
	if len(vw) < 2 {
		return false
	}
	shared := 0
	for _, x := range vw {
		for _, y := range nw {
			if len(x) >= 2 && (x == y || len(x) >= 4 && (strings.HasPrefix(y, x) || strings.HasPrefix(x, y) && len(y) >= 4)) {
				shared++
				break
			}
		}
	}
	return shared >= 2 && shared*2 >= len(vw)
}

// valueWords splits v into its words as splitWords does, also at ':', '/'
// and '=', or returns nil when a part of it is no word: a letter run that
// ends in at most three digits (oauth2, s3, ec2), or digits alone.
func valueWords(v string) []string {
	var words []string
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("_-.:/= ", r) }) {
		for _, w := range splitWords(part) {
			if !wordLike(w) {
				return nil
			}
			words = append(words, w)
		}
	}
	if len(words) > 12 {
		return nil
	}
	return words
}

// wordLike reports whether w is a word of a name: digits alone, or
// letters with at most one run of up to four digits in them or after them
// (oauth2, s3session, key1024).
func wordLike(w string) bool {
	if len(w) > 24 {
		return false
	}
	if strings.Trim(w, "0123456789") == "" {
		return true
	}
	runs := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !letter(c) && !(c >= '0' && c <= '9') {
			return false
		}
		if c >= '0' && c <= '9' && (i == 0 || !(w[i-1] >= '0' && w[i-1] <= '9')) {
			runs++
			if n := len(w[i:]) - len(strings.TrimLeft(w[i:], "0123456789")); n > 4 {
				return false
			}
		}
	}
	return runs <= 1
}

func lettersOnly(s string) bool { return allBytes(s, letter) }

// wordsEnd returns how many of the name's last words, joined, are w; 0
// if none are. wordsStart is the same of its first words.
func wordsEnd(nw []string, w string) int {
	s := ""
	for i := len(nw) - 1; i >= 0 && len(s) < len(w); i-- {
		s = nw[i] + s
		if s == w {
			return len(nw) - i
		}
	}
	return 0
}

func wordsStart(nw []string, w string) int {
	s := ""
	for i := 0; i < len(nw) && len(s) < len(w); i++ {
		s += nw[i]
		if s == w {
			return i + 1
		}
	}
	return 0
}

// colonThenWords reports whether the unquoted value text[vs:ve] follows a
// colon and is a word that more words follow: a sentence ("First warm up
// pass: load the bytes", "Invalid token: jwtsvid: expected audience"),
// not a setting. A value that is no plain word still counts.
func colonThenWords(text string, vs, ve int) bool {
	k := vs
	for k > 0 && (text[k-1] == ' ' || text[k-1] == '\t') {
		k--
	}
	if k == 0 || text[k-1] != ':' || k >= 2 && (text[k-2] == ':' || text[k-2] == '=') {
		return false
	}
	if !lettersOnly(strings.TrimRight(text[vs:ve], ":.")) {
		return false
	}
	j := skipSpace(text, ve)
	return j > ve && j < len(text) && letter(text[j])
}

// queryValue returns the end of a value text[vs:ve] assigned to the name
// that starts at start: where '&' or '#' ends it when the name is a URL's
// query parameter (?clientToken=__ClientToken__&deleteManagedMemory=true).
func queryValue(text string, start, vs, ve int) int {
	if start == 0 || text[start-1] != '?' && text[start-1] != '&' {
		return ve
	}
	if k := strings.IndexAny(text[vs:ve], "&#"); k >= 0 {
		return vs + k
	}
	return ve
}

// listItems reports whether v, a literal after a user's, is rather the
// next item of a list or table the two are in: a part of the user itself
// (a test table of an address and its parts: "Joe.Blow@example.com",
// "Joe.Blow"), or of the same kind:value shape (IAM members,
// "group:admins@example.com", "domain:example.com").
func listItems(user, v string) bool {
	if strings.Contains(user, v) {
		return true
	}
	kind := func(s string) bool {
		i := strings.IndexByte(s, ':')
		return i > 0 && lettersOnly(s[:i])
	}
	return kind(user) && kind(v)
}

// documentedBasic reports whether user and pw are the example of HTTP
// Basic authentication the RFCs and every client's documentation give,
// Aladdin and open sesame.
func documentedBasic(user, pw string) bool {
	return strings.EqualFold(user, "aladdin") && strings.EqualFold(strings.ReplaceAll(pw, " ", ""), "opensesame")
}

// documentedBasicToken reports whether tok, a Basic header's value or its
// base64, decodes to documentedBasic's example.
func documentedBasicToken(tok string) bool {
	tok = strings.TrimSpace(tok[strings.LastIndexAny(tok, " \t")+1:])
	dec, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		return false
	}
	user, pw, ok := strings.Cut(string(dec), ":")
	return ok && documentedBasic(user, pw)
}

// exampleURLUser reports whether the password pw of a URL, which starts
// at start in text, is given with a user that says it guards nothing:
// anonymous (FTP's convention, MDN's example), or the RFCs' Aladdin and
// open sesame.
func exampleURLUser(text string, start int, pw string) bool {
	at := strings.LastIndex(text[:start], "://")
	if at < 0 || start == 0 {
		return false
	}
	user := text[at+3 : start-1]
	return strings.EqualFold(user, "anonymous") || documentedBasic(user, pw)
}

// camelName reports whether a provider's token, after a short prefix
// (s., glc_), is a name in code, words in camel case
// (s.ReadUint16LengthPrefixed): three or more words of a capital and two
// or more small letters, maybe ending in digits, the first maybe small.
func camelName(tok string) bool {
	if i := strings.IndexAny(tok, "._-"); i >= 0 && i < 8 {
		tok = tok[i+1:]
	}
	words := 0
	for i := 0; i < len(tok); {
		j := i
		if tok[j] >= 'A' && tok[j] <= 'Z' {
			j++
		} else if words > 0 {
			return false
		}
		k := j
		for k < len(tok) && tok[k] >= 'a' && tok[k] <= 'z' {
			k++
		}
		if k-j < 2 {
			return false
		}
		for n := 0; k < len(tok) && tok[k] >= '0' && tok[k] <= '9' && n < 2; n++ {
			k++
		}
		words++
		i = k
	}
	return words >= 3
}
