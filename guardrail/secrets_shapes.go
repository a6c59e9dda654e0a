package guardrail

import (
	"encoding/base64"
	"strings"
	"sync"
)

// This file holds the readings for the kinds held-out set 9 found unread:
// provider credentials known by their shape alone, wherever they stand (a
// header, a URL, a log line, a fixture, a positional argument, a bare
// line), where no name says what they are. Each runs only on a line with
// one of its keywords (a token's prefix is its keyword) and checks bytes,
// with no regexp.

func init() { detectors = append(detectors, shapeDetectors...) }

var shapeDetectors = []detector{
	{keywords: shapeKeywords(), find: func(text, _ string, _ bool) []found { return findShapes(text) }},
	{
		rule: "edit.secret.discord-bot-token", what: "Discord bot token",
		keywords: discordKeywords(),
		find:     func(text, _ string, _ bool) []found { return findDiscordBotTokens(text) },
	},
	{
		// A Mailchimp API key: 32 hex digits, -us and its data center's
		// number.
		rule: "edit.secret.mailchimp-api-key", what: "Mailchimp API key",
		keywords: []string{"-us"},
		find:     func(text, _ string, _ bool) []found { return findMailchimpKeys(text) },
	},
	{
		// Client("AC...", "<auth token>"), Twilio.init("AC...", "..."): a
		// Twilio account SID and, as the next argument, its auth token.
		rule: "edit.secret.twilio-auth-token", what: "Twilio auth token",
		keywords: []string{`"ac`, `'ac`},
		find:     func(text, _ string, _ bool) []found { return findSIDTokenPairs(text) },
	},
	{
		// aws configure set aws_secret_access_key ..., wandb login ...: a
		// CLI told the credential as a word, after no = or :.
		rule: RuleSecretAssignment, what: "credential given to a CLI",
		keywords: []string{"configure set", "wandb"},
		find:     func(text, _ string, _ bool) []found { return findCLICredentials(text) },
	},
	{
		// Azure's subscription keys (32 hex digits): the APIM header
		// Ocp-Apim-Subscription-Key and query subscription-key=, and the
		// Speech SDK's SpeechConfig.FromSubscription("...", region).
		rule: RuleSecretAssignment, what: "Azure subscription key",
		keywords: []string{"subscription-key", "fromsubscription("},
		find:     func(text, _ string, _ bool) []found { return findSubscriptionKeys(text) },
	},
	{
		// cohere.Client("..."), MistralClient("..."), Client::new("..."):
		// a generated literal given first to an API client's constructor.
		rule: RuleSecretAssignment, what: "credential passed to an API client",
		keywords: []string{"client(", "clientv2(", "client::new(", "client.new("},
		find:     func(text, _ string, _ bool) []found { return findClientArgs(text) },
	},
}

// shapeToken is a provider token its prefix and body identify: the
// prefix (case as written), then min to max bytes of body, then a byte
// that cannot continue the body.
type shapeToken struct {
	id, what string
	prefix   string
	body     func(c byte) bool
	min, max int
	// check, if set, is a test the body must pass too.
	check func(body string) bool
	// notInBase64 marks a prefix short and plain enough to occur inside
	// base64 (EAA): the token must not follow '+' or '/'.
	notInBase64 bool
}

