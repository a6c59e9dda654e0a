package guardrail

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

var (
	// typeThenAssign skips a type between a name and "=" in code:
	// "password: str = ", "password string = ".
	typeThenAssign = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?::\s*)?[A-Za-z_*&\[\]][\w\[\].*&'|, ]*?\s*=[^=]`)
	})
)

// reference reports whether an unquoted value names something else:
// var.x, local.db.password, settings.SECRET. It is
// ^[A-Za-z_][\w\-]*(?:\.[A-Za-z_][\w\-]*)+$ by hand, as are envName and
// yamlAlias: they run on many values, and compiling the regexps cost a
// process that judges one edit more than running them (TestValueShapes
// and FuzzValueShapes hold them equal to the regexps).
func reference(v string) bool {
	parts := 0
	for part := range strings.SplitSeq(v, ".") {
		if part == "" || !(letter(part[0]) || part[0] == '_') {
			return false
		}
		for i := 1; i < len(part); i++ {
			if !wordByte(part[i]) && part[i] != '-' {
				return false
			}
		}
		parts++
	}
	return parts >= 2
}

// envName reports whether a value is an environment variable's name:
// ^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$.
func envName(v string) bool {
	if v == "" || v[0] < 'A' || v[0] > 'Z' || v[len(v)-1] == '_' || !strings.Contains(v, "_") || strings.Contains(v, "__") {
		return false
	}
	for i := 1; i < len(v); i++ {
		if c := v[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// referencePrefixes start values that point at a secret store.
var referencePrefixes = []string{"vault:", "op://", "arn:", "ref+", "sm://", "projects/", "enc[", "file:", "env:", "secret/"}

// assignments finds credentials assigned literally: a name whose last
// word is a credential word, an assignment operator (=, :=, :, =>), and a
// literal value. In code (code set) only quoted values count. It judges
// only the names that hold one of the places in ends, ascending (where the
// detector's keywords end), or every name when ends is nil: every name it
// can take holds such a keyword, so the two find the same, and most names
// on a line hold none.
func assignments(text string, code bool, ends []int) []found {
	var out []found
	from := 0 // where the next name may start: past the last name or value judged
	judge := func(start, i int) {
		from = i
		name := text[start:i]
		// A held name (token_2, secretString) needs an operator after it,
		// which most names in code lack: it is asked of few.
		strong := credentialName(name) || heldEnd(name) && operatorNext(text, i) && heldCredentialName(name)
		if !strong && (!keyName(name) || !operatorNext(text, i)) || !assignment(text, start, i) {
			return
		}
		flag := strings.HasPrefix(name, "--")
		vs, ve, ok := assignedValue(text, i, code, flag)
		if ok {
			if e := queryValue(text, start, vs, ve); e < ve {
				ve, ok = e, literal(text[vs:e])
			}
		}
		if !ok || !strong && !strongKey(text[vs:ve]) || signingName(name) && !generatedSecret(text[vs:ve]) || ownName(name, text[vs:ve]) {
			return
		}
		if start > 0 && text[start-1] == '$' && skipSpace(text, i) < len(text) && text[skipSpace(text, i)] == ':' {
			return // "$PWD:/data": a shell's expansion before a colon, not a key
		}
		out = append(out, found{Secret: Secret{Masked: mask(text[vs:ve])}, start: vs, end: ve})
		from = ve
	}
	if ends == nil {
		for i := 0; i < len(text); {
			if !identByte(text[i]) {
				i++
				continue
			}
			start := i
			for i < len(text) && identByte(text[i]) {
				i++
			}
			judge(start, i)
			i = max(i, from)
		}
		return out
	}
	for _, e := range ends {
		// The name around the keyword's last byte, as the walk above
		// would find it; none if it starts before from.
		start, i := e-1, e
		for start > 0 && identByte(text[start-1]) {
			start--
		}
		if start < from {
			continue
		}
		for i < len(text) && identByte(text[i]) {
			i++
		}
		judge(start, i)
	}
	return out
}

func identByte(c byte) bool { return identBytes[c] }

// identBytes are the bytes of a name: one lookup per byte of a line.
var identBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return t
}()

// credentialName reports whether the name's last word (or last two) names
// a credential.
func credentialName(name string) bool {
	if !credentialSuffix(name) {
		return false // the common case, without allocating
	}
	var buf [64]byte
	if len(name) > len(buf) {
		return credentialWordsOf(splitWords(name))
	}
	// The last three words, lowercased in buf, without allocating: the
	// switches on string(bytes) do not copy.
	lower := buf[:len(name)]
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	var spans [3][2]int // the last words, last first
	n := 0
	end := len(name)
	for i := len(name) - 1; i >= 0 && n < 3; i-- {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			if end > i+1 {
				spans[n] = [2]int{i + 1, end}
				n++
			}
			end = i
		case c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			spans[n] = [2]int{i, end}
			n++
			end = i
		case i == 0 && end > 0:
			spans[n] = [2]int{0, end}
			n++
		}
	}
	if n == 0 {
		return false
	}
	word := func(k int) []byte { return lower[spans[k][0]:spans[k][1]] }
	last := word(0)
	if n >= 2 && notCredentialWord(word(1)) {
		return false
	}
	var pair [64]byte
	if n >= 3 {
		p := append(append(append(pair[:0], word(2)...), word(1)...), last...)
		if string(p) == "secretkeybase" || string(p) == "motdepasse" {
			return true // Rails; French's mot_de_passe
		}
	}
	if n == 1 && gluedBytes(last) || len(last) >= 7 && acronymGlued(name) {
		return true // identitytoken, refreshtoken: words glued in lower case; ShopAPISecret
	}
	if n == 1 && upperName(name) && gluedUpper(last) {
		return true
	}
	if credentialWord(last) || gluedOpen(last) {
		return true
	}
	if n >= 2 {
		p := append(append(pair[:0], word(1)...), last...)
		// DEFAULT_CLIENTSECRET, process.env.ACRPWD: the last word glued.
		return credentialPair(p) || upperName(name[strings.LastIndexByte(name, '.')+1:]) && gluedUpper(last)
	}
	return false
}

// gluedUpper reports whether w, the last word of an environment
// variable's name lowercased, is a word glued to a credential word
// (PGPASSWORD, REDISPASSWORD, ACRPWD, DBPASS), but not bypass or compass.
func gluedUpper(w []byte) bool {
	for _, s := range []string{"password", "passwd", "secret", "token", "pwd", "pass"} {
		if strings.HasSuffix(string(w), s) {
			return !strings.HasSuffix(string(w), "bypass") && !strings.HasSuffix(string(w), "compass")
		}
	}
	return false
}

// credentialWord reports whether w is the last word of a name that holds
// a credential (password, dbPassword, DB_PASS, client_secret,
// GITHUB_TOKEN, ...). It, credentialPair and notCredentialWord are
// switches rather than maps: they compile to a few comparisons of length
// and bytes, and credentialName asks them of many names in a diff.
func credentialWord(w []byte) bool {
	switch string(w) {
	case "password", "passwd", "pass", "pwd", "passphrase", "secret", "token", "apikey",
		"credential", "credentials", "creds", "skey", // Duo's secret key
		"requirepass", "masterauth", // Redis
		"pw", "bindpw", "rootpw", "authtok", // ldap_bind_pw, nslcd, slapd, sssd
		"hmac", "bearer": // a key to sign with, a token to send
		return true
	}
	return slices.Contains(foreignPasswordWords, string(w))
}

// credentialPair reports whether w is the last two words of such a name
// (api_key, apiKey, SECRET_KEY, ...), joined.
func credentialPair(w []byte) bool {
	switch string(w) {
	case "apikey", "accesskey", "secretkey", "privatekey", "authkey", "signingkey",
		"encryptionkey", "masterkey", "licensekey",
		// Keys a service names by their use: Datadog's app (application)
		// key, (Azure) OpenAI's key, PagerDuty's integration and service
		// keys, FCM's server key, Segment's write key, LaunchDarkly's SDK
		// key; Yarn's npmAuthIdent (user:password).
		"appkey", "applicationkey", "openaikey", "integrationkey", "servicekey", "serverkey", "writekey", "sdkkey", "adminkey", "authident", "hmackey",
		// Azure's storage account keys and Functions keys.
		"accountkey", "functionkey":
		return true
	}
	return false
}

// notCredentialWord reports whether w, a word before "token" and the
// like, makes the name something else: a page token is a cursor. A public
// token is published (Plaid's public_token is exchanged for the secret
// one); a CSRF token is sent to every browser.
func notCredentialWord(w []byte) bool {
	switch string(w) {
	case "page", "next", "continuation", "cursor", "sync", "pagination", "public", "publishable", "csrf", "xsrf",
		// An existing secret is named by its value (a Helm chart's
		// existingSecret: db-creds); a verb before it names a setting or a
		// method (update_password: on_create).
		"existing", "update", "reset", "change", "forgot",
		// An error's code or message about one: ERRCODE_INVALID_PASSWORD.
		"invalid", "wrong", "incorrect", "expired",
		// A parser's token: unexpected token: ")".
		"unexpected", "unrecognized", "unknown":
		return true
	}
	return false
}

// credentialWordsOf is credentialName's judgement of a long name's words.
func credentialWordsOf(words []string) bool {
	n := len(words)
	if n == 0 || n >= 2 && notCredentialWord([]byte(words[n-2])) {
		return false
	}
	last := words[n-1]
	return credentialWord([]byte(last)) || n == 1 && gluedCredential(last) || gluedOpen([]byte(last)) || n >= 2 && credentialPair([]byte(words[n-2]+last)) ||
		n >= 3 && words[n-3]+words[n-2]+last == "secretkeybase"
}

// holderWords end names that hold a credential of the word before them
// as a value of some type: secretString, password_value, tokenStr.
var holderWords = []string{"string", "str", "value", "val"}

// heldEnd reports whether name ends as heldCredentialName wants, by its
// last byte: a digit, or the end of a holder word.
func heldEnd(name string) bool {
	if name == "" {
		return false
	}
	c := name[len(name)-1]
	if c >= '0' && c <= '9' {
		return true
	}
	switch c | 0x20 {
	case 'g', 'r', 'e', 'l':
		return true
	}
	return false
}

// heldCredentialName reports whether name is a credential's name followed
// by a number (token_2, bot_token4) or a holder word (mySecretString).
func heldCredentialName(name string) bool {
	n := len(name)
	if n < 4 {
		return false
	}
	if c := name[n-1]; c >= '0' && c <= '9' {
		e := n
		for e > 0 && name[e-1] >= '0' && name[e-1] <= '9' {
			e--
		}
		for e > 0 && (name[e-1] == '_' || name[e-1] == '-' || name[e-1] == '.') {
			e--
		}
		return e > 0 && credentialName(name[:e])
	}
	switch name[n-1] | 0x20 {
	case 'g', 'r', 'e', 'l':
	default:
		return false
	}
	for _, w := range holderWords {
		k := n - len(w)
		if k < 3 || !strings.EqualFold(name[k:], w) {
			continue
		}
		switch {
		case name[k-1] == '_' || name[k-1] == '-' || name[k-1] == '.':
			e := k
			for e > 0 && (name[e-1] == '_' || name[e-1] == '-' || name[e-1] == '.') {
				e--
			}
			return e > 0 && credentialName(name[:e])
		case name[k] >= 'A' && name[k] <= 'Z' && name[k-1] >= 'a' && name[k-1] <= 'z':
			return credentialName(name[:k])
		}
	}
	return false
}

// credentialSuffixes end every name credentialName accepts.
var credentialSuffixes = []string{"password", "passwd", "pass", "pwd", "passphrase", "secret", "token", "key",
	"credential", "credentials", "creds", "base", "auth", "pw", "authtok", "ident", "hmac", "bearer",
	"wort", "sena", "senha", "parol", "passe", "woord"} // foreignPasswordWords' ends

// upperName reports whether name is in capitals, as environment variables
// are named.
func upperName(name string) bool {
	hasLetter := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' {
			return false
		}
		hasLetter = hasLetter || c >= 'A' && c <= 'Z'
	}
	return hasLetter
}

