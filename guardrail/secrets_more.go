package guardrail

import "strings"

// This file holds the secret detectors for credentials in the shapes held-out
// set 6 found unread: a C# auto-property's initializer, an RSpec let, a
// test's assertion that a credential equals a literal, a credential in a
// URL's query, an Oracle JDBC URL's user/password@, the XML of .NET's
// appSettings and Android's string resources, a plist's <key> and
// <string>, JSON escaped inside a string, R's <-, an Elixir module
// attribute. Each runs only on a line with one of its keywords, and checks
// bytes before anything else.

func init() { detectors = append(detectors, moreDetectors...) }

var moreDetectors = []detector{
	{
		// public string DbPassword { get; set; } = "...";
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"{ get;", "{get;"},
		find:     func(text, _ string, _ bool) []found { return findPropertyInits(text) },
	},
	{
		// RSpec: let(:api_token) { '...' }
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"(:"}, // let(:, let!(:; "let" starts too many words of code
		find:     func(text, _ string, _ bool) []found { return findLets(text) },
	},
	{
		// assert cfg.api_key == "...", expect(cfg.apiKey).toBe('...'),
		// assertEquals("...", cfg.getApiKey()).
		rule: RuleSecretAssignment, what: "literal credential in an assertion",
		keywords: []string{"assert", "tobe(", "toequal("}, // not expect( nor should: exp and sho start many words
		may:      func(text string) bool { return strings.ContainsAny(text, `"'`) },
		find:     func(text, _ string, _ bool) []found { return findAssertions(text) },
	},
	{
		// ?api_key=..., &access_token=..., &sig=...
		rule: RuleSecretAssignment, what: "credential in a URL's query",
		keywords: []string{"token=", "key=", "secret=", "?sig=", "&sig=", "auth=", "password=", "passwd=", "pwd="},
		may:      func(text string) bool { return strings.ContainsAny(text, "?&") },
		find:     func(text, _ string, _ bool) []found { return findQueryCredentials(text) },
	},
	{
		// jdbc:oracle:thin:user/password@//host:1521/service
		rule: RuleSecretURL, what: "password in a URL",
		keywords: []string{"jdbc:oracle:"},
		find:     func(text, _ string, _ bool) []found { return findOracleURLs(text) },
	},
	{
		// <add key="JwtSecret" value="..." />, <string name="smtp_pass">...</string>
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"<add ", "<string name="},
		find:     func(text, _ string, _ bool) []found { return findXMLNamed(text) },
	},
	{
		// {\"apiKey\":\"...\"}: JSON escaped inside a JSON string.
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{`\"`},
		find:     func(text, _ string, _ bool) []found { return findEscapedPairs(text) },
	},
	{
		// R: api_key <- "..."
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"<-"},
		find:     func(text, _ string, _ bool) []found { return findArrows(text) },
	},
	{
		// <pwd>...</pwd>, <smtpPass>...</smtpPass>: the element names the
		// password reading of the file's own syntax does not take.
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"pwd>", "pass>"},
		find:     func(text, _ string, _ bool) []found { return findPassElements(text) },
	},
	{
		// <key>ApiSecret</key> then <string>...</string>, on one line or two.
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"<string>"},
		scan:     func(f *scanFile, text, _ string, _ int) []found { return findPlistValue(f.prev, text) },
	},
}

// quotedAt returns the end of the literal whose opening quote is at i, and
// the literal; ok is false when no quote closes it on the line.
func quotedAt(text string, i int) (end int, v string, ok bool) {
	if i >= len(text) || text[i] != '"' && text[i] != '\'' {
		return 0, "", false
	}
	e := closing(text, i+1, text[i])
	if e >= len(text) {
		return 0, "", false
	}
	return e, text[i+1 : e], true
}

// secretLiteral reports whether v, a literal given to a credential's name,
// is one: literal, one word of no blanks, and not a name.
func secretLiteral(v string) bool {
	return len(v) >= 6 && !strings.ContainsAny(v, " \t") && !wordy(v) && literal(v)
}

func foundAt(text string, s, e int) found {
	return found{Secret: Secret{Masked: mask(text[s:e])}, start: s, end: e}
}

