package guardrail

import "strings"

// This file holds the secret detectors for credentials as whole files of
// configuration hold them, beyond an assignment on one line: the
// passwords command lines take (ldapsearch -w, redis-cli -a, htpasswd -b),
// a libpq connection string inside a literal, a literal a credential's
// setter or a conversion takes (WithToken("..."), []byte("...")), a user
// and a password given as two arguments, key and value fields of API
// tools' files (Postman, HAR), private keys as JWK or .NET XML, wallet
// keys (a hardhat accounts list, a Solana keypair, a mnemonic), SQL's
// unquoted IDENTIFIED BY, and Postfix's relay credentials; and the shapes
// of values that are not secrets though a credential's name holds them
// (password hashes, unsigned JWTs, name:path references). Each detector
// runs only on a line with one of its keywords, and checks bytes before
// any regexp.

func init() { detectors = append(detectors, fileDetectors...) }

// gluedPrefixes are words that, glued in lower case before token,
// password or secret, make one word of a credential's name: identitytoken
// (Docker's config.json), authtoken (ngrok), refreshtoken.
var gluedPrefixes = []string{"access", "refresh", "identity", "auth", "api", "bearer", "id", "session", "bot", "app",
	"client", "master", "root", "admin", "db", "user", "bind", "service", "deploy"}

// gluedCredential reports whether w, a name's one word in lower case, is
// a credential word glued to one of gluedPrefixes.
func gluedCredential(w string) bool {
	for _, suf := range []string{"token", "password", "secret"} {
		p, ok := strings.CutSuffix(w, suf)
		if !ok || p == "" {
			continue
		}
		for _, g := range gluedPrefixes {
			if p == g {
				return true
			}
		}
	}
	return false
}

// gluedBytes is gluedCredential of a word in a buffer, without making a
// string of it: credentialName asks it of every one-word name that ends
// like a credential's (key, token), many per line of code.
func gluedBytes(w []byte) bool {
	for _, suf := range []string{"token", "password", "secret"} {
		n := len(w) - len(suf)
		if n <= 0 || string(w[n:]) != suf {
			continue
		}
		for _, g := range gluedPrefixes {
			if string(w[:n]) == g {
				return true
			}
		}
	}
	return false
}

// acronymGlued reports whether name is an acronym in capitals glued to a
// capitalized credential word, which splitWords reads as one word:
// SSLPassword, DBPassword, JWTSecret, APIToken.
func acronymGlued(name string) bool {
	if name == "" || name[len(name)-1] != 'd' && name[len(name)-1] != 't' && name[len(name)-1] != 'n' {
		return false // the common case: no word of the list ends the name
	}
	for _, w := range []string{"Password", "Passwd", "Secret", "Token"} {
		n := len(name) - len(w)
		if n >= 2 && name[n:] == w && name[n-1] >= 'A' && name[n-1] <= 'Z' && name[n-2] >= 'A' && name[n-2] <= 'Z' {
			return true
		}
	}
	return false
}

// convertingCall reports whether rest, what follows a literal's closing
// quote, is a call that converts the literal to the type the name holds
// ("...".toCharArray(), "...".freeze, "...".to_string()), so the literal
// is the value, not a part of it.
func convertingCall(rest string) bool {
	for _, c := range []string{".freeze", ".toCharArray()", ".getBytes(", ".encode(", ".to_string()", ".to_owned()",
		".into()", ".as_bytes()", ".b;", ".b\n", ".ToCharArray()"} {
		if strings.HasPrefix(rest, c) {
			return true
		}
	}
	return rest == ".b"
}

// matchOp reports whether text at i is the match operator =~ (Perl,
// Ruby, bash's [[ ]]), which has a blank before or after it, rather than
// '=' assigning a value that starts with '~' (PGPASSWORD=~x...).
func matchOp(text string, i int) bool {
	if !strings.HasPrefix(text[i:], "=~") {
		return false
	}
	return i == 0 || reBlank(text[i-1]) || i+2 >= len(text) || reBlank(text[i+2]) || text[i+2] == '/'
}