// credentialSuffix reports whether name ends in one of credentialSuffixes,
// ignoring ASCII case.
func credentialSuffix(name string) bool {
	if len(name) < 3 {
		return false
	}
	c := name[len(name)-1] | 0x20
	if c < 'a' || c > 'z' {
		return false
	}
	for _, s := range suffixesByLast[c-'a'] { // none for most letters
		if hasSuffixFold(name, s) {
			return true
		}
	}
	return false
}

// hasSuffixFold reports whether name ends in s, a lowercase ASCII word, in
// any case. From the end, so most names differ at the first byte it
// reads; by bytes, which for names of ASCII bytes is strings.EqualFold.
func hasSuffixFold(name, s string) bool {
	if len(name) < len(s) {
		return false
	}
	name = name[len(name)-len(s):]
	for i := len(s) - 1; i >= 0; i-- {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// suffixesByLast are credentialSuffixes by their last letter.
var suffixesByLast = func() (idx [26][]string) {
	for _, s := range credentialSuffixes {
		c := s[len(s)-1] - 'a'
		idx[c] = append(idx[c], s)
	}
	return idx
}()

// splitWords splits an identifier at '_', '-', '.' and lower-to-upper case
// changes, lowercasing the words: "dbPassword" -> [db password].
func splitWords(name string) []string {
	var words []string
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			flush(i)
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z':
			flush(i)
			start = i
		}
	}
	flush(len(name))
	return words
}