// nameBefore returns the identifier (letters, digits, _) that ends at e.
func nameBefore(text string, e int) string {
	s := e
	for s > 0 && wordByte(text[s-1]) {
		s--
	}
	return text[s:e]
}

// findPropertyInits finds a C# auto-property named for a credential and
// initialized with a literal: Name { get; set; } = "...".
func findPropertyInits(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], "get;")
		if j < 0 {
			return out
		}
		at := i + j
		i = at + 4
		b := strings.LastIndexByte(text[:at], '{')
		c := strings.IndexByte(text[at:], '}')
		if b < 0 || c < 0 || strings.Trim(text[b+1:at], " \t") != "" {
			continue
		}
		n := b
		for n > 0 && reBlank(text[n-1]) {
			n--
		}
		name := nameBefore(text, n)
		v := skipBlanks(text, at+c+1)
		if v >= len(text) || text[v] != '=' || name == "" || !credentialName(name) {
			continue
		}
		q := skipBlanks(text, v+1)
		if q < len(text) && text[q] == '@' {
			q++ // a verbatim string
		}
		if e, val, ok := quotedAt(text, q); ok && secretLiteral(val) {
			out = append(out, foundAt(text, q+1, e))
			i = e
		}
	}
}

// findLets finds RSpec's let(:name) { '...' } of a credential's name.
func findLets(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], "(:")
		if j < 0 {
			return out
		}
		at := i + j + 2
		i = at
		if !strings.HasSuffix(text[:at-2], "let") && !strings.HasSuffix(text[:at-2], "let!") {
			continue
		}
		n := at
		for n < len(text) && wordByte(text[n]) {
			n++
		}
		name := text[at:n]
		if n >= len(text) || text[n] != ')' || !credentialName(name) {
			continue
		}
		b := skipBlanks(text, n+1)
		if b >= len(text) || text[b] != '{' {
			continue
		}
		q := skipBlanks(text, b+1)
		e, val, ok := quotedAt(text, q)
		if ok && strings.HasPrefix(strings.TrimLeft(text[e+1:], " \t"), "}") && secretLiteral(val) {
			out = append(out, foundAt(text, q+1, e))
			i = e
		}
	}
}

// assertVerbs are the assertions of equality findAssertions reads, as
// lowercase parts of a line: Python's and Rust's assert, JUnit's
// assertEquals, XCTest's XCTAssertEqual, Jest's expect(...).toBe/toEqual,
// AssertJ's assertThat(...).isEqualTo.
var assertVerbs = []string{"assert ", "assert_eq!(", "assertequal", "assert.equal(", "tobe(", "toequal(", "isequalto("}

// negations make an assertion say the value is not the credential.
var negations = []string{"!=", "not", "assert_ne!", "!==", "~="}

// findAssertions finds a test's assertion that a credential equals a
// literal that is a secret: the test holds the value the code under test
// holds. What the literal is compared with (the other side of ==, the
// other argument of assertEquals, what expect(...) or assertThat(...)
// holds) must end with a credential's name: cfg.api_key, getApiKey(),
// settings["api_key"].
func findAssertions(text string) []found {
	lt := strings.ToLower(text)
	if !hasAny(lt, assertVerbs...) || hasAny(lt, negations...) {
		return nil
	}
	var out []found
	for i := 0; i < len(text); i++ {
		if text[i] != '"' && text[i] != '\'' {
			continue
		}
		e, v, ok := quotedAt(text, i)
		if !ok {
			break
		}
		if len(v) >= 8 && !credentialName(v) && secretLiteral(v) && credentialName(subjectName(comparedWith(text, i, e))) {
			out = append(out, foundAt(text, i+1, e))
		}
		i = e
	}
	return out
}