// yamlTag reports whether v, a value starting with '!', is a YAML tag
// (!vault, !Ref, !!binary, !!python/name:x) rather than a password: the
// first word is '!'s and letters, and / : . between them.
func yamlTag(v string) bool {
	w, _, _ := strings.Cut(v, " ")
	w = strings.TrimLeft(w, "!")
	for i := 0; i < len(w); i++ {
		if c := w[i]; !letter(c) && c != '/' && c != ':' && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// angleSpan reports whether lv holds a <...> span of words, a placeholder
// (<your-token>, Bearer <token>, <from Key Vault>), or is a word and an
// angle bracket, what is left of one that a value was cut out of
// (password> of <user:password>); as opposed to a generated secret that
// holds '<' and '>' among its symbols.
func angleSpan(lv string) bool {
	if !strings.ContainsAny(lv, "<>") {
		return false
	}
	if wordy(strings.Trim(lv, "<> ")) {
		return true
	}
	for i := range places(lv, "<") {
		j := i + 1
		for j < len(lv) && (letter(lv[j]) || lv[j] >= '0' && lv[j] <= '9' || strings.IndexByte(" _-.:/%=,'()", lv[j]) >= 0) {
			j++
		}
		if j < len(lv) && lv[j] == '>' && j > i+1 && (letter(lv[i+1]) || lv[i+1] == '%') {
			return true
		}
	}
	return false
}

// pgpMessage reports whether v is base64 of an OpenPGP message encrypted
// to a key (a public-key encrypted session key packet first): Renovate's
// encrypted tokens, sops' PGP data keys.
func pgpMessage(v string) bool {
	for _, p := range []string{"wcFMA", "wcBMA", "wcDMA", "hQEMA", "hQIMA", "hQGMA", "hF4DA", "wV4DA"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// randomCase reports whether a part of a dotted value is random rather
// than a name: letters of both cases and digits, or case changing back
// and forth more than a camelCase name's (ajREqxbHfZS.Av59 is a
// password, settings.SECRET_KEY a reference).
func randomCase(part string) bool {
	var upper, lower, digit bool
	changes := 0
	for i := 0; i < len(part); i++ {
		c := part[i]
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
		if i > 0 && letter(c) && letter(part[i-1]) && (c >= 'a') != (part[i-1] >= 'a') {
			changes++
		}
	}
	return upper && lower && digit || changes >= 5
}

// base64Key reports whether v, the value of a name whose last word is
// key, is a generated key in standard base64: 32 or more characters with
// '+' or '/' among letters and digits, or padded with '='; not a path
// (whose '/'s part words) and not hex.
func base64Key(v string) bool {
	if len(v) < 32 || !strings.ContainsAny(v, "+/=") {
		return false
	}
	body := strings.TrimRight(v, "=")
	if len(v)-len(body) > 2 || strings.HasPrefix(v, "/") {
		return false
	}
	for i := 0; i < len(body); i++ {
		if !base64Byte(body[i]) {
			return false
		}
	}
	return tokenLike(strings.NewReplacer("+", "", "/", "").Replace(body))
}

// verifierPrefixes start password verifiers, in any case.
var verifierPrefixes = []string{"scram-sha-256$", "scram-sha-1$", "pbkdf2_sha256$", "pbkdf2_sha1$", "argon2",
	"{ssha}", "{sha}", "{crypt}", "{pbkdf2", "{ssha512}", "{bcrypt}"}

// notSecretShape reports whether v, though assigned to a credential's
// name, has the shape of something that is not one: a password hash
// (bcrypt and the crypt family start with '$' and are placeholders
// already; these are the others), or a reference to a credential by name
// and path (LoadCredential=name:/etc/...). An unsigned JWT (alg none)
// stays a secret, as gitleaks' own rule tests want it.
func notSecretShape(v string) bool {
	if v == azuriteKey {
		return true // the storage emulator's published key
	}
	for _, p := range verifierPrefixes {
		if len(v) > len(p) && strings.EqualFold(v[:len(p)], p) {
			return true
		}
	}
	switch {
	case len(v) == 35 && strings.EqualFold(v[:3], "md5") && hexOnly(v[3:]):
		return true // PostgreSQL's md5 verifier
	case len(v) == 41 && v[0] == '*' && hexOnly(v[1:]):
		return true // MySQL's native password hash
	case len(v) >= 94 && (strings.HasPrefix(v, "0x0200") || strings.HasPrefix(v, "0x0100")) && hexOnly(v[2:]):
		return true // SQL Server's password hash
	}
	if n := strings.TrimRight(v, "0123456789"); len(n) < len(v) && len(n) > 1 && (n[len(n)-1] == '-' || n[len(n)-1] == '_') {
		// A field's own name, numbered: SecretAccessKey-0 in a fixture.
		if n = n[:len(n)-1]; wordy(n) && (credentialName(n) || keyName(n)) {
			return true
		}
	}
	if i := strings.Index(v, ":/"); i > 0 && i+2 < len(v) && v[i+2] != '/' && wordy(v[:i]) {
		return filePath(v[i+1:])
	}
	return false
}

// fileDetectors run after the detectors of secrets_syntax.go. They are
// two, each a group of finders that ask cheap questions of the line
// first: every detector costs each line that holds a keyword a turn of
// judge's loop. The finders of code's calls and arguments and of tools'
// fields run within the assignment and pairs detectors
// (assignmentsAndCalls, findPairsAndFields), under their keywords.
var fileDetectors = []detector{
	{
		// Command lines and file syntaxes.
		keywords: append(commandKeywords(), "password=", "identified", ") values"),
		find: func(text, _ string, _ bool) []found {
			// Each finder only when its keyword is there, asked by byte
			// searches (SQL's words as people write them).
			var out []found
			if strings.Contains(text, " -") {
				out = withRule(findCommandPasswords(text), "password on a command line")
			}
			if strings.Contains(text, "password=") {
				out = append(out, withRule(findConninfo(text), "password in a connection string")...)
			}
			if hasAny(text, ") values", ") VALUES", ") Values") {
				out = append(out, withRule(findInsertValues(text), "literal credential in an SQL row")...)
			}
			if hasAny(text, "identified", "IDENTIFIED", "Identified") {
				out = append(out, withRule(findIdentifiedBy(text), "literal credential")...)
			}
			return out
		},
	},
	{
		// Private keys outside PEM, and wallets.
		keywords: []string{`"d"`, "<inverseq>", "accounts", "mnemonic", "_phrase", "seedphrase"},
		find: func(text, _ string, _ bool) []found {
			return append(findKeyParams(text), withRule(findMnemonic(text), "wallet mnemonic")...)
		},
	},
}

// assignmentsAndCalls is the assignment detector's finder (names as
// assignments takes them): the assignments, then a credential's literal
// given to its setter or to a conversion (WithToken("..."), key = []byte("...")) and a credential
// variable's default in an interpolation (${DB_PASSWORD:-...}). The
// latter share its keywords (a credential's name is in each): keywords of
// their own cost every line's keyword scan more than these searches cost
// the lines that have them.
func assignmentsAndCalls(text string, code bool, names []int) []found {
	out := assignments(text, code, names)
	if strings.Contains(text, "${") {
		out = append(out, withRule(findEnvDefaults(text), "literal credential as a variable's default")...)
	}
	if b := skipSpace(text, 0); b < len(text) && text[b] == '#' {
		out = append(out, findDefine(text[b:], b)...)
	}
	if !code && strings.IndexByte(text, '`') >= 0 {
		out = append(out, findCodeSpans(text)...)
	}
	if literalCall(text) {
		out = append(out, withRule(findCredentialCalls(text), "literal credential")...)
	}
	if hasAny(text, "env", "ENV") && hasAny(text, "||", "??", "unwrap_or", " or ") {
		out = append(out, withRule(findEnvFallbacks(text), "literal credential as a variable's default")...)
	}
	return append(out, moreNamed(text, code, names)...)
}

// findEnvFallbacks finds the literal a credential's environment variable
// falls back to: process.env.DB_PASSWORD || '...', ENV['API_TOKEN'] ||
// "...", env::var("DB_PASS").unwrap_or("..."), getenv("X") or "...",
// x ?? '...'.
func findEnvFallbacks(text string) []found {
	var out []found
	for _, op := range []string{"||", "??", ".unwrap_or(", " or "} {
		for i := 0; ; {
			j := strings.Index(text[i:], op)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(op)
			v := skipBlanks(text, i)
			if v >= len(text) || text[v] != '"' && text[v] != '\'' {
				continue
			}
			e := closing(text, v+1, text[v])
			if e >= len(text) || !envCredentialBefore(text[:at]) {
				continue
			}
			if val := text[v+1 : e]; !strings.ContainsAny(val, " \t") && !wordy(val) && literal(val) {
				out = append(out, found{Secret: Secret{Masked: mask(val)}, start: v + 1, end: e})
			}
		}
	}
	return out
}

// envCredentialBefore reports whether before, what precedes a fallback
// operator, ends with a read of an environment variable whose name is a
// credential's (process.env.DB_PASSWORD, ENV['API_TOKEN'],
// env::var("DB_PASS")).
func envCredentialBefore(before string) bool {
	t := strings.TrimRight(before, " \t")
	t = strings.TrimSuffix(t, ".")
	t = strings.TrimRight(t, ")]")
	t = strings.TrimRight(t, "\"'")
	e := len(t)
	s := e
	for s > 0 && identByte(t[s-1]) && t[s-1] != '.' {
		s--
	}
	if s == e || !credentialName(t[s:e]) {
		return false
	}
	p := strings.ToLower(t[:s])
	return strings.Contains(p, "env") || strings.Contains(p, "getenv")
}

// findPairsAndFields is the pairs detector's finder: a name and a value
// as two fields or arguments, then a user's then a password as two
// arguments, and the key and value fields of API tools' files, which
// share its keywords (a literal and a comma).
func findPairsAndFields(text, next string, code bool) []found {
	out := findPairs(text, next, code)
	if userArgs(text) {
		out = append(out, withRule(findUserPassArgs(text), "user and password as arguments")...)
	}
	if b := skipSpace(text, 0); b < len(text) && text[b] == '#' {
		out = append(out, findDefine(text[b:], b)...)
	}
	if !code && strings.IndexByte(text, '`') >= 0 {
		out = append(out, findCodeSpans(text)...)
	}
	if literalCall(text) {
		out = append(out, withRule(findAuthArgs(text), "user and password as arguments")...)
	}
	if strings.Contains(text, `"value"`) {
		out = append(out, withRule(findKeyValueFields(text), "literal credential")...)
	}
	return out
}

// codeShapes reports what the finders of code need of a line, by byte
// searches: a call given a literal, ("; a literal followed by a comma,
// and a user (an @, cn=, uid=, in lower or upper case); a "value" field.
func codeShapes(text string) (calls, args, fields bool) {
	return literalCall(text), userArgs(text), strings.Contains(text, `"value"`)
}

// literalCall reports whether a '(' of the line has a quote after it.
func literalCall(text string) bool {
	for i := range places(text, "(") {
		if i+1 < len(text) && (text[i+1] == '"' || text[i+1] == '\'') {
			return true
		}
	}
	return false
}

// userArgs reports whether a literal's closing quote, maybe a blank, and
// a comma are on the line, and a user's mark (an @, cn=, uid=).
func userArgs(text string) bool {
	for i := range places(text, ",") {
		k := i - 1
		if k > 0 && text[k] == ' ' {
			k--
		}
		if k >= 0 && (text[k] == '"' || text[k] == '\'') {
			return strings.IndexByte(text, '@') >= 0 || hasAny(text, "cn=", "uid=", "CN=", "UID=")
		}
	}
	return false
}

// hasAny reports whether text holds one of spellings: SQL's words as
// people write them (values, VALUES, Values), by byte searches.
func hasAny(text string, spellings ...string) bool {
	for _, sp := range spellings {
		if strings.Contains(text, sp) {
			return true
		}
	}
	return false
}

// withRule sets the rule of the assignment family and what on each of fs.
func withRule(fs []found, what string) []found {
	for i := range fs {
		fs[i].Rule, fs[i].What = RuleSecretAssignment, what
	}
	return fs
}

// commandFlag is a program and the flag it takes a password or token
// after: ldapsearch -w PW, redis-cli -a PW, mongosh --password PW. A
// positional flag (htpasswd's -b) says the password is the n-th argument
// that is not a flag.
type commandFlag struct {
	programs []string
	flags    []string
	nth      int
	// keyword, if set, stands for the programs in the keyword scan: what
	// their names share, or more than a name as short as az.
	keyword string
}

var commandFlags = []commandFlag{
	{programs: []string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare", "ldapmodrdn"}, flags: []string{"-w"}, keyword: "ldap"},
	{programs: []string{"redis-cli"}, flags: []string{"-a", "--pass"}, keyword: "is-cli"},
	{programs: []string{"sqlcmd"}, flags: []string{"-P"}},
	{programs: []string{"mongosh", "mongo", "mongodump", "mongorestore", "mongoexport", "mongoimport"}, flags: []string{"-p", "--password"}, keyword: "mongo"},
	{programs: []string{"codecov", "codecovcli"}, flags: []string{"-t", "--token"}, keyword: "codecov"},
	{programs: []string{"keytool"}, flags: []string{"-storepass", "-keypass", "-srcstorepass", "-deststorepass"}},
	{programs: []string{"wget"}, flags: []string{"--password", "--http-password", "--ftp-password"}},
	{programs: []string{"az"}, flags: []string{"-p", "--password"}, keyword: "az login"},
	{programs: []string{"ipmitool"}, flags: []string{"-P"}},
	{programs: []string{"x11vnc"}, flags: []string{"-passwd", "-viewpasswd", "-storepasswd"}},
	{programs: []string{"htpasswd"}, flags: []string{"-b", "-bc", "-cb", "-bB", "-Bb", "-bcB", "-Bbc", "-bn", "-nb", "-nbB", "-bBn"}, nth: 3},
}

// commandKeywords are the programs of commandFlags.
func commandKeywords() []string {
	var ks []string
	for _, c := range commandFlags {
		if c.keyword != "" {
			ks = append(ks, c.keyword)
			continue
		}
		for _, p := range c.programs {
			ks = append(ks, strings.ToLower(p))
		}
	}
	return ks
}

// shellWord is a word of a command line: its span, and its text without
// the quotes around it.
type shellWord struct {
	start, end int
	text       string
}

// shellWords splits a line into words at blanks, a quoted part (with
// blanks in it) staying one word; it reads no more than 64 words.
func shellWords(text string) []shellWord {
	var out []shellWord
	for i := 0; i < len(text) && len(out) < 64; {
		for i < len(text) && reBlank(text[i]) {
			i++
		}
		if i >= len(text) {
			break
		}
		s := i
		var b strings.Builder
		for i < len(text) && !reBlank(text[i]) {
			if q := text[i]; q == '"' || q == '\'' {
				e := strings.IndexByte(text[i+1:], q)
				if e < 0 {
					b.WriteString(text[i+1:])
					i = len(text)
					break
				}
				b.WriteString(text[i+1 : i+1+e])
				i += e + 2
				continue
			}
			b.WriteByte(text[i])
			i++
		}
		out = append(out, shellWord{start: s, end: i, text: b.String()})
	}
	return out
}

// findCommandPasswords finds the passwords of commandFlags' programs on a
// command line.
func findCommandPasswords(text string) []found {
	if !strings.Contains(text, " -") || !commandNamed(text) {
		return nil
	}
	var out []found
	words := shellWords(text)
	for k, w := range words {
		name := w.text[strings.LastIndexByte(w.text, '/')+1:]
		for _, c := range commandFlags {
			if !contains(c.programs, name) {
				continue
			}
			if v, ok := commandValue(words[k+1:], c); ok && literal(v.text) && !strings.ContainsAny(v.text, " \t") {
				out = append(out, found{Secret: Secret{Masked: mask(v.text)}, start: v.start, end: v.end})
			}
		}
	}
	return out
}

// commandNamed reports whether text holds the name of one of
// commandFlags' programs.
func commandNamed(text string) bool {
	for _, c := range commandFlags {
		if c.keyword != "" {
			if strings.Contains(text, c.keyword) {
				return true
			}
			continue
		}
		for _, p := range c.programs {
			if strings.Contains(text, p) {
				return true
			}
		}
	}
	return false
}

// commandValue returns the argument a program's words give its password
// flag, up to the end of the command (| ; &&).
func commandValue(args []shellWord, c commandFlag) (shellWord, bool) {
	positional, flagged := 0, false
	for i, a := range args {
		switch a.text {
		case "|", ";", "&&", "||", "&":
			return shellWord{}, false
		}
		if c.nth > 0 {
			if strings.HasPrefix(a.text, "-") {
				flagged = flagged || contains(c.flags, a.text)
				continue
			}
			if positional++; flagged && positional == c.nth {
				return a, true
			}
			continue
		}
		for _, f := range c.flags {
			if a.text == f && i+1 < len(args) {
				return args[i+1], true
			}
			if v, ok := strings.CutPrefix(a.text, f+"="); ok && strings.HasPrefix(f, "--") {
				return shellWord{start: a.end - len(v), end: a.end, text: v}, true
			}
		}
	}
	return shellWord{}, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// findConninfo finds the password of a libpq connection string (host=...
// user=... password=... dbname=...) written inside a literal or on a
// command line, its keys separated by blanks.
func findConninfo(text string) []found {
	if !strings.Contains(text, "password=") || !conninfoMay(text) {
		return nil
	}
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], "password=")
		if j < 0 {
			return out
		}
		s := i + j + len("password=")
		i = s
		if b := s - len("password=") - 1; b >= 0 && !reBlank(text[b]) && text[b] != '"' && text[b] != '\'' {
			continue
		}
		e := s
		for e < len(text) && !reBlank(text[e]) && text[e] != '"' && text[e] != '\'' && text[e] != ';' && text[e] != '`' {
			e++
		}
		if v := text[s:e]; literal(v) {
			out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: e})
		}
	}
}

// conninfoMay reports whether a line holds another key of a libpq
// connection string besides the password.
func conninfoMay(t string) bool {
	return strings.Contains(t, "dbname=") || strings.Contains(t, "host=") || strings.Contains(t, "user=")
}

// conversions are calls that turn a literal into the value a name holds:
// signingKey = []byte("..."), Buffer.from('...').
var conversions = []string{"[]byte", "byte", "bytes", "Buffer.from", "str", "String", "b64decode", "atob",
	"GetBytes", "getBytes", "encode", "SecretStr", "SecretString", "Secret::new", "Password", "to_vec",
	// Hashing a literal password in a seeder or fixture: the literal is it.
	"Hash::make", "bcrypt", "make_password", "generate_password_hash"}

// setterVerbs start the name of a call that sets a credential: setPassword,
// WithToken, use_api_key.
var setterVerbs = map[string]bool{"set": true, "with": true, "use": true, "put": true}

// findCredentialCalls finds a literal given to a call that sets a
// credential (client.WithToken("..."), stripe.setApiKey("..."),
// .password("...")) or that converts the literal a credential's name is
// assigned (signingKey = []byte("...")).
func findCredentialCalls(text string) []found {
	var out []found
	from := 0 // past the last call found
	for i := range places(text, "(") {
		if i < from || i+1 >= len(text) {
			continue
		}
		if q := text[i+1]; q == '"' || q == '\'' {
			if e, f, ok := credentialCall(text, i, q); ok {
				out = append(out, f)
				from = e + 1
			}
		}
	}
	return out
}

// credentialCall judges the call whose '(' is at i and whose one
// argument is a literal quoted by q: the literal found, and where it
// ends.
func credentialCall(text string, i int, q byte) (int, found, bool) {
	e := closing(text, i+2, q)
	if e >= len(text) || !strings.HasPrefix(strings.TrimLeft(text[e+1:], " \t"), ")") {
		return 0, found{}, false
	}
	c := i
	for c > 0 && (identByte(text[c-1]) || text[c-1] == '[' || text[c-1] == ']' || text[c-1] == ':') {
		c--
	}
	callee := text[c:i]
	seg := callee[max(strings.LastIndexAny(callee, ".:")+1, 0):]
	ok := false
	if credentialName(seg) {
		// A setter (setPassword, WithToken), or the credential's name
		// alone (.password("..."), ApiKey("...")); not rawToken(...).
		words := splitWords(seg)
		ok = setterVerbs[words[0]] || len(words) == 1 || len(words) == 2 && credentialPair([]byte(words[0]+words[1])) ||
			builderCall(text, c) ||
			contains(conversions, seg) && assignedToCredential(text[:c]) // password = make_password("...")
	} else if b := strings.TrimRight(text[:c], " \t"); b != "" && (b[len(b)-1] == '=' || b[len(b)-1] == ':' || strings.HasSuffix(b, "=>")) {
		ok = (contains(conversions, callee) || contains(conversions, seg)) && assignedToCredential(text[:c])
	}
	v := text[i+2 : e]
	if !ok || len(v) < 8 || wordy(v) || strings.ContainsAny(v, " \t") || !literal(v) {
		return e, found{}, false
	}
	return e, found{Secret: Secret{Masked: mask(v)}, start: i + 2, end: e}, true
}

// assignedToCredential reports whether text, what precedes a value on
// its line, ends with a credential's name and an assignment operator.
func assignedToCredential(text string) bool {
	t := strings.TrimRight(text, " \t")
	t = strings.TrimSuffix(t, ":=")
	t = strings.TrimSuffix(t, "=>")
	t = strings.TrimSuffix(t, "=")
	t = strings.TrimSuffix(t, ":")
	t = strings.TrimRight(t, " \t")
	if n := len(t); n > 1 && (t[n-1] == '\'' || t[n-1] == '"') {
		t = t[:n-1] // a quoted key: 'password' => Hash::make('...')
	}
	e := len(t)
	for e > 0 && identByte(t[e-1]) {
		e--
	}
	return e < len(t) && len(t) < len(strings.TrimRight(text, " \t")) && credentialName(t[e:])
}

// findUserPassArgs finds a password given as the argument after a user's:
// an email address or an LDAP DN, then a literal that is no word
// (SmtpClient(host, 587, "it@acme.io", "..."), ldap3.Connection(server,
// 'cn=svc,dc=acme,dc=io', '...')).
func findUserPassArgs(text string) []found {
	var out []found
	prevEnd, prevUser, prev := -1, false, ""
	for i := 0; i < len(text); i++ {
		q := text[i]
		if q != '"' && q != '\'' {
			continue
		}
		e := closing(text, i+1, q)
		if e >= len(text) {
			break
		}
		v := text[i+1 : e]
		if prevUser && prevEnd >= 0 && strings.Trim(text[prevEnd+1:i], " \t") == "," &&
			len(v) >= 8 && !wordy(v) && !strings.ContainsAny(v, " \t@") && !strings.Contains(v, "://") && literal(v) &&
			!listItems(prev, v) {
			out = append(out, found{Secret: Secret{Masked: mask(v)}, start: i + 1, end: e})
		}
		prevUser, prev = userLike(v), v
		prevEnd = e
		i = e
	}
	return out
}

// userLike reports whether v names a user: an email address or an LDAP
// DN (cn=..., uid=...).
func userLike(v string) bool {
	if strings.ContainsAny(v, " \t") {
		return false
	}
	lv := strings.ToLower(v)
	if strings.HasPrefix(lv, "cn=") || strings.HasPrefix(lv, "uid=") {
		return strings.Contains(lv, "dc=") || strings.Contains(lv, "ou=") || strings.Contains(lv, "o=")
	}
	at := strings.IndexByte(v, '@')
	if at <= 0 || strings.Contains(v, "://") {
		return false
	}
	// A domain after the @: a dot, and letters after the last one.
	dot := strings.LastIndexByte(v[at:], '.')
	return dot > 1 && at+dot+3 <= len(v) && lettersOnly(v[at+dot+1:])
}

// findKeyValueFields finds a credential in the key and value fields an
// API tool writes: Postman's {"key": "password", "value": "..."}, a HAR
// file's session cookie {"name": "_app_session", "value": "..."}.
func findKeyValueFields(text string) []found {
	var out []found
	for _, field := range []string{`"key"`, `"name"`} {
		for i := 0; ; {
			j := strings.Index(text[i:], field)
			if j < 0 {
				break
			}
			i += j + len(field)
			name, k, ok := jsonString(text, i)
			if !ok {
				continue
			}
			k = skipBlanks(text, k)
			if k >= len(text) || text[k] != ',' {
				continue
			}
			k = skipBlanks(text, k+1)
			if !strings.HasPrefix(text[k:], `"value"`) {
				continue
			}
			v, end, ok := jsonString(text, k+len(`"value"`))
			if !ok || strings.ContainsAny(v, " \t") {
				continue
			}
			secret := field == `"key"` && credentialName(name) && literal(v) ||
				sessionName(name) && len(v) >= 24 && tokenLike(v)
			if secret {
				s := end - 1 - len(v)
				out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: end - 1})
			}
		}
	}
	return out
}