// assignedValue finds the literal value assigned after a name ending at i:
// its span, and whether there is one that counts. A flag (--password) may
// take its value as the next word.
func assignedValue(text string, i int, code, flag bool) (vs, ve int, ok bool) {
	quotedKey := i < len(text) && (text[i] == '"' || text[i] == '\'')
	if quotedKey {
		i++ // the closing quote of a quoted key: "password": ...
		if i < len(text) && (text[i] == ']' || text[i] == '}') {
			i++ // a subscript: config['SECRET_KEY'] = ..., Perl's $ENV{'TOKEN'}
		}
	} else if i < len(text) && text[i] == '}' && bareSubscript(text, i) {
		i++ // Perl's $ENV{TOKEN} = ...
	}
	i = skipSpace(text, i)
	typed := false
	switch {
	case strings.HasPrefix(text[i:], ":="), strings.HasPrefix(text[i:], "=>"):
		i += 2
	case compoundOp(text[i:]) > 0:
		i += compoundOp(text[i:])
	case strings.HasPrefix(text[i:], "::"), strings.HasPrefix(text[i:], "=="), matchOp(text, i):
		return 0, 0, false
	case i < len(text) && (text[i] == '=' || text[i] == ':'):
		i++
	case flag && i > 0 && text[i-1] == ' ':
	case flag && quotedKey && i < len(text) && text[i] == ',':
		i++ // ["--api-key", "..."]: a flag and its value as a list's items
	case !quotedKey:
		// A typed declaration: "password string = ", "var token string =
		// ", in code, or quoted in a snippet of code elsewhere.
		typed = !code
		if strings.IndexByte(text[i:], '=') < 0 {
			return 0, 0, false
		}
		m := typeThenAssign().FindStringIndex(text[i:])
		if m == nil {
			return 0, 0, false
		}
		i += m[1] - 1
		if typed && !reBlank(text[i-2]) {
			return 0, 0, false // <clientSecret env="prod">: an attribute
		}
	default:
		return 0, 0, false
	}
	i = skipSpace(text, i)
	i += stringPrefix(text[i:])
	if code && i < len(text) && !typed && bareCodeValue(text[:i], text[i:]) {
		return i, len(strings.TrimRight(text, " \t\r")), true // a configuration inside a multi-line string
	}
	if code && i < len(text) && text[i] != '"' && text[i] != '\'' && text[i] != '`' {
		// "password: str = ..." in Python: a type annotation first.
		if strings.IndexByte(text[i:], '=') < 0 {
			return 0, 0, false
		}
		m := typeThenAssign().FindStringIndex(text[i:])
		if m == nil {
			return 0, 0, false
		}
		i = skipSpace(text, i+m[1]-1)
	}
	if i >= len(text) {
		return 0, 0, false
	}
	if q := text[i]; q == '"' || q == '\'' || q == '`' {
		vs = i + 1
		ve = closing(text, vs, q)
		if ve < len(text) {
			// "Bearer " + token, "%s" % x: a part, not the value.
			if rest := strings.TrimLeft(text[ve+1:], " \t"); rest != "" && strings.ContainsRune("+%.", rune(rest[0])) && !convertingCall(rest) {
				return 0, 0, false
			}
		}
		v := text[vs:ve]
		if strings.ContainsAny(v, " \t") || !literal(v) {
			return 0, 0, false
		}
		return vs, ve, true
	}
	if code || typed {
		return 0, 0, false
	}
	vs = i
	for i < len(text) && !strings.ContainsRune(" \t,;", rune(text[i])) {
		i++
	}
	ve = i
	if colonThenWords(text, vs, ve) {
		return 0, 0, false // token: implement the accessors: prose
	}
	for ve > vs && strings.ContainsRune("})]\"'`>", rune(text[ve-1])) {
		ve-- // the end of what holds the value: f("k=VALUE"), {k: VALUE}, <x a="k=VALUE">
	}
	v := text[vs:ve]
	if strings.ContainsAny(v, "()") || reference(v) && !generated(v) || strings.HasPrefix(v, "os.environ/") || !literal(v) {
		// os.environ/NAME: LiteLLM's reference to an environment variable.
		return 0, 0, false
	}
	return vs, ve, true
}