var shapeTokens = []shapeToken{
	{"openrouter-api-key", "OpenRouter API key", "sk-or-v1-", hexByte, 64, 64, nil, false},
	// DeepSeek's keys, and those of the gateways that copy OpenAI's form.
	{"deepseek-api-key", "API key (sk- and 32 hex digits)", "sk-", hexByte, 32, 32, nil, false},
	{"anthropic-oauth-token", "Anthropic OAuth token", "sk-ant-oat01-", urlSafeByte, 80, 120, nil, false},
	{"anthropic-oauth-token", "Anthropic OAuth token", "sk-ant-ort01-", urlSafeByte, 80, 120, nil, false},
	{"atlassian-api-token", "Atlassian API token", "ATATT3xFfGF0", atlassianByte, 150, 250, nil, false},
	{"atlassian-api-token", "Atlassian token", "ATCTT3xFfGN0", atlassianByte, 150, 250, nil, false},
	{"bitbucket-data-center-token", "Bitbucket Data Center token", "BBDC-", bbdcByte, 44, 44, mixedAlnum, false},
	{"aws-appsync-api-key", "AWS AppSync API key", "da2-", lowerAlnumByte, 26, 26, mixedAlnum, false},
	{"new-relic-user-api-key", "New Relic user key", "NRAK-", upperAlnumByte, 27, 27, mixedAlnum, false},
	{"tavily-api-key", "Tavily API key", "tvly-", alnumByte, 32, 32, mixedAlnum, false},
	{"tavily-api-key", "Tavily API key", "tvly-dev-", alnumByte, 32, 32, mixedAlnum, false},
	{"tavily-api-key", "Tavily API key", "tvly-prod-", alnumByte, 32, 32, mixedAlnum, false},
	{"contentful-management-token", "Contentful management token", "CFPAT-", urlSafeByte, 43, 43, mixedAlnum, false},
	// Notion's integration secrets before ntn_; secret_ starts names too,
	// which a body of letters and digits of this length is not.
	{"notion-api-token", "Notion integration secret", "secret_", alnumByte, 43, 43, mixedAlnum, false},
	{"figma-pat", "Figma token", "figd_", urlSafeByte, 38, 48, mixedAlnum, false},
	// Mailgun's keys in letters and digits (the hex ones have their rule).
	{"mailgun-private-api-token", "Mailgun API key", "key-", lowerAlnumByte, 32, 32, mixedAlnum, false},
	// Facebook's tokens after '=' in a query string (access_token=EAA...),
	// where the prefixed rule, wary of base64, does not look.
	{"facebook-access-token", "Facebook access token", "EAA", alnumByte, 100, 400, mixedAlnum, true},
	// OpenAI's keys of other lengths than gitleaks' rule takes, and the
	// sk-None- user keys: T3BlbkFJ (base64 of "OpenAI") is in each.
	{"openai-api-key", "OpenAI API key", "sk-proj-", urlSafeByte, 40, 300, openAIBody, false},
	{"openai-api-key", "OpenAI API key", "sk-svcacct-", urlSafeByte, 40, 300, openAIBody, false},
	{"openai-api-key", "OpenAI API key", "sk-admin-", urlSafeByte, 40, 300, openAIBody, false},
	{"openai-api-key", "OpenAI API key", "sk-None-", urlSafeByte, 40, 300, openAIBody, false},
	{"langfuse-secret-key", "Langfuse secret key", "sk-lf-", uuidByte, 36, 36, isUUID, false},
	{"firecrawl-api-key", "Firecrawl API key", "fc-", hexByte, 32, 32, mixedAlnum, false},
	{"elevenlabs-api-key", "API key (sk_ and 48 hex digits, ElevenLabs' form)", "sk_", hexByte, 48, 48, mixedAlnum, false},
	{"rootly-api-key", "Rootly API key", "rootly_", hexByte, 64, 64, mixedAlnum, false},
	{"besttime-api-key", "BestTime private key", "pri_", hexByte, 32, 32, mixedAlnum, false},
	// Stability's, Moonshot's and the like: sk- and 48 letters and digits.
	{"sk-api-key", "API key (sk- and 48 letters and digits)", "sk-", alnumByte, 48, 48, mixedAlnum, false},
	{"resend-api-key", "Resend API key", "re_", wordByte, 29, 60, resendBody, false},
	{"axiom-api-token", "Axiom token", "xaat-", uuidByte, 36, 36, isUUID, false},
	{"axiom-api-token", "Axiom token", "xapt-", uuidByte, 36, 36, isUUID, false},
	{"honeycomb-api-key", "Honeycomb key", "hcaik_", lowerAlnumByte, 58, 58, mixedAlnum, false},
	{"honeycomb-api-key", "Honeycomb key", "hcaic_", lowerAlnumByte, 58, 58, mixedAlnum, false},
	{"nuget-api-key", "NuGet API key", "oy2", lowerAlnumByte, 43, 43, mixedAlnum, false},
	{"brevo-smtp-key", "Brevo SMTP key", "xsmtpsib-", urlSafeByte, 81, 81, brevoBody, false},
	{"okta-api-token", "Okta API token", "SSWS ", urlSafeByte, 42, 42, oktaBody, false},
	{"plaid-access-token", "Plaid access token", "access-production-", uuidByte, 36, 36, isUUID, false},
	{"braintree-access-token", "Braintree access token", "access_token$production$", braintreeByte, 49, 49, braintreeBody, false},
	{"flutterwave-secret-key", "Flutterwave secret key", "FLWSECK-", flutterwaveByte, 34, 34, flutterwaveBody, false},
	{"clickup-api-token", "ClickUp token", "pk_", wordByte, 36, 48, clickUpBody, false},
	// Tencent Cloud's SecretId, read like AWS's and Alibaba's key IDs.
	{"tencent-cloud-secret-id", "Tencent Cloud SecretId", "AKID", alnumByte, 32, 32, mixedAlnum, false},
	{"launchdarkly-sdk-key", "LaunchDarkly SDK key", "sdk-", uuidByte, 36, 36, isUUID, false},
	{"launchdarkly-api-token", "LaunchDarkly API token", "api-", uuidByte, 36, 36, isUUID, false},
}