// jsonString reads `: "..."` at i: the string, and the index after its
// closing quote.
func jsonString(text string, i int) (string, int, bool) {
	i = skipBlanks(text, i)
	if i >= len(text) || text[i] != ':' {
		return "", 0, false
	}
	i = skipBlanks(text, i+1)
	if i >= len(text) || text[i] != '"' {
		return "", 0, false
	}
	e := closing(text, i+1, '"')
	if e >= len(text) {
		return "", 0, false
	}
	return text[i+1 : e], e + 1, true
}

// sessionName reports whether a cookie's name says it holds a session:
// _app_session, sessionid, connect.sid, PHPSESSID.
func sessionName(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, "session") || strings.HasSuffix(l, "sessionid") || strings.HasSuffix(l, "sessid") ||
		strings.HasSuffix(l, ".sid") || strings.HasSuffix(l, "session_id")
}

// findKeyParams finds private key parameters outside PEM: a JWK's private
// exponent or key ("d": "..."), .NET's <RSAKeyValue> with its <D>, and a
// hardhat network's accounts given as hex keys.
func findKeyParams(text string) []found {
	var out []found
	if i := strings.Index(text, `"d"`); i >= 0 {
		if v, end, ok := jsonString(text, i+3); ok && len(v) >= 32 && base64URL(v) {
			out = append(out, keyFound(v, end-1-len(v), end-1))
		}
	}
	if i := strings.Index(text, "<InverseQ>"); i >= 0 {
		s := i + len("<InverseQ>")
		if e := strings.Index(text[s:], "</InverseQ>"); e >= 32 && base64Text(text[s:s+e]) {
			out = append(out, keyFound(text[s:s+e], s, s+e))
		}
	}
	if i := strings.Index(text, "accounts"); i >= 0 {
		t := text[i+len("accounts"):]
		t = strings.TrimLeft(t, `"' :=`)
		if strings.HasPrefix(t, "[") {
			t = strings.TrimLeft(t[1:], " \t")
			if len(t) >= 67 && (t[0] == '"' || t[0] == '\'') && t[1] == '0' && t[2] == 'x' && hexOnly(t[3:67]) && (len(t) == 67 || !wordByte(t[67])) {
				s := len(text) - len(t) + 1
				out = append(out, keyFound(text[s:s+66], s, s+66))
			}
		}
	}
	return out
}

