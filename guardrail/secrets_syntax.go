package guardrail

import (
	"encoding/base64"
	"github.com/harnish/harnish/guardrail/internal/secretrules"
	"math"
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file holds the secret detectors for what gitleaks' rules and the
// assignment rule do not read: provider tokens whose prefix alone says
// what they are, credentials in the shapes code and configuration give
// them (HTTP headers, name and value as two arguments or two lines, ENV
// NAME value, literals split by concatenation, base64 of a secret), and
// the file syntaxes that hold a key in their own way (PuTTY's private
// lines, a Go MySQL DSN, a key file holding nothing but the key). Each
// runs only on a line that holds one of its keywords, and most check a
// cheap shape before any regexp.

func init() { detectors = append(detectors, syntaxDetectors...) }

// prefixedToken is a provider token that its prefix alone identifies,
// wherever it stands: harnish's additions to gitleaks' rules, for
// providers gitleaks has no rule for or ties to a keyword near the token
// (Doppler's service tokens, SonarQube's, Docker Hub's, ...).
type prefixedToken struct {
	id, what string
	// keyword, lowercase, is in every match.
	keyword string
	re      func() *regexp.Regexp
	// group is the submatch that is the secret (0: the whole match).
	group int
	// needs, if set, is a string the line must hold too: a SAS URL has
	// its service version, a CloudFront signed URL its key pair.
	needs string
}

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// prefixedTokens are the providers' formats, from their documentation.
var prefixedTokens = []prefixedToken{
	{"docker-hub-pat", "Docker Hub access token", "dckr_", lazyRE(`\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`), 0, ""},
	{"doppler-api-token", "Doppler token", "dp.", lazyRE(`\bdp\.(?:pt|st|ct|sa|scim|audit)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}`), 0, ""},
	{"sonar-api-token", "SonarQube token", "squ_", lazyRE(`\bsqu_[0-9a-f]{40}\b`), 0, ""},
	{"sonar-api-token", "SonarQube token", "sqp_", lazyRE(`\bsqp_[0-9a-f]{40}\b`), 0, ""},
	{"sonar-api-token", "SonarQube token", "sqa_", lazyRE(`\bsqa_[0-9a-f]{40}\b`), 0, ""},
	{"mailgun-private-api-token", "Mailgun API key", "key-", lazyRE(`\bkey-[0-9a-f]{32}\b`), 0, ""},
	{"notion-api-token", "Notion token", "ntn_", lazyRE(`\bntn_[0-9]{11}[A-Za-z0-9]{35}\b`), 0, ""},
	{"supabase-access-token", "Supabase token", "sbp_", lazyRE(`\bsbp_[0-9a-f]{40}\b`), 0, ""},
	{"supabase-secret-key", "Supabase secret key", "sb_secret_", lazyRE(`\bsb_secret_[A-Za-z0-9_-]{20,}`), 0, ""},
	{"replicate-api-token", "Replicate token", "r8_", lazyRE(`\br8_[A-Za-z0-9]{37}\b`), 0, ""},
	{"xai-api-key", "xAI API key", "xai-", lazyRE(`\bxai-[A-Za-z0-9]{80}\b`), 0, ""},
	{"groq-api-key", "Groq API key", "gsk_", lazyRE(`\bgsk_[A-Za-z0-9]{52}\b`), 0, ""},
	{"circleci-token", "CircleCI token", "ccipat_", lazyRE(`\bCCIPAT_[A-Za-z0-9]{22}_[0-9a-f]{40}\b`), 0, ""},
	{"netlify-access-token", "Netlify token", "nfp_", lazyRE(`\bnfp_[A-Za-z0-9]{36}\b`), 0, ""},
	{"render-api-key", "Render API key", "rnd_", lazyRE(`\brnd_[A-Za-z0-9]{32}\b`), 0, ""},
	{"buildkite-token", "Buildkite token", "bkua_", lazyRE(`\bbkua_[0-9a-f]{40}\b`), 0, ""},
	{"gcp-oauth-client-secret", "Google OAuth client secret", "gocspx-", lazyRE(`\bGOCSPX-[A-Za-z0-9_-]{28}\b`), 0, ""},
	{"stripe-webhook-secret", "Stripe webhook secret", "whsec_", lazyRE(`\bwhsec_[A-Za-z0-9+/]{32,}`), 0, ""},
	{"new-relic-license-key", "New Relic license key", "nral", lazyRE(`\b[0-9a-f]{36}NRAL\b`), 0, ""},
	{"telegram-bot-api-token", "Telegram bot token", ":aa", lazyRE(`(?:\bbot|\b)([0-9]{8,10}:AA[A-Za-z0-9_-]{33})\b`), 1, ""},
	{"facebook-access-token", "Facebook access token", "eaa", lazyRE(`(?:^|[^A-Za-z0-9+/=])(EAA[A-Za-z0-9]{100,})`), 1, ""},
	{"discord-webhook", "Discord webhook URL", "discord", lazyRE(`https://(?:(?:canary|ptb)\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,68}`), 0, ""},
	{"fcm-server-key", "Firebase Cloud Messaging server key", "apa91b", lazyRE(`\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}`), 0, ""},
	{"azure-sas-token", "Azure shared access signature", "sig=", lazyRE(`[?&;]sig=([A-Za-z0-9%+/_-]{30,}(?:%3[Dd]|=){0,2})`), 1, "sv="},
	{"twitter-bearer-token", "Twitter bearer token", "aaaaaaaaaaaaaaaaaaaa", lazyRE(`(?:^|[^A-Za-z0-9+/=])(A{20,}[A-Za-z0-9%]{80,})`), 1, ""},
	{"mapbox-secret-token", "Mapbox secret token", "sk.eyj", lazyRE(`\bsk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`), 0, ""},
	{"aws-amazon-bedrock-api-key-long-lived", "Amazon Bedrock API key", "absk", lazyRE(`\bABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}`), 0, ""},
	{"airtable-personnal-access-token", "Airtable token", "pat", lazyRE(`\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b`), 0, ""},
	{"square-oauth-secret", "Square OAuth secret", "sq0csp-", lazyRE(`\bsq0csp-[A-Za-z0-9_-]{43}\b`), 0, ""},
	{"langsmith-api-key", "LangSmith API key", "lsv2_", lazyRE(`\blsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}\b`), 0, ""},
	{"neon-api-key", "Neon API key", "napi_", lazyRE(`\bnapi_[a-z0-9]{64}\b`), 0, ""},
	{"new-relic-insert-key", "New Relic insert key", "nrii-", lazyRE(`\bNRII-[A-Za-z0-9_-]{32}\b`), 0, ""},
	{"bitbucket-app-password", "Bitbucket app password", "atbb", lazyRE(`\bATBB[A-Za-z0-9_=.-]{28,40}\b`), 0, ""},
	{"pinecone-api-key", "Pinecone API key", "pcsk_", lazyRE(`\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{50,}`), 0, ""},
	{"gcp-oauth-access-token", "Google OAuth access token", "ya29.", lazyRE(`\bya29\.[A-Za-z0-9_-]{30,}`), 0, ""},
	{"gcp-oauth-refresh-token", "Google OAuth refresh token", "1//0", lazyRE(`(?:^|[^A-Za-z0-9/])(1//0[A-Za-z0-9_-]{40,})`), 1, ""},
	{"mattermost-webhook", "Mattermost webhook URL", "hooks/", lazyRE(`https?://[A-Za-z0-9.-]+(?::[0-9]+)?/hooks/([a-z0-9]{26})\b`), 1, ""},
	{"microsoft-teams-webhook", "Microsoft Teams webhook URL", "/incomingwebhook/", lazyRE(`https://[A-Za-z0-9.-]*office(?:365)?\.com/webhook(?:b2)?/[0-9a-f-]{36}@[0-9a-f-]{36}/IncomingWebhook/([0-9a-f]{32})/`), 1, ""},
	{"cloudfront-signed-url", "CloudFront signed URL", "signature=", lazyRE(`[?&]Signature=([A-Za-z0-9~_-]{40,})`), 1, "Key-Pair-Id="},
}

// findPrefixed finds the prefixed tokens of the line.
func findPrefixed(text, _ string, _ bool) []found {
	var out []found
	for _, p := range prefixedTokens {
		if !containsFold(text, p.keyword) {
			continue
		}
		if p.needs != "" && !strings.Contains(text, p.needs) {
			continue
		}
		for _, m := range p.re().FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2*p.group], m[2*p.group+1]
			v := text[s:e]
			if isPlaceholder(tokenBody(v)) || testToken(v) {
				continue
			}
			rule, what := providerRule(p.id)
			if !strings.HasPrefix(rule, "edit.secret.aws") && !strings.HasPrefix(rule, "edit.secret.gcp") && !strings.HasPrefix(rule, "edit.secret.azure") {
				what = p.what
			}
			out = append(out, found{Secret: Secret{Rule: rule, What: what, Masked: mask(v)}, start: s, end: e})
		}
	}
	return out
}