// shapeKeywords are the prefixes of shapeTokens, lowercase.
func shapeKeywords() []string {
	var ks []string
	for _, t := range shapeTokens {
		ks = append(ks, strings.ToLower(t.prefix))
	}
	return ks
}

// shapesByFirst lists, per byte, the shapeTokens whose prefix starts with
// it, in the table's order: findShapes passes over a line once.
var shapesByFirst = sync.OnceValue(func() *[256][]int {
	var by [256][]int
	for i, t := range shapeTokens {
		by[t.prefix[0]] = append(by[t.prefix[0]], i)
	}
	return &by
})

// findShapes finds the shapeTokens of a line.
func findShapes(text string) []found {
	by := shapesByFirst()
	var out []found
	for i := 0; i < len(text); i++ {
		if len(by[text[i]]) == 0 || i > 0 && (wordByte(text[i-1]) || text[i-1] == '-' || text[i-1] == '.') {
			continue // no prefix starts here, or inside a longer word: task-, ask-, monkey-
		}
		for _, n := range by[text[i]] {
			t := &shapeTokens[n]
			if !strings.HasPrefix(text[i:], t.prefix) || t.notInBase64 && i > 0 && (text[i-1] == '+' || text[i-1] == '/') {
				continue
			}
			s := i + len(t.prefix)
			e := s
			for e < len(text) && e-s <= t.max && t.body(text[e]) {
				e++
			}
			if e-s < t.min || e-s > t.max || e < len(text) && (wordByte(text[e]) || text[e] == '-') {
				continue
			}
			v := text[i:e]
			if t.check != nil && !t.check(text[s:e]) || isPlaceholder(tokenBody(v)) || testToken(v) {
				continue
			}
			rule, what := providerRule(t.id)
			if !strings.HasPrefix(rule, "edit.secret.aws") {
				what = t.what
			}
			out = append(out, found{Secret: Secret{Rule: rule, What: what, Masked: mask(v)}, start: i, end: e})
			i = e - 1
			break
		}
	}
	return out
}