// comparedWith returns the expression the literal text[q:e+1] (quotes
// included) is compared with, or "".
func comparedWith(text string, q, e int) string {
	before := strings.TrimRight(text[:q], " \t")
	if b, ok := strings.CutSuffix(before, "b"); ok && (b == "" || !wordByte(b[len(b)-1])) {
		before = b // Python's b"..."
	}
	after := text[e+1:]
	if a := strings.TrimLeft(after, " \t"); strings.HasPrefix(a, "==") && !strings.HasPrefix(a, "===") {
		return operand(a[2:]) // assert X == "..." reversed: "..." == X
	}
	if l, ok := strings.CutSuffix(before, "=="); ok && !strings.HasSuffix(l, "=") {
		l = strings.TrimRight(l, " \t")
		if k := strings.LastIndex(l, "assert "); k >= 0 {
			return l[k+len("assert "):]
		}
		return ""
	}
	if strings.HasSuffix(before, "(") {
		lb := strings.ToLower(before)
		if hasSuffixAny(lb, []string{".tobe(", ".toequal(", ".isequalto("}) {
			// expect(X).toBe("..."): X, inside the call before the dot.
			d := strings.LastIndexByte(before[:len(before)-1], '.')
			if d > 0 && before[d-1] == ')' {
				if o := openingParen(before, d-1); o >= 0 {
					return before[o+1 : d-1]
				}
			}
			return ""
		}
		// assertEquals("...", X): the next argument.
		a := strings.TrimLeft(after, " \t")
		if !strings.HasPrefix(a, ",") {
			return ""
		}
		return argument(a[1:])
	}
	if strings.HasSuffix(before, ",") {
		// assertEquals(X, "..."): the argument before, from its call's '('.
		if o := openingParen(before, len(before)-1); o >= 0 {
			return before[o+1 : len(before)-1]
		}
	}
	return ""
}

// openingParen returns the index of the '(' that the text before end is
// inside of, skipping balanced pairs, or -1.
func openingParen(text string, end int) int {
	depth := 0
	for i := end - 1; i >= 0; i-- {
		switch text[i] {
		case ')', ']':
			depth++
		case '(', '[':
			if depth == 0 {
				if text[i] == '[' {
					return -1
				}
				return i
			}
			depth--
		}
	}
	return -1
}

// argument returns the argument text starts with, up to its ',' or ')'.
func argument(text string) string {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '[':
			depth++
		case ')', ']':
			if depth == 0 {
				return text[:i]
			}
			depth--
		case ',':
			if depth == 0 {
				return text[:i]
			}
		}
	}
	return text
}

// operand returns the expression text starts with, to a comment, a ','
// or a keyword joining conditions.
func operand(text string) string {
	a := argument(text)
	for _, stop := range []string{" and ", " or ", " #", "//", ";"} {
		if k := strings.Index(a, stop); k >= 0 {
			a = a[:k]
		}
	}
	return a
}

// subjectName returns the name an expression ends with: the member
// (cfg.api_key), the getter without get (cfg.getApiKey()), the key of an
// index (settings["api_key"]).
func subjectName(expr string) string {
	x := strings.TrimRight(expr, " \t")
	x = strings.TrimSuffix(x, "()")
	if strings.HasSuffix(x, "]") {
		k := strings.LastIndexByte(x, '[')
		if k < 0 {
			return ""
		}
		return strings.Trim(x[k+1:len(x)-1], `"' `)
	}
	w := nameBefore(x, len(x))
	if len(w) > 3 && strings.HasPrefix(w, "get") && w[3] >= 'A' && w[3] <= 'Z' {
		w = w[3:]
	}
	return w
}

// weakQueryNames are names of a query's parameters that hold a credential
// only when the value is generated: a signature, an auth value, a key.
var weakQueryNames = []string{"sig", "auth", "key"}

// queryNameEnds are the ends of the names findQueryCredentials takes, as
// its detector's keywords (without '=') say: a name that ends otherwise
// (X-Amz-Credential, a signed URL's scope) is not read.
var queryNameEnds = []string{"token", "key", "secret", "sig", "auth", "password", "passwd", "pwd"}