func keyFound(v string, start, end int) found {
	return found{Secret: Secret{Rule: RuleSecretPrivateKey, What: "private key", Masked: mask(v)}, start: start, end: end}
}

func base64URL(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !letter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func base64Text(v string) bool {
	body := strings.TrimRight(v, "=")
	for i := 0; i < len(body); i++ {
		if !base64Byte(body[i]) {
			return false
		}
	}
	return len(v)-len(body) <= 2
}

// findKeypair finds a Solana keypair file's array; derived asks it of a
// line that ends with ']', having no keyword to go by.
func findKeypair(text string) []found {
	if !keypairArray(text) {
		return nil
	}
	s := strings.IndexByte(text, '[')
	return []found{{Secret: Secret{Rule: RuleSecretPrivateKey, What: "private key (Solana keypair)", Masked: mask(text[s:])}, start: s, end: len(text)}}
}

// keypairArray reports whether a line is a JSON array of 64 bytes, a
// Solana keypair file (id.json): the secret key and the public one.
func keypairArray(text string) bool {
	if len(text) < 129 {
		return false
	}
	t := strings.TrimRight(strings.TrimSpace(text), ",")
	if len(t) < 129 || t[0] != '[' || t[1] < '0' || t[1] > '9' || t[len(t)-1] != ']' || strings.Count(t, ",") != 63 {
		return false
	}
	for n := range strings.SplitSeq(t[1:len(t)-1], ",") {
		n = strings.TrimSpace(n)
		if n == "" || len(n) > 3 || strings.Trim(n, "0123456789") != "" || len(n) == 3 && n > "255" {
			return false
		}
	}
	return true
}

// findMnemonic finds a wallet's mnemonic (BIP-39: 12 to 24 lower-case
// words) assigned to a name that says it is one (mnemonic, seed_phrase,
// recovery_phrase, ...).
func findMnemonic(text string) []found {
	for _, k := range []string{"mnemonic", "_phrase", "seedphrase"} {
		i := indexFold(text, k)
		if i < 0 {
			continue
		}
		j := i + len(k)
		for j < len(text) && (identByte(text[j]) || text[j] == '"' || text[j] == '\'') {
			j++
		}
		j = skipBlanks(text, j)
		if j >= len(text) || text[j] != '=' && text[j] != ':' {
			continue
		}
		j = skipBlanks(text, j+1)
		v := strings.Trim(strings.TrimRight(text[j:], " \t,;"), `"'`)
		words := strings.Fields(v)
		if len(words) < 12 || len(words) > 24 || len(words)%3 != 0 {
			continue
		}
		ok := true
		for _, w := range words {
			if len(w) < 3 || len(w) > 8 || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") != "" {
				ok = false
				break
			}
		}
		if ok && !isPlaceholder(v) {
			s := strings.Index(text[j:], words[0]) + j
			return []found{{Secret: Secret{Masked: mask(v)}, start: s, end: s + len(v)}}
		}
	}
	return nil
}