// prefixedKeywords are the keywords of findPrefixed.
func prefixedKeywords() []string {
	var ks []string
	for _, p := range prefixedTokens {
		ks = append(ks, p.keyword)
	}
	return ks
}

// tokenLike reports whether v looks generated rather than written: 16 or
// more characters, letters and digits both, and either both cases or
// many distinct characters (hex of 16 bytes and more).
func tokenLike(v string) bool {
	if len(v) < 16 {
		return false
	}
	var upper, lower, digit bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
		digit = digit || c >= '0' && c <= '9'
	}
	return digit && (upper || lower) && (upper && lower || len(v) >= 32) && entropy(v) >= 3.5
}

// entropy is the Shannon entropy of v's bytes, in bits.
func entropy(v string) float64 {
	var n [256]int
	for i := 0; i < len(v); i++ {
		n[v[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// strongKey reports whether v, assigned to a name whose last word is only
// "key" (key, apiKey's cousins config.key, 'key' =>), is a generated
// secret: a token that is not a hash, a UUID, a path or a dotted name.
func strongKey(v string) bool {
	if b, ok := strings.CutPrefix(v, "base64:"); ok {
		return len(b) >= 16 // Laravel's APP_KEY
	}
	if base64Key(v) {
		return true
	}
	if !tokenLike(v) || strings.ContainsAny(v, "/:. ") || hexOnly(strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")) || isUUID(v) {
		return false
	}
	return len(v) >= 20
}

func hexOnly(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if v[i] != '-' {
				return false
			}
		} else if !hexOnly(v[i : i+1]) {
			return false
		}
	}
	return true
}

// bearerToken is a literal token after Bearer, or after token in an
// Authorization header (GitHub's "Authorization: token ...").
var bearerToken = lazyRE(`(?i)(?:\bbearer|authorization["']?\s*[:=,]\s*["']?token)\s+([A-Za-z0-9._~+/=-]{16,})`)

// findBearer finds tokens written literally in an Authorization header.
func findBearer(text, _ string, _ bool) []found {
	var out []found
	for _, m := range bearerToken().FindAllStringSubmatchIndex(text, -1) {
		v := text[m[2]:m[3]]
		if !tokenLike(v) || isPlaceholder(v) || envName(v) {
			continue
		}
		out = append(out, found{Secret: Secret{Masked: mask(v)}, start: m[2], end: m[3]})
	}
	return out
}

// argPairs returns the spans of the values of a quoted name and a quoted
// value given as two arguments of a call, the value maybe wrapped in one
// more call: headers.Set("X-Api-Key", "..."), os.Setenv("GITHUB_TOKEN",
// "..."), ("x-api-key", HeaderValue::from_static("...")). It is
//
//	["']([A-Za-z][\w.-]*)["']\s*,\s*(?:[\w.:]+\(\s*)?["']([^"'\s]{8,})["']
//
// by hand, for the name's credential words first: most code lines hold
// a quote and a comma, few a credential's name.
func argPairs(text string) [][2]int {
	var out [][2]int
	for j := strings.IndexByte(text, ','); j >= 0; j = nextComma(text, j) {
		i := j
		for i > 0 && reBlank(text[i-1]) {
			i--
		}
		if i == 0 || text[i-1] != '"' && text[i-1] != '\'' {
			continue
		}
		i-- // the name's closing quote
		q := text[i]
		k := strings.LastIndexByte(text[:i], q)
		if k < 0 || k+1 >= i || !letter(text[k+1]) || !credentialName(text[k+1:i]) {
			continue
		}
		name := text[k+1 : i]
		if strings.IndexFunc(name, func(r rune) bool { return !(r < utf8.RuneSelf && identByte(byte(r))) }) >= 0 {
			continue
		}
		v := skipBlanks(text, j+1)
		w := v
		for w < len(text) && (identByte(text[w]) || text[w] == ':') {
			w++
		}
		if w > v && w < len(text) && text[w] == '(' {
			v = skipBlanks(text, w+1)
		}
		if v >= len(text) || text[v] != '"' && text[v] != '\'' {
			continue
		}
		e := v + 1
		for e < len(text) && text[e] != '"' && text[e] != '\'' && !reBlank(text[e]) {
			e++
		}
		if e < len(text) && text[e] == text[v] && e-v-1 >= 8 {
			out = append(out, [2]int{v + 1, e})
		}
	}
	return out
}

// nameValue is a name and a value given as two fields, on one line or two
// (a Kubernetes container's env, an ECS task's environment):
// name: DB_PASSWORD / value: "...", {"name": "API_TOKEN", "value": "..."}.
var (
	nameField  = lazyRE(`^\s*-?\s*["']?name["']?\s*:\s*["']?([A-Za-z][\w.-]*)["']?\s*(?:,|$)`)
	valueField = lazyRE(`^\s*["']?value["']?\s*:\s*["']?([^"'\s]{4,})["']?\s*[,}]?\s*$`)
	jsonPair   = lazyRE(`["']name["']\s*:\s*["']([A-Za-z][\w.-]*)["']\s*,\s*["']value["']\s*:\s*["']([^"'\s]{4,})["']`)
)

// wordy reports whether v is letters and word separators only.
func wordy(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !letter(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// nextComma returns the index of the first ',' after i, or -1.
func nextComma(text string, i int) int {
	j := strings.IndexByte(text[i+1:], ',')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// findPairs finds credentials given as a name and a value in two fields.
func findPairs(text, next string, _ bool) []found {
	var out []found
	add := func(name string, s, e int, v string) {
		if credentialName(name) && literal(v) && !ownName(name, v) && !overlaps(out, s, e) {
			out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: e})
		}
	}
	for _, sp := range argPairs(text) {
		// In code, a word is more often a message than a password.
		if v := text[sp[0]:sp[1]]; !wordy(v) {
			add("token", sp[0], sp[1], v)
		}
	}
	if strings.Contains(text, `"name"`) || strings.Contains(text, `'name'`) {
		for _, m := range jsonPair().FindAllStringSubmatchIndex(text, -1) {
			add(text[m[2]:m[3]], m[4], m[5], text[m[4]:m[5]])
		}
	}
	if next != "" && containsFold(next, "value") {
		if m := nameField().FindStringSubmatchIndex(text); m != nil {
			if v := valueField().FindStringSubmatch(next); v != nil {
				// The value is on the next line; the name's line holds the
				// finding.
				add(text[m[2]:m[3]], m[2], m[3], v[1])
			}
		}
	}
	return out
}

// spacedAssign is a variable set with a blank, not '=', between name and
// value: Dockerfile's ENV NAME value and ARG, fish's set -gx NAME value,
// csh's setenv NAME value.
var spacedAssign = lazyRE(`^[ \t]*(?:(?:ENV|ARG|setenv)[ \t]+|set[ \t]+(?:-[a-zA-Z]+[ \t]+)+)([A-Za-z_][A-Za-z0-9_]*)\s+["']?([^\s"'=]{4,})["']?\s*$`)

// spacedMay reports whether the line starts as spacedAssign does.
func spacedMay(text string) bool {
	t := strings.TrimLeft(text, " \t")
	return strings.HasPrefix(t, "ENV") || strings.HasPrefix(t, "ARG") || strings.HasPrefix(t, "set")
}

func findSpaced(text, _ string, _ bool) []found {
	m := spacedAssign().FindStringSubmatchIndex(text)
	if m == nil || !credentialName(text[m[2]:m[3]]) || !literal(text[m[4]:m[5]]) {
		return nil
	}
	return []found{{Secret: Secret{Masked: mask(text[m[4]:m[5]])}, start: m[4], end: m[5]}}
}

// Credentials in a file's or a tool's own syntax.
var (
	// goDSN is the Go MySQL driver's DSN, user:password@tcp(host)/db.
	goDSN = lazyRE(`\b[\w.-]+:([^@\s:/'"]{4,})@(?:tcp|unix)\(`)
	// loginPassword is a registry login's -p or --password with its value.
	loginPassword = lazyRE(`\b(?:docker|podman|buildah|nerdctl|skopeo|helm|oras|crane|regctl)\b[^|;&\n]*?\blogin\b[^|;&\n]*?\s(?:-p|--password)(?:\s+|=)['"]?([^\s'"$]{4,})`)
)

func findSyntax(text, next string, _ bool) []found {
	var out []found
	if strings.Contains(text, "@tcp(") || strings.Contains(text, "@unix(") {
		for _, m := range goDSN().FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; literal(v) {
				out = append(out, found{Secret: Secret{Masked: mask(v)}, start: m[2], end: m[3]})
			}
		}
	}
	if strings.Contains(text, "login") {
		for _, m := range loginPassword().FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; literal(v) {
				out = append(out, found{Secret: Secret{Masked: mask(v)}, start: m[2], end: m[3]})
			}
		}
	}
	// PuTTY's key file: the private part follows its Private-Lines header.
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "Private-Lines:") && keyMaterial().MatchString(next) && !isPlaceholder(next) {
		out = append(out, found{Secret: Secret{Masked: mask(strings.TrimSpace(next))}, start: 0, end: len(text)})
	}
	return out
}