func hexByte(c byte) bool        { return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f' }
func alnumByte(c byte) bool      { return letter(c) || c >= '0' && c <= '9' }
func urlSafeByte(c byte) bool    { return alnumByte(c) || c == '_' || c == '-' }
func atlassianByte(c byte) bool  { return urlSafeByte(c) || c == '=' }
func bbdcByte(c byte) bool       { return urlSafeByte(c) || c == '+' || c == '/' || c == '@' }
func lowerAlnumByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
func upperAlnumByte(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }
func uuidByte(c byte) bool       { return hexByte(c) || c == '-' }
func quoteByte(c byte) bool      { return c == '"' || c == '\'' }

// allBytes reports whether every byte of s is one ok takes.
func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// mixedAlnum reports whether s holds a letter and a digit: a generated
// body rather than a word.
func mixedAlnum(s string) bool {
	var l, d bool
	for i := 0; i < len(s); i++ {
		l = l || letter(s[i])
		d = d || s[i] >= '0' && s[i] <= '9'
	}
	return l && d
}

// openAIBody reports whether body, after an OpenAI key's prefix, holds
// T3BlbkFJ away from its ends, as OpenAI's keys do.
func openAIBody(body string) bool {
	i := strings.Index(body, "T3BlbkFJ")
	return i >= 16 && len(body)-i-8 >= 16
}

// resendBody reports whether body is a Resend key's: 8 letters and
// digits, '_', then 20 and more.
func resendBody(body string) bool {
	return len(body) > 29 && runOf(body, 0, alnumByte) == 8 && body[8] == '_' && mixedAlnum(body[9:])
}

// brevoBody is 64 hex digits, '-' and 16 letters and digits.
func brevoBody(body string) bool {
	return runOf(body, 0, hexByte) == 64 && body[64] == '-' && runOf(body, 65, alnumByte) == 81
}

// oktaBody is an Okta API token's: 00 and 40 more.
func oktaBody(body string) bool { return strings.HasPrefix(body, "00") && mixedAlnum(body) }

func braintreeByte(c byte) bool { return alnumByte(c) || c == '$' }

// braintreeBody is 16 letters and digits, '$' and 32 hex digits.
func braintreeBody(body string) bool {
	return runOf(body, 0, alnumByte) == 16 && body[16] == '$' && runOf(body, 17, hexByte) == 49
}

func flutterwaveByte(c byte) bool { return hexByte(c) || c == '-' || c == 'X' }

// flutterwaveBody is 32 hex digits and -X.
func flutterwaveBody(body string) bool { return runOf(body, 0, hexByte) == 32 && body[32:] == "-X" }

// clickUpBody is a ClickUp token's: the user's number, '_' and 32
// capitals and digits.
func clickUpBody(body string) bool {
	n := runOf(body, 0, func(c byte) bool { return c >= '0' && c <= '9' })
	return n >= 3 && len(body)-n == 33 && body[n] == '_' && runOf(body, n+1, upperAlnumByte) == len(body) && mixedAlnum(body[n+1:])
}

// runOf returns where the run of bytes in from i ends.
func runOf(text string, i int, in func(byte) bool) int {
	for i < len(text) && in(text[i]) {
		i++
	}
	return i
}

// discordKeywords are the first four characters a bot token can start
// with: the base64 of its bot's ID, a number of 17 to 20 digits, starts
// with the base64 of three digits, the first not 0.
func discordKeywords() []string {
	var ks []string
	for d := 100; d <= 999; d++ {
		ks = append(ks, strings.ToLower(base64.StdEncoding.EncodeToString([]byte{byte('0' + d/100), byte('0' + d/10%10), byte('0' + d%10)})))
	}
	return ks
}

// findDiscordBotTokens finds Discord bot tokens: the base64 of the bot's
// ID (17 to 20 digits), '.', six characters, '.', 27 to 38 more.
func findDiscordBotTokens(text string) []found {
	var out []found
	for i := 0; i+40 < len(text); i++ {
		if text[i] != 'M' && text[i] != 'N' && text[i] != 'O' || i > 0 && (base64Byte(text[i-1]) || text[i-1] == '-' || text[i-1] == '.') {
			continue
		}
		a := runOf(text, i, alnumByte)
		if a-i < 23 || a-i > 27 || a >= len(text) || text[a] != '.' {
			i = a
			continue
		}
		b := runOf(text, a+1, urlSafeByte)
		if b-a-1 != 6 || b >= len(text) || text[b] != '.' {
			i = a
			continue
		}
		e := runOf(text, b+1, urlSafeByte)
		if e-b-1 < 27 || e-b-1 > 38 || e < len(text) && (text[e] == '.' || text[e] == '=') {
			i = a
			continue
		}
		id, err := base64.RawStdEncoding.DecodeString(text[i:a])
		if err != nil || len(id) < 17 || len(id) > 20 || id[0] == '0' || strings.Trim(string(id), "0123456789") != "" || isPlaceholder(text[b+1:e]) {
			i = a
			continue
		}
		out = append(out, foundAt(text, i, e))
		i = e
	}
	return out
}

// findSIDTokenPairs finds a Twilio account SID (AC and 32 hex digits)
// written as a literal and followed, as the next argument, by a literal
// of 32 letters and digits: the account's auth token.
func findSIDTokenPairs(text string) []found {
	var out []found
	for i := range places(text, "AC") {
		if i == 0 || !quoteByte(text[i-1]) || i+35 > len(text) || runOf(text[:i+34], i+2, hexByte) != i+34 || text[i+34] != text[i-1] {
			continue
		}
		k := skipSpace(text, i+35)
		if k >= len(text) || text[k] != ',' {
			continue
		}
		k = skipSpace(text, k+1)
		e, v, ok := quotedAt(text, k)
		if !ok || len(v) != 32 || runOf(v, 0, alnumByte) != 32 || !mixedAlnum(v) || isPlaceholder(v) {
			continue
		}
		out = append(out, foundAt(text, k+1, e))
	}
	return out
}

// findClientArgs finds a generated literal (a token of 32 or more letters
// and digits, not hex with or without 0x, not a UUID) given as the first argument to a
// constructor whose name ends in Client or ClientV2: cohere.Client("..."),
// MistralClient("..."), Client::new("..."), Client.new('...').
func findClientArgs(text string) []found {
	var out []found
	for i := range places(text, "Client") {
		k := i + len("Client")
		if strings.HasPrefix(text[k:], "V2") {
			k += 2
		}
		switch {
		case strings.HasPrefix(text[k:], "::new("):
			k += len("::new(")
		case strings.HasPrefix(text[k:], ".new("):
			k += len(".new(")
		case strings.HasPrefix(text[k:], "("):
			k++
		default:
			continue
		}
		k = skipSpace(text, k)
		e, v, ok := quotedAt(text, k)
		if !ok || len(v) < 32 || runOf(v, 0, urlSafeByte) != len(v) || !tokenLike(v) || hexOnly(strings.TrimPrefix(v, "0x")) || isUUID(v) || !secretLiteral(v) {
			continue
		}
		out = append(out, foundAt(text, k+1, e))
	}
	return out
}

// skipInterpolation returns, when text[i] opens an interpolation in a
// URL's user (#{ENV["USER"]}, ${USER}, {user}), where it closes, so that
// the quotes inside it end nothing; else i.
func skipInterpolation(text string, i int) int {
	if text[i] != '{' || i == 0 || text[i-1] != '#' && text[i-1] != '$' && text[i-1] != '/' {
		return i
	}
	if j := strings.IndexByte(text[i:min(len(text), i+80)], '}'); j > 0 {
		return i + j
	}
	return i
}

// anonJWT reports whether v, a JSON Web Token, is a Supabase anon key: a
// token whose role is anon, which Supabase publishes to browsers.
func anonJWT(v string) bool {
	_, rest, _ := strings.Cut(v, ".")
	payload, _, _ := strings.Cut(rest, ".")
	p, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(payload, "="))
	return err == nil && (strings.Contains(string(p), `"role":"anon"`) || strings.Contains(string(p), `"role": "anon"`))
}

