package guardrail

import (
	"encoding/hex"
	"strings"
)

// This file holds the secret detectors for the kinds held-out set 10
// (written blind, as an outside benchmark of realistic leaks is) found
// unread, and for the same kinds in other libraries: a literal an API
// takes by its position rather than by a name (jwt.sign's secret,
// Fernet's key, a login's password after the user, a client
// constructor's key, Twilio's auth token after the account SID, a key
// decoded from hex or base64 into a name ending in key), an environment
// lookup's default (os.environ.get("X_TOKEN", "...")), a credential header
// inside a string ("X-Api-Key: ..."), the secrets of OmniAuth providers,
// Terraform's plaintext_value, NuGet's apikeys and PowerShell's
// ConvertTo-SecureString, an XML element's value under a credential's
// name attribute, salts and peppers, session cookies, a ",password="
// option and NEO4J_AUTH. Each runs only on a line with one of its
// keywords and checks bytes before anything else; a literal counts only
// when literal does (and secretLiteral or the generated test, as its kind
// needs), so every placeholder rule of assignments holds for it.

func init() { detectors = append(detectors, positionalDetectors...) }

var positionalDetectors = []detector{
	{
		rule: RuleSecretAssignment, what: "literal credential given to an API that takes one",
		keywords: positionalKeywords(),
		find:     func(text, _ string, _ bool) []found { return findPositional(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential as an environment lookup's default",
		// System.getenv().getOrDefault has getenv; os.environ.setdefault environ.
		keywords: []string{"environ", "getenv", "env.fetch(", "env(", "viper.setdefault(", `config("`, "config('", "env.str(", "env.get("},
		// A default is a second argument: a literal name, then a comma.
		may:  func(text string) bool { return strings.Contains(text, `",`) || strings.Contains(text, `',`) },
		find: func(text, _ string, _ bool) []found { return findLookupDefaults(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential in a header or a tool's field",
		// Not OmniAuth::Builder's provider :name: "pro" starts too many
		// words of code (process, props, promise) for a keyword.
		keywords: []string{"-key: ", "-token: ", "ssws ", "omniauth :", "plaintext_value", `<add key="http`, "convertto-securestring"},
		find:     func(text, _ string, _ bool) []found { return findToolFields(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal salt or pepper",
		keywords: []string{"salt", "pepper"},
		scan: func(f *scanFile, text, next string, _ int) []found {
			if hashLine(f.prev) || hashLine(next) {
				return nil // a stored password hash's salt, kept beside it, as ZNC's <Pass> is
			}
			return findSalts(text, f.code)
		},
	},
	{
		rule: RuleSecretAssignment, what: "literal credential in a header or a tool's field",
		keywords: []string{"cookie:", ",password=", "neo4j_auth"},
		find:     func(text, _ string, _ bool) []found { return findSessionsAndPairs(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential in an element's value attribute",
		keywords: []string{`" value="`},
		find:     func(text, _ string, _ bool) []found { return findAttributePairs(text) },
	},
}

// How a call takes its secret.
const (
	argAt          = iota // the arguments of mask
	argLone               // the first, when it is generated (a client's key)
	argAfterUser          // the literal after a literal user
	argDecoded            // the first, decoded into a name that ends in key
	argAlgolia            // the second, 32 hex, unless the line says search-only
	argHeaderFirst        // the first, when the second names a credential's header
)

// positionalCall is a call, by the end of its name, that takes a secret
// by position.
type positionalCall struct {
	callee string // lowercase: "jwt.sign", "fernet"; "*client" is any name ending in client
	how    int
	mask   uint8 // for argAt: bit i for argument i
}

var positionalCalls = []positionalCall{
	// Signing secrets and keys.
	{"jwt.sign", argAt, 2}, {"jwt.encode", argAt, 2}, {"jwt.verify", argAt, 2}, {"jwt.decode", argAt, 2},
	{"fernet", argAt, 1}, {"from_secret", argAt, 1}, {"symmetricsecuritykey", argAt, 1},
	{"securecookie.new", argAt, 3}, {"hmac.new", argAt, 1}, {"createhmac", argAt, 2},
	{"secretkeyspec", argAt, 1}, {"aes.newcipher", argAt, 1}, {"bearer_auth", argAt, 1},
	{"signedstring", argAt, 1}, {"algorithm.hmac256", argAt, 1}, {"algorithm.hmac384", argAt, 1},
	{"algorithm.hmac512", argAt, 1}, {"aes.new", argAt, 1}, {"createcipheriv", argAt, 2}, {"createdecipheriv", argAt, 2},
	// A client's key, a bot's token.
	{"*client", argLone, 0}, {"bot.run", argLone, 0}, {"client.run", argLone, 0}, {"*login", argLone, 0},
	// A password after its user.
	{"*login", argAfterUser, 0}, {"*connect", argAfterUser, 0}, {"pdo", argAfterUser, 0},
	{"mysqli", argAfterUser, 0}, {"signin", argAfterUser, 0}, {"authenticate", argAfterUser, 0},
	{"*credential", argAfterUser, 0}, {"*credentials", argAfterUser, 0},
	{"drivermanager.getconnection", argAfterUser, 0}, {"sequelize", argAfterUser, 0}, {"ftp", argAfterUser, 0},
	{"ftp_tls", argAfterUser, 0}, {"credentials.basic", argAfterUser, 0}, {"basic_auth", argAfterUser, 0},
	// MQTT's user and password (paho), a Wi-Fi network's SSID and
	// passphrase (Arduino's WiFi.begin).
	// (A callee's keyword is its name's end and '(': pw_set( wakes the
	// detector where username_pw_set( would at every "use".)
	{"*pw_set", argAfterUser, 0}, {"wifi.begin", argAfterUser, 0},
	// PayPal's live client ID and secret.
	{"liveenvironment", argAt, 2},
	// A header's value given before its name (Swift's addValue(_:forHTTPHeaderField:)).
	{"addvalue", argHeaderFirst, 0}, {"setvalue", argHeaderFirst, 0},
	// Key material decoded where it is assigned to a key.
	{"buffer.from", argDecoded, 0}, {"hex.decodestring", argDecoded, 0}, {"bytes.fromhex", argDecoded, 0},
	{"decodehex", argDecoded, 0}, {"convert.frombase64string", argDecoded, 0},
	{"convert.fromhexstring", argDecoded, 0}, {"b64decode", argDecoded, 0}, {"decodestring", argDecoded, 0},
	{"[]byte", argDecoded, 0},
	// Algolia's admin key, after the application's ID (not the
	// search-only key, which browsers are given).
	{"algoliasearch", argAlgolia, 0}, {"searchclient.create", argAlgolia, 0},
}

// positionalKeywords are the calls' names with their '(' (a '*' entry's
// end), PHP's JWT::, and twilio, whose SID and token findPositional reads
// in any call.
func positionalKeywords() []string {
	seen := map[string]bool{}
	out := []string{"twilio", "jwt::", "basic_auth "} // PHP's JWT::encode, Ruby's call without parentheses
	for _, c := range positionalCalls {
		k := strings.TrimPrefix(c.callee, "*") + "("
		if c.callee == "[]byte" {
			k = `byte("` // Go's []byte("..."); brackets would be two more byte classes for the keyword scan
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// findPositional finds the literals calls take by position.
func findPositional(text string) []found {
	var out []found
	if j := strings.Index(text, "basic_auth "); j >= 0 {
		// Ruby: req.basic_auth 'user', 'password', the blank for a '('.
		pc := positionalCall{"basic_auth", argAfterUser, 0}
		if f, ok := positionalArg(text, text[:j], callArgs(text, j+len("basic_auth")), pc); ok {
			out = append(out, f)
		}
	}
	n := 0
	for i := range places(text, "(") {
		if n++; n > 16 {
			break // a line of data, not of calls
		}
		c := i
		for c > 0 && (identByte(text[c-1]) || text[c-1] == ':') {
			c--
		}
		if strings.HasSuffix(text[:c], "[]") {
			c -= 2 // Go's conversion: key = []byte("...")
		}
		callee := strings.ReplaceAll(strings.ToLower(text[c:i]), "::", ".") // PHP's JWT::encode
		args := callArgs(text, i)
		if len(args) == 0 {
			continue
		}
		if f, ok := twilioToken(text, args); ok {
			out = append(out, f)
			continue
		}
		for _, pc := range positionalCalls {
			if !calleeIs(callee, pc.callee) {
				continue
			}
			if f, ok := positionalArg(text, text[:c], args, pc); ok {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// calleeIs reports whether callee, a call's name lowercased (maybe
// qualified: jwt.sign, ld.makeclient), is want's: its last segments, or
// for "*name" a last segment that ends in name.
func calleeIs(callee, want string) bool {
	if w, ok := strings.CutPrefix(want, "*"); ok {
		seg := callee[strings.LastIndexAny(callee, ".:")+1:]
		return strings.HasSuffix(seg, w)
	}
	if !strings.HasSuffix(callee, want) {
		return false
	}
	b := len(callee) - len(want)
	return b == 0 || callee[b-1] == '.' || callee[b-1] == ':'
}

// callArgs returns the spans of the arguments of the call whose '(' is at
// open, up to its ')' or the line's end, split at the commas outside
// brackets and quotes.
func callArgs(text string, open int) [][2]int {
	var args [][2]int
	depth := 0
	s := open + 1
	for i := open + 1; i < len(text); i++ {
		switch c := text[i]; c {
		case '"', '\'', '`':
			i = closing(text, i+1, c)
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return append(args, [2]int{s, i})
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, [2]int{s, i})
				s = i + 1
			}
		}
	}
	return append(args, [2]int{s, len(text)})
}

// argLiteral returns the one literal an argument holds, maybe wrapped in
// a conversion ([]byte("..."), b"...", Encoding.UTF8.GetBytes("..."),
// "...".getBytes(), Some("...")); bare says the argument is the literal
// alone. ok is false for none, or more than one (a lookup: cfg["a"]["b"]).
func argLiteral(text string, a [2]int) (s, e int, bare, ok bool) {
	q := -1
	for i := a[0]; i < a[1]; i++ {
		if c := text[i]; c == '"' || c == '\'' || c == '`' {
			if q >= 0 {
				return 0, 0, false, false
			}
			q = i
			i = closing(text, i+1, c)
			if i >= a[1] {
				return 0, 0, false, false
			}
			s, e = q+1, i
		} else if c == '+' || c == '?' || c == '|' {
			return 0, 0, false, false // an expression: concatenated, a fallback
		}
	}
	if q < 0 {
		return 0, 0, false, false
	}
	pre := strings.TrimSpace(text[a[0]:q])
	post := strings.TrimSpace(text[e+1 : a[1]])
	bare = (pre == "" || pre == "b" || pre == "r" || pre == "@") && post == ""
	return s, e, bare, true
}

// positionalArg returns the secret a call matching pc takes, when its
// arguments give it a literal; before is the line up to the call's name.
func positionalArg(text, before string, args [][2]int, pc positionalCall) (found, bool) {
	switch pc.how {
	case argAt:
		for k, a := range args {
			if k >= 8 || pc.mask&(1<<k) == 0 {
				continue
			}
			if s, e, _, ok := argLiteral(text, a); ok && secretLiteral(text[s:e]) {
				return foundAt(text, s, e), true
			}
		}
	case argLone:
		if s, e, bare, ok := argLiteral(text, args[0]); ok && bare {
			// Not an address: a client is given its server's as often.
			if v := text[s:e]; (generatedSecret(v) && digitRuns(v) >= 2 || isUUID(strings.TrimPrefix(v, "sdk-"))) && !twilioSID(v) &&
				!strings.ContainsAny(v, ":") && !strings.HasPrefix(v, "/") && literal(v) {
				return foundAt(text, s, e), true
			}
		}
	case argAfterUser:
		for k := 1; k < len(args); k++ {
			// The password may be wrapped (Some("..."), "...".toCharArray()).
			us, ue, ubare, uok := argLiteral(text, args[k-1])
			s, e, _, ok := argLiteral(text, args[k])
			if !uok || !ok || !ubare || !userWord(text[us:ue]) {
				continue
			}
			if v := text[s:e]; v != text[us:ue] && len(v) >= 6 && !wordy(v) && !userLike(v) &&
				!strings.ContainsAny(v, " \t") && !strings.Contains(v, "://") && literal(v) {
				return foundAt(text, s, e), true
			}
		}
	case argAlgolia:
		if len(args) < 2 || searchOnly(text) {
			break
		}
		if s, e, bare, ok := argLiteral(text, args[1]); ok && bare && e-s == 32 && hexOnly(text[s:e]) && literal(text[s:e]) {
			return foundAt(text, s, e), true
		}
	case argHeaderFirst:
		if len(args) < 2 {
			break
		}
		hs, he, _, hok := argLiteral(text, args[1])
		if !hok || !strings.Contains(strings.ToLower(text[args[1][0]:hs]), "header") ||
			!credentialName(strings.ReplaceAll(text[hs:he], "-", "_")) {
			break
		}
		if s, e, bare, ok := argLiteral(text, args[0]); ok && bare && secretLiteral(text[s:e]) {
			return foundAt(text, s, e), true
		}
	case argDecoded:
		if s, e, bare, ok := argLiteral(text, args[0]); ok && bare && assignedToKey(before) {
			if v := text[s:e]; generatedSecret(v) && !strings.ContainsAny(v, " \t") && !countingOrText(v) && literal(v) {
				return foundAt(text, s, e), true
			}
		}
	}
	return found{}, false
}

// searchOnly reports whether a line says its key is Algolia's search-only
// key, which is public.
func searchOnly(text string) bool {
	lt := strings.ToLower(text)
	return strings.Contains(lt, "search-only") || strings.Contains(lt, "search_only") || strings.Contains(lt, "searchonly") ||
		strings.Contains(lt, "searchkey") || strings.Contains(lt, "search_key") || strings.Contains(lt, "search-key") ||
		searchClientAssigned(lt)
}

// digitRuns counts the runs of digits in v: a generated token scatters
// them, a name numbers itself once (GraphQLClient2024).
func digitRuns(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] >= '0' && v[i] <= '9' && (i == 0 || v[i-1] < '0' || v[i-1] > '9') {
			n++
		}
	}
	return n
}

// userWord reports whether u, a literal before a password, can be a
// user's name: an email address, or one word of no more than 64 bytes
// that is no URL, path, host:port or connection string.
func userWord(u string) bool {
	if userLike(u) {
		return true
	}
	return u != "" && len(u) <= 64 && !strings.ContainsAny(u, " \t/:;=")
}

// assignedToKey reports whether before, a line up to a call, ends with a
// name whose last word is key or a credential's and an assignment (key =,
// key :=, key, _ :=, aes.Key =).
func assignedToKey(before string) bool {
	t := strings.TrimRight(before, " \t")
	for _, op := range []string{":=", "=", ":"} {
		if u, ok := strings.CutSuffix(t, op); ok {
			t = strings.TrimRight(u, " \t")
			break
		}
	}
	if u, ok := strings.CutSuffix(t, ", _"); ok {
		t = u // Go: key, _ := hex.DecodeString(...)
	}
	if u, ok := strings.CutSuffix(t, ",_"); ok {
		t = u
	}
	name := nameBefore(t, len(t))
	if name == "" || len(name) == len(strings.TrimLeft(before, " \t")) {
		return false
	}
	return keyName(name) || credentialName(name)
}

// twilioToken finds a Twilio auth token: the literal of 32 hex after the
// literal account SID (AC and 32 hex) among a call's arguments.
func twilioToken(text string, args [][2]int) (found, bool) {
	for k := 1; k < len(args); k++ {
		us, ue, ubare, uok := argLiteral(text, args[k-1])
		if !uok || !ubare || !twilioSID(text[us:ue]) {
			continue
		}
		if s, e, bare, ok := argLiteral(text, args[k]); ok && bare && e-s == 32 && hexOnly(text[s:e]) && literal(text[s:e]) {
			return foundAt(text, s, e), true
		}
	}
	return found{}, false
}

// countingOrText reports whether v, hex, is no key but a sample: bytes
// that count up (000102..., 0102030405...) or that decode to a sentence
// (Go's example "change this password to a secret").
func countingOrText(v string) bool {
	if len(v)%2 != 0 || !hexOnly(strings.ToLower(v)) {
		return false
	}
	b, err := hex.DecodeString(v)
	if err != nil || len(b) < 4 {
		return false
	}
	counting, text, blank := true, true, false
	for i, c := range b {
		counting = counting && (i == 0 || c == b[i-1]+1)
		text = text && c >= 0x20 && c < 0x7f
		blank = blank || c == ' '
	}
	return counting || text && blank
}

// twilioSID reports whether v is a Twilio account SID, AC and 32 hex: an
// ID, which a client is given with its token.
func twilioSID(v string) bool {
	return len(v) == 34 && v[0] == 'A' && v[1] == 'C' && hexOnly(v[2:])
}

// lookupCallees are the calls that read an environment variable with a
// default as their second argument: os.environ.get, os.getenv, ENV.fetch,
// Laravel's env(), System.getenv().getOrDefault.
var lookupCallees = []string{"environ.get", "getenv", "env.fetch", "env", "getordefault", "setdefault", "config", "env.str", "env.get"}

// findLookupDefaults finds the literal default of an environment lookup
// of a credential's variable: os.environ.get("API_TOKEN", "...").
func findLookupDefaults(text string) []found {
	var out []found
	for i := range places(text, "(") {
		c := i
		for c > 0 && (identByte(text[c-1]) || text[c-1] == ':') {
			c--
		}
		callee := strings.ToLower(text[c:i])
		known := false
		for _, l := range lookupCallees {
			known = known || calleeIs(callee, l)
		}
		if !known {
			continue
		}
		args := callArgs(text, i)
		if len(args) < 2 {
			continue
		}
		ns, ne, nbare, nok := argLiteral(text, args[0])
		if !nok || !nbare || !credentialName(text[ns:ne]) {
			continue
		}
		a := args[1]
		if d := skipSpace(text, a[0]); strings.HasPrefix(text[d:], "default=") {
			a[0] = d + len("default=")
		}
		if s, e, bare, ok := argLiteral(text, a); ok && bare && secretLiteral(text[s:e]) {
			out = append(out, foundAt(text, s, e))
		}
	}
	return out
}

// findToolFields finds a credential header inside a string ("X-Api-Key:
// ...", "Authorization: SSWS ..."), an OmniAuth provider's secret
// (config.omniauth :github, 'id', 'secret'), Terraform's plaintext_value, a
// NuGet.Config apikey (<add key="https://..." value="..."/>) and the
// literal PowerShell's ConvertTo-SecureString makes a secure string of.
func findToolFields(text string) []found {
	var out []found
	lt := strings.ToLower(text)
	for i := range places(text, ": ") {
		n := i
		for n > 0 && (wordByte(text[n-1]) || text[n-1] == '-') {
			n--
		}
		if n == i || n > 0 && text[n-1] != '"' && text[n-1] != '\'' || !strings.Contains(text[n:i], "-") ||
			!credentialName(strings.ReplaceAll(text[n:i], "-", "_")) {
			continue
		}
		s := skipSpace(text, i+2)
		e := s
		for e < len(text) && !reBlank(text[e]) && text[e] != '"' && text[e] != '\'' {
			e++
		}
		if e < len(text) && n > 0 && text[e] == text[n-1] && secretLiteral(text[s:e]) {
			out = append(out, foundAt(text, s, e))
		}
	}
	if j := strings.Index(lt, "ssws "); j >= 0 {
		s := j + len("ssws ")
		e := s
		for e < len(text) && (wordByte(text[e]) || text[e] == '-') {
			e++
		}
		if v := text[s:e]; tokenLike(v) && literal(v) {
			out = append(out, foundAt(text, s, e))
		}
	}
	if j := strings.Index(lt, "omniauth :"); j >= 0 {
		args := callArgs(text, j+len("omniauth")) // the blank before ':' reads as a '('
		if len(args) >= 3 {
			if s, e, bare, ok := argLiteral(text, args[2]); ok && bare && secretLiteral(text[s:e]) {
				out = append(out, foundAt(text, s, e))
			}
		}
	}
	if j := strings.Index(lt, "plaintext_value"); j >= 0 {
		k := skipSpace(text, j+len("plaintext_value"))
		if k < len(text) && (text[k] == '=' || text[k] == ':') {
			if e, v, ok := quotedAt(text, skipSpace(text, k+1)); ok && secretLiteral(v) {
				out = append(out, foundAt(text, e-len(v), e))
			}
		}
	}
	if j := strings.Index(lt, `<add key="http`); j >= 0 {
		if k := strings.Index(lt[j:], ` value=`); k > 0 {
			if e, v, ok := quotedAt(text, j+k+len(` value=`)); ok && !strings.Contains(v, "://") && secretLiteral(v) {
				out = append(out, foundAt(text, e-len(v), e))
			}
		}
	}
	if j := strings.Index(lt, "convertto-securestring"); j >= 0 && strings.Contains(lt, "-asplaintext") {
		k := skipSpace(text, j+len("convertto-securestring"))
		if strings.HasPrefix(lt[k:], "-string") {
			k = skipSpace(text, k+len("-string"))
		}
		if e, v, ok := quotedAt(text, k); ok && secretLiteral(v) {
			out = append(out, foundAt(text, e-len(v), e))
		}
	}
	return out
}

// findAttributePairs finds the value attribute of an XML element whose
// name or key attribute names a credential: Spring's <property
// name="password" value="..."/>, <entry key="apiKey" value="..."/>, Ant's
// and Maven's <param name="token" value="..."/>.
func findAttributePairs(text string) []found {
	var out []found
	for i := range places(text, `" value="`) {
		// The attribute before value, on the same element.
		open := strings.LastIndexByte(text[:i], '<')
		if open < 0 {
			continue
		}
		el := text[open:i]
		var name string
		for _, attr := range []string{` name="`, ` key="`} {
			if j := strings.LastIndex(el, attr); j >= 0 {
				name = el[j+len(attr):]
				break
			}
		}
		if name == "" || strings.ContainsAny(name, `"<> `) || !credentialName(name) {
			continue
		}
		if e, v, ok := quotedAt(text, i+len(`" value=`)); ok && secretLiteral(v) {
			out = append(out, foundAt(text, e-len(v), e))
		}
	}
	return out
}

// findSalts finds a generated literal assigned to a name whose last word
// is salt or pepper (HASH_SALT=..., PASSWORD_PEPPER: ..., salt = "..."):
// an application's salt or pepper guards its hashes as a key does its
// ciphertexts. Not a count or a length (SALT_ROUNDS=10, saltLength), nor
// a salt made at run time (bcrypt.gensalt()).
func findSalts(text string, code bool) []found {
	var out []found
	for i := 0; i < len(text); i++ {
		var w int
		switch {
		case i+4 <= len(text) && strings.EqualFold(text[i:i+4], "salt"):
			w = 4
		case i+6 <= len(text) && strings.EqualFold(text[i:i+6], "pepper"):
			w = 6
		default:
			continue
		}
		e := i + w
		if e < len(text) && (wordByte(text[e]) || text[e] == '-' || text[e] == '.') {
			continue // not the name's last word: saltRounds, SALT_LENGTH
		}
		if i > 0 && wordByte(text[i-1]) && text[i-1] != '_' && !(text[i] >= 'A' && text[i] <= 'Z' && text[i-1] >= 'a' && text[i-1] <= 'z') {
			continue // glued inside a word: basalt, Gestalt
		}
		s := i
		for s > 0 && identByte(text[s-1]) {
			s--
		}
		if !operatorNext(text, e) || !assignment(text, s, e) {
			continue
		}
		if vs, ve, ok := assignedValue(text, e, code, false); ok {
			if v := text[vs:ve]; generatedSecret(v) && !strings.ContainsAny(v, " \t") && literal(v) {
				out = append(out, foundAt(text, vs, ve))
			}
		}
		i = e
	}
	return out
}

// hashLine reports whether line sets a hash or a digest: a name whose
// last word is hash or digest, then '=' or ':'.
func hashLine(line string) bool {
	t := strings.TrimLeft(line, " \t\"'")
	e := 0
	for e < len(t) && identByte(t[e]) {
		e++
	}
	name := t[:e]
	if !hasSuffixFold(name, "hash") && !hasSuffixFold(name, "digest") {
		return false
	}
	rest := strings.TrimLeft(t[e:], " \t\"'")
	return rest != "" && (rest[0] == '=' || rest[0] == ':')
}

// findSessionsAndPairs finds a session cookie's value in a Cookie header
// (Cookie: sessionid=...; csrftoken=...), a password among a
// comma-separated configuration string's options (StackExchange.Redis'
// "host:6380,password=...,ssl=True"), and Neo4j's NEO4J_AUTH=user/password.
func findSessionsAndPairs(text string) []found {
	var out []found
	lt := strings.ToLower(text)
	if j := strings.Index(lt, "cookie:"); j >= 0 {
		for part := range strings.SplitSeq(text[j+len("cookie:"):], ";") {
			name, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			ln := strings.ToLower(name)
			v = strings.TrimRight(v, `"' `)
			if ok && (strings.Contains(ln, "session") || strings.HasSuffix(ln, "sid")) && generatedSecret(v) && literal(v) {
				if k := strings.Index(text[j:], v); k >= 0 {
					out = append(out, foundAt(text, j+k, j+k+len(v)))
				}
			}
		}
	}
	for i := range places(text, ",password=") {
		s := i + len(",password=")
		e := s
		for e < len(text) && text[e] != ',' && text[e] != '"' && text[e] != '\'' && text[e] != ';' && !reBlank(text[e]) {
			e++
		}
		if secretLiteral(text[s:e]) {
			out = append(out, foundAt(text, s, e))
		}
	}
	if j := strings.Index(lt, "neo4j_auth"); j >= 0 {
		k := skipSpace(text, j+len("neo4j_auth"))
		if k < len(text) && (text[k] == '=' || text[k] == ':') {
			k = skipSpace(text, k+1)
			if k < len(text) && (text[k] == '"' || text[k] == '\'') {
				k++
			}
			e := k
			for e < len(text) && text[e] != '"' && text[e] != '\'' && !reBlank(text[e]) {
				e++
			}
			if _, pw, ok := strings.Cut(text[k:e], "/"); ok && secretLiteral(pw) {
				out = append(out, foundAt(text, e-len(pw), e))
			}
		}
	}
	return out
}