// keyFile reports whether the file at name holds a key and nothing else,
// so that a line that is one token is the key: Rails' master.key, a .key,
// .secret or .token file.
func keyFile(name string) bool {
	base := strings.ToLower(path.Base(name))
	switch path.Ext(base) {
	case ".key", ".secret", ".token":
		return true
	}
	return false
}

// keyFileLine returns the secret of a line of a key file: its first line,
// when it is one generated token (a PEM file's body is the private key
// rule's).
func keyFileLine(text string, lineNo int) (Secret, bool) {
	if lineNo != 1 {
		return Secret{}, false
	}
	t := strings.TrimSpace(text)
	if !tokenLike(t) && !(len(t) >= 32 && hexOnly(t)) || strings.ContainsAny(t, " \t") || strings.HasPrefix(t, "-----") {
		return Secret{}, false
	}
	return Secret{Rule: RuleSecretAssignment, What: "key file", Line: lineNo, Masked: mask(t)}, true
}

// nested scans text derived from a line (the literals a concatenation
// joins, what a base64 value decodes to) as a line of its own, and
// reports what it finds at start:end of the line. The derived text is not
// derived from again.
func (f *scanFile) nested(lines []string, lineNo, start, end int, masked, how string) []found {
	if f.inner {
		return nil
	}
	f.inner = true
	defer func() { f.inner = false }()
	for i, l := range lines {
		next := ""
		if i+1 < len(lines) {
			next = lines[i+1]
		}
		if ss := f.scanLine(l, next, lineNo); len(ss) > 0 {
			s := ss[0]
			return []found{{Secret: Secret{Rule: s.Rule, What: s.What + ", " + how, Masked: mask(masked)}, start: start, end: end}}
		}
	}
	return nil
}