// datadogClientToken reports whether lv, lowercased, is a Datadog client
// token (pub and 32 hex digits), which browsers send (RUM, browser logs).
func datadogClientToken(lv string) bool {
	return len(lv) == 35 && strings.HasPrefix(lv, "pub") && runOf(lv, 3, hexByte) == 35
}

// findCLICredentials finds the value of aws configure set
// aws_secret_access_key (40 characters of base64) or aws_session_token
// (100 and more), and the key given to wandb login or wandb.login(key=)
// (40 hex digits).
func findCLICredentials(text string) []found {
	var out []found
	for i := range places(text, "configure set ") {
		k := skipSpace(text, i+len("configure set "))
		e := runOf(text, k, func(c byte) bool { return wordByte(c) || c == '.' })
		name := text[k:e]
		var short, long int
		switch {
		case strings.HasSuffix(name, "aws_secret_access_key"):
			short, long = 40, 40
		case strings.HasSuffix(name, "aws_session_token"):
			short, long = 100, 2000
		default:
			continue
		}
		if e == k || e == len(text) || text[e] != ' ' && text[e] != '\t' {
			continue
		}
		out = appendWord(out, text, skipSpace(text, e), short, long, func(c byte) bool { return base64Byte(c) || c == '=' })
	}
	for i := range places(text, "wandb") {
		k := i + len("wandb")
		switch {
		case strings.HasPrefix(text[k:], " login "):
			k = skipSpace(text, k+len(" login "))
			for strings.HasPrefix(text[k:], "--") { // --relogin, --host=URL
				k = skipSpace(text, runOf(text, k, func(c byte) bool { return c != ' ' && c != '\t' }))
			}
		case strings.HasPrefix(text[k:], ".login(key="):
			k += len(".login(key=")
			if k < len(text) && quoteByte(text[k]) {
				k++
			}
		default:
			continue
		}
		out = appendWord(out, text, k, 40, 40, hexByte)
	}
	return out
}