// compoundOp returns the length of the assignment operator s starts with
// when it is one of the compound or conditional ones that set a name as
// '=' does (PHP's .=, Make's ?=, ::= and :::=, +=, Ruby's ||=, ??=), or 0.
func compoundOp(s string) int {
	if len(s) < 2 {
		return 0
	}
	switch s[0] {
	case '.', '?', '+':
		if s[1] == '=' {
			return 2
		}
	case '|':
		if strings.HasPrefix(s, "||=") {
			return 3
		}
	case ':':
		if strings.HasPrefix(s, "::=") {
			return 3
		}
		if strings.HasPrefix(s, ":::=") {
			return 4
		}
	}
	if strings.HasPrefix(s, "??=") {
		return 3
	}
	return 0
}

// closing returns the index of the quote q that ends a string starting at
// i, or len(text) when it runs to the end of the line.
func closing(text string, i int, q byte) int {
	for ; i < len(text); i++ {
		switch text[i] {
		case '\\':
			if q != '`' {
				i++
			}
		case q:
			return i
		}
	}
	return len(text)
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

// literal reports whether v, an assigned value, is a credential rather than
// a placeholder, a reference or a setting.
func literal(v string) bool {
	if n := utf8.RuneCountInString(v); n < 4 || isPlaceholder(v) || envName(v) || textLabel(v, n) {
		return false
	}
	lv := strings.ToLower(v)
	switch lv {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "|", ">", "|-", ">-", "read", "write":
		return false
	}
	if strings.Trim(v, "0123456789") == "" {
		return false // a count, a port or an ID
	}
	for _, p := range referencePrefixes {
		if strings.HasPrefix(lv, p) {
			return false
		}
	}
	if wordy(v) && strings.ContainsAny(v, "-_.") && (credentialName(v) || keyName(v)) {
		return false // the name of a key elsewhere: secretKey: api-key
	}
	return !publishable(lv) && !filePath(v) && !ciphertext(v) && !notSecretShape(v) && !notCredentialValue(v) && !schemeHash(lv) && !codeValue(v) && decodedLiteral(v)
}