// base64Value is the value that ends a line when it is all base64,
// padded to whole groups, after ':', '=' or a blank, maybe quoted: the
// data of a Kubernetes Secret, a kubeconfig's client-key-data.
func base64Value(text string) (start, end int, ok bool) {
	e := len(text)
	for e > 0 && (reBlank(text[e-1]) || text[e-1] == ',') {
		e--
	}
	if e > 0 && (text[e-1] == '"' || text[e-1] == '\'') {
		e--
	}
	if e < 16 || !base64Byte(text[e-1]) && text[e-1] != '=' || !base64Byte(text[e-16]) {
		return 0, 0, false
	}
	s := e
	for s > 0 && text[s-1] == '=' && e-s < 2 {
		s--
	}
	for s > 0 {
		c := text[s-1]
		if !(letter(c) || c >= '0' && c <= '9' || c == '+' || c == '/') {
			break
		}
		s--
	}
	if n := e - s; n < 16 || n%4 != 0 || s == 0 || strings.IndexByte(":= \t\"'", text[s-1]) < 0 {
		return 0, 0, false
	}
	return s, e, true
}

func base64Byte(c byte) bool {
	return letter(c) || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// decodedText returns what v decodes to as standard base64, when that is
// text (valid UTF-8 without control bytes but line ends and tabs).
func decodedText(v string) (string, bool) {
	if len(v) < 8 || len(v)%4 != 0 {
		return "", false
	}
	d, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !utf8.Valid(d) {
		return "", false
	}
	for _, c := range d {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return "", false
		}
	}
	return string(d), true
}