// indexFold returns the index of sub, a lowercase ASCII word, in s in any
// case, or -1.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0]|0x20 && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// findIdentifiedBy finds SQL's IDENTIFIED BY with an unquoted (or
// double-quoted) password, Oracle's.
func findIdentifiedBy(text string) []found {
	i := indexFold(text, "identified")
	if i < 0 || !sqlUserStatement(text[:i]) {
		return nil
	}
	j := skipBlanks(text, i+len("identified"))
	if j+2 >= len(text) || !strings.EqualFold(text[j:j+2], "by") || !reBlank(text[j+2]) {
		return nil
	}
	s := skipBlanks(text, j+2)
	if s < len(text) && text[s] == '"' {
		s++
	}
	e := s
	for e < len(text) && !reBlank(text[e]) && strings.IndexByte(`'";,)`, text[e]) < 0 {
		e++
	}
	v := text[s:e]
	if lv := strings.ToLower(v); lv == "values" || lv == "password" || strings.HasPrefix(v, ":") || strings.HasPrefix(v, "?") || !literal(v) {
		return nil
	}
	return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "literal credential", Masked: mask(v)}, start: s, end: e}}
}

// sqlUserStatement reports whether text, what precedes IDENTIFIED on its
// line, is an SQL statement about a user (CREATE USER x, ALTER USER x,
// GRANT ... TO x), not prose ("fields are identified by their id").
func sqlUserStatement(text string) bool {
	t := strings.TrimLeft(text, " \t")
	for _, p := range []string{"create ", "alter ", "grant "} {
		if len(t) >= len(p) && strings.EqualFold(t[:len(p)], p) {
			return true
		}
	}
	return false
}

