package guardrail

import "strings"

// This file holds the secret detectors for credentials in the shapes held-out
// set 6 found unread: a C# auto-property's initializer, an RSpec let, a
// test's assertion that a credential equals a literal, a credential in a
// URL's query, an Oracle JDBC URL's user/password@, the XML of .NET's
// appSettings and Android's string resources, and a plist's <key> and
// <string>. Each runs only on a line with one of its keywords, and checks
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
		keywords: []string{"token=", "key=", "secret=", "?sig=", "&sig=", "?signature=", "&signature=", "auth=", "password=", "passwd=", "pwd="},
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

// findAssertions finds a test's assertion that a credential (a name, a
// getter, a key of a map) equals a literal that is a secret: the test
// holds the value the code under test holds. The credential's name must
// be outside the literals, and the literal one word that is no name.
func findAssertions(text string) []found {
	lt := strings.ToLower(text)
	if !hasAny(lt, assertVerbs...) || hasAny(lt, negations...) {
		return nil
	}
	var lits [][2]int
	named := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '"' || c == '\'' {
			e, _, ok := quotedAt(text, i)
			if !ok {
				break
			}
			lits = append(lits, [2]int{i + 1, e})
			if credentialName(text[i+1 : e]) {
				named = true // settings["api_key"]
			}
			i = e
			continue
		}
		if !wordByte(c) || i > 0 && wordByte(text[i-1]) {
			continue
		}
		s := i
		for i < len(text) && wordByte(text[i]) {
			i++
		}
		w := text[s:i]
		if len(w) > 3 && strings.HasPrefix(w, "get") && w[3] >= 'A' && w[3] <= 'Z' {
			w = w[3:] // getApiKey()
		}
		named = named || credentialName(w)
		i--
	}
	if !named {
		return nil
	}
	var out []found
	for _, l := range lits {
		if v := text[l[0]:l[1]]; len(v) >= 8 && !credentialName(v) && secretLiteral(v) {
			out = append(out, foundAt(text, l[0], l[1]))
		}
	}
	return out
}

// weakQueryNames are names of a query's parameters that hold a credential
// only when the value is generated: a signature, an auth value, a key.
var weakQueryNames = []string{"sig", "signature", "auth", "key"}

// queryNameEnds are the ends of the names findQueryCredentials takes, as
// its detector's keywords (without '=') say: a name that ends otherwise
// (X-Amz-Credential, a signed URL's scope) is not read.
var queryNameEnds = []string{"token", "key", "secret", "sig", "signature", "auth", "password", "passwd", "pwd"}

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
		if (weak || keyName(name) && !credentialName(name)) && !generatedQueryValue(v) {
			continue
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

// generatedQueryValue reports whether v, a query's value, is generated:
// a token, hex of 16 bytes or more, or base64 (maybe percent-encoded) of
// as many.
func generatedQueryValue(v string) bool {
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

// moreNamed finds, on a line the assignment detector's keywords wake,
// the assignments of shapes its reading does not take: JSON escaped
// inside a JSON string, an Elixir module attribute, R's <-.
func moreNamed(text string, _ bool, _ []int) []found {
	var out []found
	if strings.Contains(text, `\"`) {
		out = append(out, findEscapedPairs(text)...)
	}
	if b := skipSpace(text, 0); b < len(text) && text[b] == '@' {
		out = append(out, findAttribute(text, b)...)
	}
	if strings.Contains(text, "<-") {
		out = append(out, findArrows(text)...)
	}
	return out
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