// appendWord appends the word of text at k, bytes in, when it is short to
// long bytes long, ends the word (a blank, a quote, the line's end or ')')
// and is not a placeholder.
func appendWord(out []found, text string, k, short, long int, in func(byte) bool) []found {
	e := runOf(text, k, in)
	if e-k < short || e-k > long || e < len(text) && strings.IndexByte(" \t'\");", text[e]) < 0 || !mixedAlnum(text[k:e]) || isPlaceholder(text[k:e]) {
		return out
	}
	return append(out, foundAt(text, k, e))
}

// findSubscriptionKeys finds the 32 letters and digits after
// subscription-key and a separator ("Ocp-Apim-Subscription-Key": "...",
// -H 'Ocp-Apim-Subscription-Key: ...', ?subscription-key=...), or given
// first to FromSubscription(.
func findSubscriptionKeys(text string) []found {
	lower := []byte(text)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	var out []found
	for _, name := range []string{"subscription-key", "fromsubscription("} {
		for i := range places(string(lower), name) {
			k := i + len(name)
			if name == "subscription-key" {
				if k < len(text) && quoteByte(text[k]) {
					k++
				}
				k = skipSpace(text, k)
				if k >= len(text) || text[k] != ':' && text[k] != '=' && text[k] != ',' {
					continue
				}
				k = skipSpace(text, k+1)
			}
			if k < len(text) && quoteByte(text[k]) {
				k++
			}
			e := runOf(text, k, alnumByte)
			if e-k != 32 || e < len(text) && (wordByte(text[e]) || text[e] == '-') || !mixedAlnum(text[k:e]) || isPlaceholder(text[k:e]) || overlaps(out, k, e) {
				continue
			}
			out = append(out, foundAt(text, k, e))
		}
	}
	return out
}

// findMailchimpKeys finds 32 hex digits, -us and one or two digits, a
// whole word.
func findMailchimpKeys(text string) []found {
	var out []found
	for i := range places(text, "-us") {
		s := i - 32
		d := runOf(text, i+3, func(c byte) bool { return c >= '0' && c <= '9' })
		if s < 0 || s > 0 && (wordByte(text[s-1]) || text[s-1] == '-') || runOf(text[:i], s, hexByte) != i ||
			d-i-3 < 1 || d-i-3 > 2 || d < len(text) && (wordByte(text[d]) || text[d] == '-') || !mixedAlnum(text[s:i]) || isPlaceholder(text[s:i]) {
			continue
		}
		out = append(out, foundAt(text, s, d))
	}
	return out
}