// findRelay finds a Postfix relay's credentials, [host]:port
// user:password (sasl_passwd); derived asks it of a line that starts
// with '['.
func findRelay(text string) []found {
	k := strings.IndexByte(text, ']')
	if k < 0 || k+1 >= len(text) || text[k+1] != ':' {
		return nil
	}
	rest := strings.TrimLeft(text[k+2:], "0123456789")
	f := strings.Fields(rest)
	if len(f) != 1 || rest == text[k+2:] || !reBlank(rest[0]) {
		return nil
	}
	_, pw, ok := strings.Cut(f[0], ":")
	if !ok || !literal(pw) {
		return nil
	}
	s := strings.LastIndex(text, pw)
	return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "literal credential", Masked: mask(pw)}, start: s, end: s + len(pw)}}
}

// findInsertValues finds a credential an SQL INSERT writes: a literal in
// the column of the row whose name is a credential's (INSERT INTO
// oauth_clients (client_id, client_secret) VALUES ('web', '...')), for
// each row the line holds.
func findInsertValues(text string) []found {
	k := indexFold(text, ") values")
	if k < 0 {
		return nil
	}
	open := strings.LastIndexByte(text[:k], '(')
	if open < 0 {
		return nil
	}
	var cols []bool // whether each column is a credential's
	any := false
	for c := range strings.SplitSeq(text[open+1:k], ",") {
		c = strings.Trim(strings.TrimSpace(c), "`\"[]")
		cred := c != "" && credentialName(c)
		cols = append(cols, cred)
		any = any || cred
	}
	if !any {
		return nil
	}
	var out []found
	i := k + len(") values")
	for {
		i = skipBlanks(text, i)
		if i >= len(text) || text[i] != '(' {
			return out
		}
		i++
		for col := 0; ; col++ {
			i = skipBlanks(text, i)
			if i >= len(text) {
				return out
			}
			end := i
			if text[i] == '\'' {
				end = i + 1
				for end < len(text) && (text[end] != '\'' || end+1 < len(text) && text[end+1] == '\'') {
					if text[end] == '\'' {
						end++ // '' inside a literal
					}
					end++
				}
				if end >= len(text) {
					return out
				}
				if v := text[i+1 : end]; col < len(cols) && cols[col] && !strings.ContainsAny(v, " \t") && literal(v) {
					out = append(out, found{Secret: Secret{Masked: mask(v)}, start: i + 1, end: end})
				}
				end++
			} else {
				for end < len(text) && text[end] != ',' && text[end] != ')' {
					end++
				}
			}
			i = skipBlanks(text, end)
			if i >= len(text) {
				return out
			}
			if text[i] == ')' {
				i++
				break
			}
			if text[i] != ',' {
				return out
			}
			i++
		}
		i = skipBlanks(text, i)
		if i >= len(text) || text[i] != ',' {
			return out
		}
		i++
	}
}