// ciphertext reports whether v is base64 of a long binary blob that is
// not DER (a private key's encoding): an encrypted value (a
// SealedSecret's), which is safe to commit.
func ciphertext(v string) bool {
	if sealedCiphertext(v) {
		return true
	}
	if len(v) < 172 || hexOnly(v) {
		return false
	}
	if pgpMessage(v) {
		return true
	}
	d, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		d, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	return err == nil && len(d) >= 128 && d[0] != 0x30 && !utf8.Valid(d)
}

// findBase64 scans what a base64 value decodes to.
func (f *scanFile) findBase64(text string, lineNo int) []found {
	s, e, ok := base64Value(text)
	if !ok {
		return nil
	}
	d, ok := decodedText(text[s:e])
	if !ok {
		return nil
	}
	return f.nested(strings.Split(strings.ReplaceAll(d, "\r", ""), "\n"), lineNo, s, e, text[s:e], "in base64")
}

// joinsOnly reports whether s, the text between two literals on a line,
// only joins them: a '+', or a ',' in the list of a join call (list),
// with blanks, '(' and '['.
func joinsOnly(s string, list bool) bool {
	op := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+':
			op = true
		case ',':
			op = op || list
		case ' ', '\t', '(', '[':
		default:
			return false
		}
	}
	return op
}