// findQueryCredentials finds a credential in a URL's query: a parameter
// after ? or & whose name is a credential's (api_key, access_token,
// client_secret, password), or is sig, signature, auth or key with a
// generated value in a URL. The value ends where a URL, a string or markup
// ends it. A provider's own reading of the parameter (a CloudFront
// Signature=, an Azure SAS sig=) keeps its rule.
func findQueryCredentials(text string) []found {
	var out, providers []found
	asked := false
	for i := 0; i < len(text); i++ {
		if text[i] != '?' && text[i] != '&' {
			continue
		}
		n := i + 1
		for n < len(text) && (wordByte(text[n]) || text[n] == '-' || text[n] == '.') {
			n++
		}
		if n >= len(text) || text[n] != '=' || n == i+1 {
			continue
		}
		name := text[i+1 : n]
		lname := strings.ToLower(name)
		if !hasSuffixAny(lname, queryNameEnds) {
			continue
		}
		e := n + 1
		for e < len(text) && !strings.ContainsRune("&#'\"` \t)<>\\,;]}", rune(text[e])) {
			e++
		}
		v := text[n+1 : e]
		weak := contains(weakQueryNames, lname)
		if !weak && !credentialName(name) || len(v) < 8 || !literal(v) || wordy(v) {
			continue
		}
		if !passwordName(lname) && !generatedQueryValue(v) || weak && strings.Count(v, "-") > 2 {
			continue // a password may be any literal; a token is generated
		}
		if weak && !strings.Contains(text[:i], "://") && !strings.HasPrefix(strings.TrimLeft(text[:i], " \t\"'`("), "/") {
			continue // not a URL's query: a weak name needs one
		}
		if !asked {
			providers, asked = findPrefixed(text, "", false), true
		}
		if overlaps(providers, n+1, e) {
			continue
		}
		out = append(out, foundAt(text, n+1, e))
		i = e - 1
	}
	return out
}

func hasSuffixAny(s string, ends []string) bool {
	for _, e := range ends {
		if strings.HasSuffix(s, e) {
			return true
		}
	}
	return false
}

// passwordName reports whether a lowercase name ends in a password's word.
func passwordName(lname string) bool {
	return hasSuffixAny(lname, []string{"password", "passwd", "pwd", "pass"})
}

// generatedQueryValue reports whether v, a query's value, is generated:
// a token, hex of 16 bytes or more, or base64 (maybe percent-encoded) of
// as many.
func generatedQueryValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !wordByte(c) && !strings.ContainsRune("-.~%+=", rune(c)) {
			return false // a path, code: not one token
		}
	}
	d := strings.NewReplacer("%2B", "+", "%2b", "+", "%2F", "/", "%2f", "/", "%3D", "=", "%3d", "=").Replace(v)
	return tokenLike(d) || len(d) >= 32 && hexOnly(d) || base64Key(d)
}

// findOracleURLs finds the password of an Oracle JDBC URL's user/password@.
func findOracleURLs(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], "jdbc:oracle:")
		if j < 0 {
			return out
		}
		at := i + j + len("jdbc:oracle:")
		i = at
		c := strings.IndexByte(text[at:], ':') // after thin, oci, oci8
		if c < 0 || c > 5 {
			continue
		}
		u := at + c + 1
		slash := u
		for slash < len(text) && (wordByte(text[slash]) || text[slash] == '$' || text[slash] == '#' || text[slash] == '.') {
			slash++
		}
		if slash == u || slash >= len(text) || text[slash] != '/' {
			continue
		}
		e := slash + 1
		for e < len(text) && text[e] != '@' && !strings.ContainsRune(" \t\"'`/", rune(text[e])) {
			e++
		}
		if e >= len(text) || text[e] != '@' || e == slash+1 {
			continue
		}
		if v := text[slash+1 : e]; !isPlaceholder(v) && len(v) >= 4 && !localDefault(v) {
			out = append(out, foundAt(text, slash+1, e))
		}
		i = e
	}
}

// localDefault reports whether v is a database's well-known default
// password, which a URL names for a local database.
func localDefault(v string) bool {
	switch strings.ToLower(v) {
	case "password", "postgres", "root", "admin", "guest", "tiger", "oracle", "manager", "secret":
		return true
	}
	return false
}

