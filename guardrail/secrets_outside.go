package guardrail

import (
	"encoding/base64"
	"regexp"
	"strings"
)

// This file holds the readings the peer secret scanners' own examples
// (Nosey Parker's, Kingfisher's, detect-secrets') showed harnish missing,
// written as general readings: credential names glued in lower case,
// provider tokens whose prefix says what they are, and credentials in the
// syntax of the tools and files that take them (psexec, PowerShell,
// Vault's unseal, TrueNAS' and ThingsBoard's APIs, .NET's LDAP bind,
// Gradle's Groovy DSL, YAML's tags, a PEM key in base64); and values that
// are code around a literal rather than one (codeValue).

func init() { detectors = append(detectors, outsideDetector) }

// outsideDetector is one detector (one bit of the keyword pass) for this
// file's readings; find asks each reading whose keyword the line holds.
var outsideDetector = detector{
	rule: RuleSecretAssignment, what: "literal credential",
	keywords: outsideKeywords(),
	find:     findOutside,
}

// outsideTokens are providers' tokens that their prefix identifies, from
// the providers' documentation, which gitleaks' rules and prefixedTokens
// do not read.
var outsideTokens = []prefixedToken{
	{"dependency-track-api-key", "Dependency-Track API key", "odt_", lazyRE(`\bodt_[A-Za-z0-9]{32,40}\b`), 0, ""},
	{"adafruit-io-key", "Adafruit IO key", "aio_", lazyRE(`\baio_[A-Za-z0-9]{28}\b`), 0, ""},
	{"twitch-stream-key", "Twitch stream key", "live_", lazyRE(`\blive_[0-9]{6,12}_[A-Za-z0-9]{30}\b`), 0, ""},
	{"new-relic-admin-key", "New Relic admin API key", "nraa-", lazyRE(`\bNRAA-[0-9a-f]{27}\b`), 0, ""},
	{"new-relic-query-key", "New Relic Insights query key", "nriq-", lazyRE(`\bNRIQ-[A-Za-z0-9_-]{32}\b`), 0, ""},
	{"new-relic-license-key", "New Relic license key", "eu01xx", lazyRE(`\beu01xx[0-9a-f]{30}NRAL\b`), 0, ""},
	{"jina-api-key", "Jina API key", "jina_", lazyRE(`\bjina_[A-Za-z0-9]{60}\b`), 0, ""},
	{"mongodb-atlas-service-account-secret", "MongoDB Atlas service account secret", "mdb_sa_sk_", lazyRE(`\bmdb_sa_sk_[A-Za-z0-9_-]{40}\b`), 0, ""},
	{"posthog-personal-api-key", "PostHog personal API key", "phx_", lazyRE(`\bphx_[A-Za-z0-9_]{40,50}\b`), 0, ""},
	{"sourcegraph-access-token", "Sourcegraph or Segment token", "sgp_", lazyRE(`\bsgp_[A-Za-z0-9_]{40,80}\b`), 0, ""},
	{"sourcegraph-cody-key", "Sourcegraph Cody key", "slk_", lazyRE(`\bslk_[0-9a-f]{64}\b`), 0, ""},
	{"teamwork-api-token", "Teamwork API token", "tkn.v1_", lazyRE(`\btkn\.v1_[A-Za-z0-9+/]{60,}={0,2}`), 0, ""},
	{"scrapfly-api-key", "Scrapfly API key", "scp-live-", lazyRE(`\bscp-live-[0-9a-f]{32}\b`), 0, ""},
	{"azure-devops-pat", "Azure DevOps personal access token", "azdo", lazyRE(`\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b`), 0, ""},
	{"salesforce-access-token", "Salesforce access token", "00d", lazyRE(`\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}`), 0, "!"},
	{"slack-config-refresh-token", "Slack configuration token", "xoxe", lazyRE(`\bxoxe(?:\.xox[abp])?-[0-9]-[A-Za-z0-9]{100,}`), 0, ""},
}