// concatenated returns the string literals a line joins (with +, or
// side by side as Python and C join them, or in a list given to join),
// with the first literal of the next line when the line ends inside such
// a join; and where the first literal starts. Only a join of 16 or more
// characters is built.
func concatenated(text, next string) (joined string, start int, ok bool) {
	var spans [8][2]int // the literals' contents: text's, then next's
	parts := 0
	list := strings.Contains(text, "join(")
	last := 0 // where the text after the last literal starts
	for i := 0; i < len(text) && parts < len(spans)-1; {
		q := text[i]
		if q != '"' && q != '\'' && q != '`' {
			i++
			continue
		}
		if parts > 0 && !joinsOnly(text[last:i], list) {
			// Something other than a join between two literals.
			if parts >= 2 {
				break
			}
			parts = 0
		}
		e := closing(text, i+1, q)
		if e >= len(text) {
			break
		}
		spans[parts] = [2]int{i + 1, e}
		parts++
		i = e + 1
		last = i
	}
	if parts == 0 {
		return "", 0, false
	}
	n := 0
	for _, sp := range spans[:parts] {
		n += sp[1] - sp[0]
	}
	var tail string
	if rest := strings.TrimSpace(text[last:]); rest == "" || rest == "+" || rest == "," || rest == "\\" {
		t := strings.TrimLeft(next, " \t+")
		if t != "" && (t[0] == '"' || t[0] == '\'') {
			if e := closing(t, 1, t[0]); e < len(t) {
				tail = t[1:e]
				n += len(tail)
				parts++
			}
		}
	}
	if parts < 2 || n < 16 {
		return "", 0, false
	}
	b := make([]byte, 0, n)
	for _, sp := range spans[:min(parts, len(spans))] {
		if sp == [2]int{} {
			break
		}
		b = append(b, text[sp[0]:sp[1]]...)
	}
	return string(append(b, tail...)), spans[0][0] - 1, true
}

// derived returns what the texts derived from a line hold: the literals
// it joins, the base64 value it decodes. Each is tried only when the
// line has its shape, which a byte loop checks first.
// The concatenation detector (keywords + and join() takes the lines that
// join literals with an operator or a call; derived the rest, lines that
// end with a literal the next line continues.
func (f *scanFile) derived(text, next string, lineNo int) []found {
	if f.inner {
		return nil
	}
	out := f.findBase64(text, lineNo)
	if len(text) >= 129 && text[len(text)-1] == ']' {
		out = append(out, findKeypair(text)...)
	}
	if lineNo == 1 && !f.code {
		out = append(out, f.findFirstLine(text)...) // secrets_domains.go
	}
	if len(text) > 0 && text[0] == '[' {
		out = append(out, findRelay(text)...)
	}
	if f.prev != "" {
		// A value the line before opens (secrets_domains.go).
		if openingEnds[f.prev[len(f.prev)-1]] {
			if last := opening(f.prev); last != 0 {
				if fs := f.findOpened(text, last); fs != nil {
					out = append(out, fs...)
				}
			}
		}
		out = append(out, f.findNextLineValue(text, lineNo)...)
		if afterNameShape(f.prev, text) {
			out = append(out, f.findAfterName(text, lineNo)...)
		}
	}
	if f.curl {
		out = append(out, f.findCurlUser(text)...)
	}
	if endsWithQuote(text) && startsWithQuote(next) && strings.IndexByte(text, '+') < 0 && !strings.Contains(text, "join(") {
		out = append(out, f.findConcat(text, next, lineNo)...)
	}
	return out
}

// startsWithQuote reports whether the line's first byte but blanks and
// '+' is a quote.
func startsWithQuote(text string) bool {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '+') {
		i++
	}
	return i < len(text) && (text[i] == '"' || text[i] == '\'')
}

// plusJoins reports whether a '+' of the line has a literal's quote before
// it or after it (or the line's end after it), past blanks: a join of
// literals, not arithmetic or a literal and a variable alone.
func plusJoins(text string) bool {
	for i := range places(text, "+") {
		j := i - 1
		for j >= 0 && (text[j] == ' ' || text[j] == '\t') {
			j--
		}
		k := skipSpace(text, i+1)
		if j >= 0 && (text[j] == '"' || text[j] == '\'') && (k == len(text) || text[k] == '"' || text[k] == '\'') {
			return true
		}
	}
	return false
}

// endsWithQuote reports whether the line's last byte but blanks is a
// quote.
func endsWithQuote(text string) bool {
	e := len(text)
	for e > 0 && (text[e-1] == ' ' || text[e-1] == '\t') {
		e--
	}
	return e > 0 && (text[e-1] == '"' || text[e-1] == '\'')
}