// findXMLNamed finds a credential in XML that names it in an attribute:
// .NET's <add key="Name" value="..."/> (appSettings, NuGet.config) and
// Android's <string name="name">...</string>.
func findXMLNamed(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return out
		}
		at := i + j
		i = at + 1
		switch {
		case strings.HasPrefix(text[at:], "<add "):
			name, ne, ok := attrValue(text, at, "key=")
			if !ok {
				name, ne, ok = attrValue(text, at, "name=")
			}
			if !ok || !credentialName(name) {
				continue
			}
			vs := strings.Index(text[ne:], `value="`)
			if vs < 0 {
				continue
			}
			vs += ne + len(`value=`)
			if e, v, ok := quotedAt(text, vs); ok && secretLiteral(v) {
				out = append(out, foundAt(text, vs+1, e))
				i = e
			}
		case strings.HasPrefix(text[at:], "<string name="):
			name, ne, ok := attrValue(text, at, "name=")
			if !ok || !credentialName(name) {
				continue
			}
			gt := strings.IndexByte(text[ne:], '>')
			if gt < 0 {
				continue
			}
			s := ne + gt + 1
			e := strings.Index(text[s:], "</string>")
			if e > 0 && secretLiteral(text[s:s+e]) {
				out = append(out, foundAt(text, s, s+e))
				i = s + e
			}
		}
	}
}

// attrValue returns the quoted value of the attribute attr (with its '=')
// of the tag that opens at lt, and where the value ends.
func attrValue(text string, lt int, attr string) (string, int, bool) {
	gt := strings.IndexByte(text[lt:], '>')
	if gt < 0 {
		gt = len(text) - lt
	}
	tag := text[lt : lt+gt]
	a := strings.Index(tag, " "+attr)
	if a < 0 {
		return "", 0, false
	}
	q := lt + a + 1 + len(attr)
	e, v, ok := quotedAt(text, q)
	return v, e + 1, ok
}

// findPlistValue finds the <string> of a plist's <key> named for a
// credential, the key on the same line or the line before.
func findPlistValue(prev, text string) []found {
	s := strings.Index(text, "<string>")
	if s < 0 {
		return nil
	}
	key := text[:s]
	if !strings.Contains(key, "</key>") {
		key = prev
	}
	k := strings.LastIndex(key, "<key>")
	ke := strings.LastIndex(key, "</key>")
	if k < 0 || ke < k || !credentialName(key[k+len("<key>"):ke]) {
		return nil
	}
	s += len("<string>")
	e := strings.Index(text[s:], "</string>")
	if e <= 0 || !secretLiteral(text[s:s+e]) {
		return nil
	}
	return []found{foundAt(text, s, s+e)}
}

// moreNamed finds, on a line the assignment detector's keywords wake, an
// assignment of a shape its reading does not take: an Elixir module
// attribute (@api_token "..."), known by the line's first byte.
func moreNamed(text string, _ bool, _ []int) []found {
	if b := skipSpace(text, 0); b < len(text) && text[b] == '@' {
		return findAttribute(text, b)
	}
	return nil
}

// findEscapedPairs finds \"name\":\"...\" of a credential's name in JSON
// escaped inside a string (an ECS task's APP_CONFIG, a Helm value).
func findEscapedPairs(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], `\"`)
		if j < 0 {
			return out
		}
		ns := i + j + 2
		k := strings.Index(text[ns:], `\"`)
		if k < 0 {
			return out
		}
		ne := ns + k
		i = ne
		c := skipBlanks(text, ne+2)
		if c >= len(text) || text[c] != ':' {
			continue
		}
		vs := skipBlanks(text, c+1)
		if !strings.HasPrefix(text[vs:], `\"`) || !credentialName(text[ns:ne]) {
			continue
		}
		vs += 2
		ve := strings.Index(text[vs:], `\"`)
		if ve < 0 {
			return out
		}
		if secretLiteral(text[vs : vs+ve]) {
			out = append(out, foundAt(text, vs, vs+ve))
		}
		i = vs + ve
	}
}

// findAttribute finds an Elixir module attribute named for a credential
// and given a literal: @api_token "...".
func findAttribute(text string, at int) []found {
	n := at + 1
	for n < len(text) && wordByte(text[n]) {
		n++
	}
	q := skipBlanks(text, n)
	if q == n || !credentialName(text[at+1:n]) {
		return nil
	}
	if e, v, ok := quotedAt(text, q); ok && secretLiteral(v) && strings.TrimSpace(text[e+1:]) == "" {
		return []found{foundAt(text, q+1, e)}
	}
	return nil
}