// outsideCommand is a program and the flag its password follows, matched
// in any case (PsExec.exe, Connect-VIServer -Password): Windows' programs
// and PowerShell's cmdlets and parameters are.
type outsideCommand struct {
	programs []string // lowercase, without .exe
	flag     string   // lowercase
}

var outsideCommands = []outsideCommand{
	{[]string{"psexec", "psexec64", "paexec"}, "-p"},
	{[]string{"connect-viserver", "connect-ciserver", "invoke-sqlcmd"}, "-password"},
}

// outsideCommandKeywords stand for outsideCommands' programs in the
// keyword pass: what their names hold that code seldom does (not con...
// or inv..., which start many words).
var outsideCommandKeywords = []string{"psexec", "paexec", "-viserver", "-ciserver", "-sqlcmd"}

// directoryEntry is .NET's LDAP bind, DirectoryEntry(path, user,
// password), read as positionalCalls' logins are; its keyword is
// "yentry(" (not "dir...", which starts many words).
var directoryEntry = []positionalCall{{"directoryentry", argAfterUser, 0}}

// The readings' patterns, compiled when a line first holds their keyword.
var (
	// Vault's unseal keys as vault operator init prints them and as
	// vault operator unseal takes one: base64 of 33 bytes (or hex).
	vaultUnsealKey = lazyRE(`(?i)\bunseal key [0-9]+:\s*([A-Za-z0-9+/]{44}|[0-9a-f]{66})(?:[^A-Za-z0-9+/=]|$)`)
	vaultUnsealArg = lazyRE(`\bvault (?:operator )?unseal\s+(?:-[a-z-]+(?:=\S*)?\s+)*([A-Za-z0-9+/]{44}|[0-9a-f]{66})(?:[^A-Za-z0-9+/=]|$)`)
	// A TrueNAS API key (its number, '-', 64 letters and digits) among a
	// login_with_api_key call's parameters.
	truenasKey = lazyRE(`"([0-9]{1,5}-[A-Za-z0-9]{64})"`)
	// A ThingsBoard device's access token in its HTTP or CoAP API's path.
	thingsboardToken = lazyRE(`/api/v1/([A-Za-z0-9_-]{16,40})/(?:telemetry|attributes)\b`)
	// Gradle's Groovy calls without parentheses: buildConfigField
	// 'String', 'NAME', '"..."' (or "\"...\""), resValue 'string', ...
	groovyNamedArgs = lazyRE(`(?i)\b(?:buildConfigField|resValue)[ \t]+['"]\w+['"][ \t]*,[ \t]*['"]([A-Za-z0-9_.-]+)['"][ \t]*,[ \t]*(?:'"([^"'\\$]*)"'|"\\"([^"'\\$]*)\\"")`)
	// A YAML value tagged !!binary or !!str under a name.
	yamlTagged = lazyRE(`^\s*(?:-\s+)?["']?([A-Za-z0-9_.-]+)["']?\s*:\s*!!(?:binary|str)\s+["']?([^\s"']+)`)
)

func outsideKeywords() []string {
	ks := []string{"seal key", "r unseal", "t unseal", "yentry(", "login_with_api_key", "/telemetry", "/attributes", "!!binary", "!!str", "buildconfigfield ", "resvalue ", "ls0tls1crudjti"}
	for _, p := range outsideTokens {
		ks = append(ks, p.keyword)
	}
	return append(ks, outsideCommandKeywords...)
}

// findOutside runs the readings whose keyword the line holds.
func findOutside(text, _ string, _ bool) []found {
	var out []found
	for _, find := range [...]func(string) []found{findOutsideTokens, findOutsideCommands, findVaultKeys, findTrueNASKey, findThingsBoardToken, findYAMLTagged, findGroovyNamedArgs, findBase64PEM, findDirectoryEntry} {
		out = append(out, find(text)...)
	}
	return out
}