// findConcat scans the literals a line joins as one.
func (f *scanFile) findConcat(text, next string, lineNo int) []found {
	if f.inner || !plusJoins(text) && !strings.Contains(text, "join(") && !(endsWithQuote(text) && startsWithQuote(next)) {
		return nil
	}
	// A credential's name before the literals (secrets_forms.go).
	split := findSplitValues(text, next)
	j, s, ok := concatenated(text, next)
	if !ok {
		return split
	}
	return append(split, f.nested([]string{j}, lineNo, s, len(text), j, "joined from literals")...)
}

// syntaxDetectors run after the detectors of secrets.go.
var syntaxDetectors = []detector{
	// Each finding names its provider.
	{keywords: prefixedKeywords(), find: findPrefixed},
	{
		rule: RuleSecretAssignment, what: "token in an Authorization header",
		keywords: []string{"bearer", "authorization"},
		find:     findBearer,
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{`",`, `',`, `" ,`, `' ,`, "name:", `name"`, "name'"},
		find:     findPairsAndFields,
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"env ", "env\t", "arg ", "arg\t", "set ", "set\t"},
		may:      spacedMay,
		find:     findSpaced,
	},
	{keywords: []string{"+", "join("}, scan: (*scanFile).findConcat},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"@tcp(", "@unix(", "login", "private-lines:"},
		find:     findSyntax,
	},
	{
		// curl -u/--user USER:PW; on a line a curl command is continued
		// onto, derived asks.
		rule: RuleSecretAssignment, what: "password on a command line",
		keywords: []string{"curl"},
		scan:     func(f *scanFile, text, _ string, _ int) []found { return f.findCurlUser(text) },
	},
}

// pgpArmor reports whether the private key marker at loc is a PGP armour
// header standing alone on its line, which a blank line follows.
func pgpArmor(text string, loc []int, next string) bool {
	return strings.Contains(text[loc[0]:loc[1]], "PGP") && strings.TrimSpace(text) == text[loc[0]:loc[1]] && strings.TrimSpace(next) == ""
}

// idWords are the last words of names that hold an identifier, not a
// credential: HEROKU_APP_ID, datadog_site, sentry_org.
var idWords = map[string]bool{
	"id": true, "ids": true, "uuid": true, "guid": true, "name": true, "url": true, "uri": true, "host": true,
	"endpoint": true, "region": true, "user": true, "username": true, "email": true, "org": true,
	"project": true, "version": true, "site": true, "slug": true,
}

// namedNotSecret reports whether a gitleaks rule that finds a value by the
// provider's name near it (heroku ... = UUID) found it under a name that
// says it is an identifier. Rules that find a token by its own prefix
// are not asked.
func namedNotSecret(m secretrules.Match, text string) bool {
	for _, k := range m.Rule.Keywords {
		if len(m.Secret) >= len(k) && strings.EqualFold(m.Secret[:len(k)], k) {
			return false
		}
	}
	i := m.Start
	for i > 0 && strings.IndexByte(" \t'\"`=:>,", text[i-1]) >= 0 {
		i--
	}
	j := i
	for j > 0 && identByte(text[j-1]) {
		j--
	}
	words := splitWords(text[j:i])
	return len(words) > 0 && idWords[words[len(words)-1]] || algoliaSearchName(m, words)
}

// keyName reports whether a name's last word is only "key" (key,
// config.key, 'key' =>) or "pat": a credential when its value is
// generated (strongKey), a map key, a setting's name or a pattern
// otherwise.
func keyName(name string) bool {
	n := len(name)
	if n < 3 || name[n-1]|0x20 != 'y' && name[n-1]|0x20 != 't' || camelBreak(name[n-3:]) {
		return false
	}
	if strings.EqualFold(name[n-3:], "pat") {
		// A personal access token (GH_PAT), or a pattern in code (pat).
		return n == 3 || name[n-4] == '_' || name[n-4] == '-' || name[n-4] == '.' || name[n-3] == 'P' && name[n-4] >= 'a' && name[n-4] <= 'z'
	}
	if !strings.EqualFold(name[n-3:], "key") {
		return false
	}
	// The word before key, as splitWords splits: after '_', '-' or '.',
	// or a case change (apiKey); none when key is glued to a word.
	end := n - 3
	switch {
	case end == 0:
		return true
	case name[end-1] == '_' || name[end-1] == '-' || name[end-1] == '.':
		for end > 0 && (name[end-1] == '_' || name[end-1] == '-' || name[end-1] == '.') {
			end-- // splitWords drops the empty words between separators
		}
	case name[end] == 'K' && name[end-1] >= 'a' && name[end-1] <= 'z':
	default:
		return false
	}
	if end == 0 {
		return true
	}
	start := end - 1
	for start > 0 && name[start-1] != '_' && name[start-1] != '-' && name[start-1] != '.' &&
		!(name[start] >= 'A' && name[start] <= 'Z' && name[start-1] >= 'a' && name[start-1] <= 'z') {
		start--
	}
	for _, w := range notSecretKey {
		if strings.EqualFold(name[start:end], w) {
			return false
		}
	}
	return true
}