// findArrows finds R's assignment with <- of a literal to a credential's
// name: api_key <- "...".
func findArrows(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], "<-")
		if j < 0 {
			return out
		}
		at := i + j
		i = at + 2
		n := at
		for n > 0 && reBlank(text[n-1]) {
			n--
		}
		name := nameBefore(text, n)
		if name == "" || !credentialName(name) {
			continue
		}
		q := skipBlanks(text, at+2)
		if e, v, ok := quotedAt(text, q); ok && secretLiteral(v) {
			out = append(out, foundAt(text, q+1, e))
			i = e
		}
	}
}

// builderCall reports whether the call whose callee starts at c is a
// builder's method that a line of a chain starts with: .rootPwd("...").
func builderCall(text string, c int) bool {
	return c < len(text) && text[c] == '.' && strings.TrimLeft(text[:c], " \t") == ""
}

// substitution reports whether v, starting with %, # or _, is a template's
// substitution rather than a value: %VAR%, %(name)s, %s, #{Octopus.Var},
// #{VAR}#, __TOKEN__.
func substitution(v string) bool {
	switch {
	case strings.HasPrefix(v, "#{"), strings.HasPrefix(v, "%("), strings.HasPrefix(v, "%{"):
		return true // maybe cut at its first dot, unquoted
	case len(v) <= 3 && v[0] == '%':
		return true // %s, %v
	case strings.HasPrefix(v, "%env(") && strings.HasSuffix(v, ")%"):
		return true // Symfony's %env(DATABASE_PASSWORD)%
	case v[0] == '%':
		return len(v) > 2 && v[len(v)-1] == '%' && identWord(v[1:len(v)-1])
	case strings.HasPrefix(v, "__"):
		return len(v) > 4 && strings.HasSuffix(v, "__") && identWord(v[2:len(v)-2])
	}
	return false
}

// identWord reports whether w is a name of letters, digits, _ and . (an
// environment variable's, a template variable's).
func identWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if !wordByte(w[i]) && w[i] != '.' {
			return false
		}
	}
	return w != ""
}

// signingName reports whether a name's last word is hmac or bearer, which
// name a key to sign with or a token to send, and name the scheme too
// (SIGNATURE_HMAC = "HMAC-SHA1", _BEARER = 'Bearer'): a value must be
// generated.
func signingName(name string) bool {
	n := len(name)
	if n < 4 || name[n-1]|0x20 != 'c' && name[n-1]|0x20 != 'r' {
		return false
	}
	w := splitWords(name)
	last := w[len(w)-1]
	return last == "hmac" || last == "bearer"
}

// generatedSecret reports whether v is a generated secret: a token, hex
// of 16 bytes or more, base64 of a key, and not a scheme's name.
func generatedSecret(v string) bool {
	return (tokenLike(v) || len(v) >= 32 && hexOnly(v) || base64Key(v)) && !containsFold(v, "hmac") && !containsFold(v, "bearer")
}

// findPassElements finds the text of an XML element whose name ends in
// pwd or pass (<pwd>, <smtpPass>, <db_pass>) and is a credential's.
func findPassElements(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 || i+j+1 >= len(text) {
			return out
		}
		at := i + j + 1
		i = at
		n := at
		for n < len(text) && (wordByte(text[n]) || text[n] == '-' || text[n] == '.' || text[n] == ':') {
			n++
		}
		name := text[at:n]
		ln := strings.ToLower(name)
		if n >= len(text) || text[n] != '>' || !strings.HasSuffix(ln, "pwd") && !strings.HasSuffix(ln, "pass") || !credentialName(name) {
			continue
		}
		e := strings.Index(text[n+1:], "</"+name+">")
		if e > 0 && secretLiteral(text[n+1:n+1+e]) {
			out = append(out, foundAt(text, n+1, n+1+e))
			i = n + 1 + e
		}
	}
}