// tfVariables follows a Terraform file's variable blocks, line by line,
// for a default a credential's variable is given: variable
// "pagerduty_token" { ... default = "..." }, the name lines above its
// value.
type tfVariables struct {
	credential bool // inside the block of a variable named for a credential
	last       int  // the number of the line read last
}

// tfVariablesOf returns the reader of the file at name's variable blocks,
// or nil when it is not Terraform.
func tfVariablesOf(name string) *tfVariables {
	if strings.HasSuffix(name, ".tf") || strings.HasSuffix(name, ".tf.json") {
		return &tfVariables{}
	}
	return nil
}

// line reads the next line of the file and returns the secret it holds.
func (v *tfVariables) line(text string, lineNo int) []Secret {
	if lineNo != v.last+1 {
		v.credential = false // lines apart: another hunk
	}
	v.last = lineNo
	t := strings.TrimSpace(text)
	if n, ok := strings.CutPrefix(t, "variable "); ok {
		n = strings.TrimSpace(strings.TrimSuffix(n, "{"))
		v.credential = len(n) > 2 && n[0] == '"' && n[len(n)-1] == '"' && credentialName(n[1:len(n)-1])
		return nil
	}
	if !v.credential {
		return nil
	}
	if text != "" && text[0] == '}' {
		v.credential = false
		return nil
	}
	d, ok := strings.CutPrefix(t, "default")
	if !ok {
		return nil
	}
	d = strings.TrimSpace(d)
	if !strings.HasPrefix(d, "=") {
		return nil
	}
	d = strings.TrimSpace(d[1:])
	if len(d) < 2 || d[0] != '"' || d[len(d)-1] != '"' {
		return nil
	}
	if val := d[1 : len(d)-1]; !strings.ContainsAny(val, " \t") && literal(val) {
		return []Secret{{Rule: RuleSecretAssignment, What: "literal credential as a variable's default", Line: lineNo, Masked: mask(val)}}
	}
	return nil
}