// camelBreak reports whether w has a lower-case letter followed by an
// upper-case one, where splitWords starts a word.
func camelBreak(w string) bool {
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// operatorNext reports whether an assignment operator (= : := =>)
// follows the name ending at i, after a closing quote or bracket and
// blanks: a weak name (keyName) takes no typed declaration, and most
// of its uses (key, value) are none.
func operatorNext(text string, i int) bool {
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	if i < len(text) && text[i] == ']' {
		i++
	}
	i = skipSpace(text, i)
	return i < len(text) && (text[i] == '=' || text[i] == ':')
}

// notSecretKey are words before "key" that make the name something other
// than a secret: a public key, a table's primary key, a cache key.
var notSecretKey = []string{
	"public", "pub", "primary", "foreign", "partition", "sort", "cache", "idempotency", "routing",
	"object", "map", "hash", "lookup", "unique", "index", "row", "dedup", "host",
}

// assignment reports whether the name at text[start:end] is one a value
// is assigned to, not a shell expansion (${NAME:?message}), a template's
// variable ({{ $pwd := ... }}) or a segment of a colon-separated path (arn:...:secret:...).
func assignment(text string, start, end int) bool {
	if start > 1 && text[start-2:start] == "${" {
		return false
	}
	if start > 0 && text[start-1] == '$' && strings.Contains(text, "{{") {
		return false // a template's variable: {{ $db_pwd := env "PWD" }}
	}
	return !(start > 0 && text[start-1] == ':' && end < len(text) && text[end] == ':' && (end+1 >= len(text) || text[end+1] != ' '))
}

// stringPrefix returns the length of a string literal's prefix at the
// start of s: Python's b, r, u, f, rb, br; C#'s @ and $.
func stringPrefix(s string) int {
	for n := 1; n <= 2 && n < len(s); n++ {
		if s[n] == '"' || s[n] == '\'' {
			for i := 0; i < n; i++ {
				if strings.IndexByte("bBrRuUfF@$", s[i]) < 0 {
					return 0
				}
			}
			return n
		}
	}
	return 0
}

// generated reports whether a dotted value (which reads as a reference,
// settings.SECRET) has a part that is a generated token: a Doppler
// dp.st.prd.<43>, a Discord bot token.
func generated(v string) bool {
	for part := range strings.SplitSeq(v, ".") {
		if len(part) >= 16 && tokenLike(part) || randomCase(part) {
			return true
		}
	}
	return false
}

// publishable reports whether lv, lowercased, is a key its provider
// publishes to browsers: Stripe's pk_live_/pk_test_, Mapbox's pk.eyJ.
func publishable(lv string) bool {
	return strings.HasPrefix(lv, "pk_live_") || strings.HasPrefix(lv, "pk_test_") || strings.HasPrefix(lv, "pk.eyj") ||
		strings.HasPrefix(lv, "phc_") || // PostHog's project key, sent from browsers
		datadogClientToken(lv)
}

// filePath reports whether v names a file rather than holding a value:
// /var/secrets/key.json, ./certs/app.key, ~/.config/token.
func filePath(v string) bool {
	switch {
	case strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"), strings.HasPrefix(v, "~/"):
		return true
	case strings.HasPrefix(v, "/"):
		// Not a generated secret that starts with a slash.
		return strings.Count(v, "/") >= 2 && !strings.ContainsAny(v, "+=") && !tokenLike(v)
	}
	return false
}

// decodedLiteral reports whether v, when it is base64 of text, decodes to
// a literal: the base64 of "changeme" or of "${TOKEN}" (a Kubernetes
// Secret's data) is a placeholder too. A value that does not decode to
// text is judged as it is.
func decodedLiteral(v string) bool {
	if len(v) < 12 || hexOnly(v) {
		return true
	}
	d, ok := decodedText(v)
	if !ok || strings.ContainsAny(d, "\n") {
		return true
	}
	return literal(d)
}