// findOutsideTokens finds outsideTokens' tokens.
func findOutsideTokens(text string) []found {
	var out []found
	for _, p := range outsideTokens {
		if !containsFold(text, p.keyword) || p.needs != "" && !strings.Contains(text, p.needs) {
			continue
		}
		for _, m := range p.re().FindAllStringIndex(text, -1) {
			v := text[m[0]:m[1]]
			if isPlaceholder(tokenBody(v)) || testToken(v) || !mixedToken(tokenBody(v)) {
				continue
			}
			rule, what := providerRule(p.id)
			if !strings.HasPrefix(rule, "edit.secret.slack") && !strings.HasPrefix(rule, "edit.secret.azure") {
				what = p.what
			}
			out = append(out, found{Secret: Secret{Rule: rule, What: what, Masked: mask(v)}, start: m[0], end: m[1]})
		}
	}
	return out
}

// findVaultKeys finds Vault's unseal keys as vault operator init prints
// them, and a key given to vault operator unseal. (Its root token, s. or
// hvs., is gitleaks' vault-service-token.)
func findVaultKeys(text string) []found {
	var out []found
	if containsFold(text, "seal key") {
		out = appendGroup(out, text, vaultUnsealKey(), 1)
	}
	if containsFold(text, "r unseal") || containsFold(text, "t unseal") {
		out = appendGroup(out, text, vaultUnsealArg(), 1)
	}
	return out
}

// findDirectoryEntry finds the password of .NET's LDAP bind.
func findDirectoryEntry(text string) []found {
	if !containsFold(text, "yentry(") {
		return nil
	}
	return findCalls(text, directoryEntry)
}

// findTrueNASKey finds a TrueNAS API key given to auth.login_with_api_key.
func findTrueNASKey(text string) []found {
	if !strings.Contains(text, "login_with_api_key") {
		return nil
	}
	return appendGroup(nil, text, truenasKey(), 1)
}

// findThingsBoardToken finds a ThingsBoard device's access token in its
// API's path.
func findThingsBoardToken(text string) []found {
	if !strings.Contains(text, "/api/v1/") {
		return nil
	}
	return appendGroup(nil, text, thingsboardToken(), 1)
}

// findYAMLTagged finds a literal tagged !!binary or !!str under a
// credential's name (api_secret: !!binary ...), which the assignment rule
// reads as the tag.
func findYAMLTagged(text string) []found {
	if !strings.Contains(text, "!!") {
		return nil
	}
	m := yamlTagged().FindStringSubmatchIndex(text)
	if m == nil || !credentialName(text[m[2]:m[3]]) || !literal(text[m[4]:m[5]]) {
		return nil
	}
	return []found{{Secret: Secret{Masked: mask(text[m[4]:m[5]])}, start: m[4], end: m[5]}}
}

// findGroovyNamedArgs finds the literal Gradle's Groovy DSL gives
// buildConfigField or resValue under a credential's name without
// parentheses (buildConfigField 'String', 'API_KEY', '"..."'); the
// parenthesized call is findNamedArgs'.
func findGroovyNamedArgs(text string) []found {
	if !containsFold(text, "buildconfigfield ") && !containsFold(text, "resvalue ") {
		return nil
	}
	var out []found
	for _, m := range groovyNamedArgs().FindAllStringSubmatchIndex(text, -1) {
		if !credentialName(text[m[2]:m[3]]) {
			continue
		}
		s, e := m[4], m[5]
		if s < 0 {
			s, e = m[6], m[7]
		}
		if secretLiteral(text[s:e]) {
			out = append(out, foundAt(text, s, e))
		}
	}
	return out
}

// pemBase64 is "-----BEGIN" in base64, as a PEM file encoded whole
// starts.
const pemBase64 = "LS0tLS1CRUdJTi"