// findEnvDefaults finds a literal default of a credential's variable in
// an interpolation: ${DB_PASSWORD:-...} (shell, compose), ${DB_PASSWORD:...}
// (Spring), which holds the secret whenever the variable is unset.
func findEnvDefaults(text string) []found {
	var out []found
	for i := strings.Index(text, "${"); i >= 0; {
		n := i + 2
		for n < len(text) && (identByte(text[n]) && text[n] != '-') {
			n++
		}
		name := text[i+2 : n]
		v := n
		if strings.HasPrefix(text[n:], ":-") {
			v += 2
		} else if strings.HasPrefix(text[n:], ":?") {
			v = n // ${NAME:?message}: the message, no default
		} else if n < len(text) && text[n] == ':' {
			v++
		}
		if e := strings.IndexByte(text[v:], '}'); v > n && e > 0 && name != "" && credentialName(name) {
			val := text[v : v+e]
			if !strings.ContainsAny(val, " \t$\"'{") && literal(val) {
				out = append(out, found{Secret: Secret{Masked: mask(val)}, start: v, end: v + e})
			}
		}
		j := strings.Index(text[i+2:], "${")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	return out
}

// findAuthArgs finds the password a call that authenticates is given
// after the user, both literals: new NetworkCredential("u", "..."),
// SetBasicAuth("u", "..."), HTTPBasicAuth("u", "..."), server.login("u",
// "..."), new UsernamePasswordCredentials("u", "..."), and Python's
// auth=("u", "...").
func findAuthArgs(text string) []found {
	var out []found
	for i := range places(text, "(") {
		if i+1 >= len(text) {
			break
		}
		if q := text[i+1]; (q == '"' || q == '\'') && authCallee(text[:i]) {
			if f, ok := secondLiteral(text, i+1); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// authCallee reports whether before, the text up to a call's '(', ends
// with the name of a call that authenticates, or with auth= (a tuple).
func authCallee(before string) bool {
	c := len(before)
	for c > 0 && identByte(before[c-1]) && before[c-1] != '.' && before[c-1] != '-' {
		c--
	}
	name := strings.ToLower(before[c:])
	if name == "" {
		return strings.HasSuffix(strings.TrimRight(before, " \t"), "auth=")
	}
	return strings.Contains(name, "credential") || strings.HasSuffix(name, "auth") || strings.Contains(name, "authentication") ||
		strings.HasSuffix(name, "login") || name == "signin" || name == "authenticate"
}

// secondLiteral reads two quoted literals from i on, separated by a comma,
// and returns the second, a password, when it is a literal that is no
// word; a call may follow it (.toCharArray(), .encode()).
func secondLiteral(text string, i int) (found, bool) {
	e := closing(text, i+1, text[i])
	if e >= len(text) {
		return found{}, false
	}
	j := skipBlanks(text, e+1)
	if j >= len(text) || text[j] != ',' {
		return found{}, false
	}
	j = skipBlanks(text, j+1)
	if j >= len(text) || text[j] != '"' && text[j] != '\'' {
		return found{}, false
	}
	e2 := closing(text, j+1, text[j])
	if e2 >= len(text) {
		return found{}, false
	}
	v := text[j+1 : e2]
	if len(v) < 6 || wordy(v) || strings.ContainsAny(v, " \t@") || !literal(v) {
		return found{}, false
	}
	return found{Secret: Secret{Masked: mask(v)}, start: j + 1, end: e2}, true
}