// findBase64PEM finds a PEM private key encoded whole in base64 wherever
// it stands on the line, as CI scripts write one to decode into a file
// (echo LS0tLS1CRUdJTi... | base64 -d > id_rsa); a value that ends a
// line is findBase64's too.
func findBase64PEM(text string) []found {
	var out []found
	for i := 0; ; {
		j := strings.Index(text[i:], pemBase64)
		if j < 0 {
			return out
		}
		s := i + j
		e := s
		for e < len(text) && (wordByte(text[e]) && text[e] != '_' || text[e] == '+' || text[e] == '/' || text[e] == '=') {
			e++
		}
		i = e
		v := strings.TrimRight(text[s:e], "=")
		d, err := base64.RawStdEncoding.DecodeString(v[:len(v)-len(v)%4])
		if err != nil {
			continue
		}
		k := strings.Index(string(d), "PRIVATE KEY")
		if k < 0 || strings.Contains(string(d), "...") || !keyMaterial().MatchString(string(d[k:])) {
			continue
		}
		out = append(out, found{Secret: Secret{Rule: RuleSecretPrivateKey, What: "private key (PEM in base64)", Masked: mask(text[s:e])}, start: s, end: e})
	}
}

// appendGroup appends the submatches group of re in text that look
// generated and are not placeholders.
func appendGroup(out []found, text string, re *regexp.Regexp, group int) []found {
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		s, e := m[2*group], m[2*group+1]
		v := text[s:e]
		if isPlaceholder(tokenBody(v)) || !mixedToken(v) {
			continue
		}
		out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: e})
	}
	return out
}

// containsAnyFold reports whether text holds one of words, lowercase, in
// any case.
func containsAnyFold(text string, words []string) bool {
	for _, w := range words {
		if containsFold(text, w) {
			return true
		}
	}
	return false
}

// mixedToken reports whether v mixes letters and digits, as a generated
// token does and a word or a name does not.
func mixedToken(v string) bool {
	var l, d bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		l = l || letter(c)
		d = d || c >= '0' && c <= '9'
	}
	return l && d
}

// findOutsideCommands finds the password a command line gives the
// programs of outsideCommands after their flag (psexec \\host -u U -p PW,
// Connect-VIServer -Server H -User U -Password PW).
func findOutsideCommands(text string) []found {
	if !strings.Contains(text, " -") || !containsAnyFold(text, outsideCommandKeywords) {
		return nil
	}
	var out []found
	words := shellWords(text)
	for k, w := range words {
		name := strings.ToLower(w.text[strings.LastIndexAny(w.text, "/\\")+1:])
		name = strings.TrimSuffix(name, ".exe")
		for _, c := range outsideCommands {
			if !contains(c.programs, name) {
				continue
			}
			for i := k + 1; i+1 < len(words); i++ {
				a := strings.ToLower(words[i].text)
				if a == "|" || a == ";" || a == "&&" || a == "||" || a == "&" {
					break
				}
				if a != c.flag {
					continue
				}
				// Not a variable, a subexpression or a splat ($pw, %PW%,
				// (Get-Secret ...), @args).
				v := words[i+1]
				if v.text == "" || strings.IndexByte("$%(@[{", v.text[0]) >= 0 || strings.ContainsAny(v.text, " \t") || !literal(v.text) {
					break
				}
				if q := text[v.start]; (q == '"' || q == '\'') && v.end-v.start == len(v.text)+2 {
					v.start, v.end = v.start+1, v.end-1 // the value inside its quotes
				}
				out = append(out, found{Secret: Secret{Masked: mask(v.text)}, start: v.start, end: v.end})
				break
			}
		}
	}
	return out
}

// gluedOpen reports whether w, a name's last word in lower case, is a
// credential word with a word glued before it, which gluedPrefixes does
// not list: jwtsecret, webhooksecret, githubtoken, mapsapikey,
// aws.secretkey; and secretkey or privatekey alone. The word before it
// must be letters or digits, and not one that makes the name something
// else (a page token, a parser's next token, a form's secret field).
// Passwords glued so are gluedPass' (secrets_formats.go). credentialName
// asks it of many names: the last byte and the length rule out most.
func gluedOpen(w []byte) bool {
	n := len(w)
	if n < 7 {
		return false
	}
	var end string
	switch w[n-1] {
	case 't':
		end = "secret"
	case 'n':
		end = "token"
	case 'y':
		for _, k := range [...]string{"privatekey", "secretkey", "accesskey", "apikey"} {
			if n >= len(k) && string(w[n-len(k):]) == k {
				end = k
				break
			}
		}
	}
	if end == "" || n < len(end) || string(w[n-len(end):]) != end {
		return false
	}
	p := w[:n-len(end)]
	if len(p) == 0 {
		return end == "secretkey" || end == "privatekey" // the pair glued, alone
	}
	if len(p) < 2 || len(p) > 16 || !alnumBytes(p) || notCredentialWord(p) || notGluedWord(p) {
		return false
	}
	return end != "token" || !notTokenWord(p)
}

func alnumBytes(p []byte) bool {
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// notGluedWord reports whether w, glued before a credential word, makes
// the name a flag, a form's field, a hash or a derived value rather than
// the credential: nopassword, haspassword, showpassword, newpassword,
// confirmpassword, txtpassword, hashedpassword, topsecret.
func notGluedWord(w []byte) bool {
	switch string(w) {
	case "no", "non", "not", "has", "is", "show", "hide", "use", "uses", "with", "without", "require", "requires", "allow",
		"new", "old", "confirm", "repeat", "retype", "verify", "current", "enter", "ask", "prompt", "remember", "save",
		"input", "txt", "text", "field", "label", "lbl", "placeholder", "type", "min", "max", "len", "valid",
		"hashed", "hash", "encrypted", "enc", "masked", "sealed", "top", "get", "set", "gen", "generate", "random", "rand",
		"one", "otp", "temp", "tmp", "empty", "default", "my", "your", "the", "some", "any", "sample", "example", "fake", "dummy", "test":
		return true
	}
	return false
}

// notTokenWord reports whether w, glued before token, names a parser's,
// a paginator's or a cancellation's token, or one a device publishes,
// rather than a credential: lasttoken, eoftoken, cancellationtoken,
// pushtoken.
func notTokenWord(w []byte) bool {
	switch string(w) {
	case "last", "first", "start", "end", "eof", "cur", "current", "prev", "previous", "peek", "lexer", "parser", "lex",
		"cancel", "cancellation", "stop", "push", "device", "fcm", "apns", "registration", "notification", "sort", "search",
		"resume", "more", "offset", "marker", "start_", "continue", "max", "min", "num", "count", "total", "word", "char", "string":
		return true
	}
	return false
}

// codeValue reports whether v, read as a credential's value, is code
// around a literal rather than one: a concatenation after a closing
// quote ('.$p[...] in PHP), a variable escaped or between quotes
// (\$_POST[...], '$PW' in a shell's quote juggling), a CSS selector
// of the field's element (#add-password), or the next
// key of a minified object after a label ("Password:",rememberMe:).
func codeValue(v string) bool {
	if len(v) < 2 {
		return false
	}
	switch v[0] {
	case '.', '\\', '\'', '"':
		if v[1] == '$' {
			return true
		}
	case ',':
		return v[len(v)-1] == ':' && identifier(v[1:len(v)-1])
	}
	return v[0] == '#' && selectorWords(v[1:])
}

// identifier reports whether s is a name in code: letters, digits and _,
// not starting with a digit.
func identifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !wordByte(s[i]) {
			return false
		}
	}
	return true
}

// selectorWords reports whether s is lower-case words joined by hyphens,
// two or more, as CSS names an element (add-password, reset-token-form).
func selectorWords(s string) bool {
	words := 0
	for w := range strings.SplitSeq(s, "-") {
		if w == "" {
			return false
		}
		for i := 0; i < len(w); i++ {
			if w[i] < 'a' || w[i] > 'z' {
				return false
			}
		}
		words++
	}
	return words >= 2
}
