package guardrail

import (
	"iter"
	"strings"
)

// This file holds the secret detectors for the kinds held-out set 11
// (whole small files as an agent writes them, written blind) found unread:
// a key an API takes in a URL's query under appid (OpenWeather's
// ?q=...&appid=<32 hex>), which findQueryCredentials leaves alone because
// the name does not end in a credential's word; and the secrets web
// frameworks take by position or by a symbol (gorilla's
// sessions.NewCookieStore([]byte("...")), gin's cookie.NewStore, Express's
// cookieParser("..."), Sinatra's and Capistrano's set :session_secret,
// '...'), and Gradle's buildConfigField("String", "API_KEY", "\"...\"").
// Like every detector it
// runs only on a line with its keyword and checks bytes before anything
// else; a value counts only when literal does.

func init() { detectors = append(detectors, frameworkDetectors...) }

var frameworkDetectors = []detector{
	{
		rule: RuleSecretAssignment, what: "credential in a URL's query",
		keywords: []string{"appid="},
		may:      func(text string) bool { return strings.ContainsAny(text, "?&") },
		find:     func(text, _ string, _ bool) []found { return findAppIDKeys(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential given to an API that takes one",
		keywords: []string{"cookiestore(", "newstore(", "cookieparser("},
		may:      func(text string) bool { return strings.ContainsAny(text, `"'`+"`") },
		find:     func(text, _ string, _ bool) []found { return findCalls(text, sessionCalls) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"set :", "buildconfigfield(", "resvalue("},
		may:      func(text string) bool { return strings.ContainsAny(text, `"'`) },
		find:     func(text, _ string, _ bool) []found { return findNamedArgs(text) },
	},
}

// sessionCalls are the calls that take a session store's or a cookie
// signer's secret as their first argument.
var sessionCalls = []positionalCall{
	{"newcookiestore", argAt, 1}, {"cookie.newstore", argAt, 1}, {"cookieparser", argAt, 1},
	{"newfilesystemstore", argAt, 2},
}

// findCalls finds the literals calls takes by position, as findPositional
// does for its own list.
func findCalls(text string, calls []positionalCall) []found {
	var out []found
	n := 0
	for i := range places(text, "(") {
		if n++; n > 16 {
			break // a line of data, not of calls
		}
		c := i
		for c > 0 && identByte(text[c-1]) {
			c--
		}
		callee := strings.ToLower(text[c:i])
		args := callArgs(text, i)
		if len(args) == 0 {
			continue
		}
		for _, pc := range calls {
			if calleeIs(callee, pc.callee) {
				if f, ok := positionalArg(text, text[:c], args, pc); ok {
					out = append(out, f)
				}
				break
			}
		}
	}
	return out
}

// findNamedArgs finds a literal given under a credential's name as
// arguments: Ruby's set :name, '...' (Sinatra, Capistrano) and Gradle's
// buildConfigField("String", "NAME", "\"...\"") or resValue("string",
// "name", "\"...\""), whose value is a Java literal inside a string.
func findNamedArgs(text string) []found {
	var out []found
	for i := range placesFold(text, "set :") {
		if i > 0 && identByte(text[i-1]) {
			continue // reset :x, offset :y
		}
		s := i + len("set :")
		e := s
		for e < len(text) && identByte(text[e]) {
			e++
		}
		if e == s || !credentialName(text[s:e]) {
			continue
		}
		args := callArgs(text, e-1) // from the ',' on: the name's end stands for a '('
		if len(args) < 2 {
			continue
		}
		if vs, ve, bare, ok := argLiteral(text, args[1]); ok && bare && secretLiteral(text[vs:ve]) {
			out = append(out, foundAt(text, vs, ve))
		}
	}
	for _, call := range []string{"buildconfigfield(", "resvalue("} {
		for i := range placesFold(text, call) {
			args := callArgs(text, i+len(call)-1)
			if len(args) != 3 {
				continue
			}
			ns, ne, _, ok := argLiteral(text, args[1])
			if !ok || !credentialName(text[ns:ne]) {
				continue
			}
			a := strings.TrimSpace(text[args[2][0]:args[2][1]])
			inner, ok := strings.CutPrefix(a, `"\"`)
			if !ok {
				continue
			}
			if inner, ok = strings.CutSuffix(inner, `\""`); !ok || strings.ContainsAny(inner, `"\$`) {
				continue // not one literal: a template, ${...}
			}
			vs := strings.Index(text[args[2][0]:], `\"`) + args[2][0] + 2
			if secretLiteral(inner) {
				out = append(out, foundAt(text, vs, vs+len(inner)))
			}
		}
	}
	return out
}

// findAppIDKeys finds a generated key in a URL's query parameter appid
// (?appid=, &APPID=): 32 or more characters, hex or a token mixing
// letters and digits, in a URL (:// before it, or a path). An app's
// number or short public ID (appid=730, appid=wx1234...) is not one.
func findAppIDKeys(text string) []found {
	var out []found
	for i := 0; i+6 < len(text); i++ {
		if text[i] != '?' && text[i] != '&' || !strings.EqualFold(text[i+1:i+7], "appid=") {
			continue
		}
		s := i + 7
		e := s
		for e < len(text) && (wordByte(text[e]) || text[e] == '-') {
			e++
		}
		v := text[s:e]
		if len(v) < 32 || !(hexOnly(v) || tokenLike(v)) || !literal(v) {
			continue
		}
		if e < len(text) && !strings.ContainsRune("&#'\"` \t)<>\\,;]}", rune(text[e])) {
			continue // the value goes on: a path, a template, not one token
		}
		if !strings.Contains(text[:i], "://") && !pathBefore(text, i) {
			continue // not a URL's query
		}
		out = append(out, foundAt(text, s, e))
		i = e - 1
	}
	return out
}

// pathBefore reports whether the word that ends at i (back to a blank, a
// quote, a parenthesis or '=') is a path, /api/weather.
func pathBefore(text string, i int) bool {
	j := i
	for j > 0 && !strings.ContainsRune(" \t\"'`(=", rune(text[j-1])) {
		j--
	}
	return j < i && text[j] == '/'
}

// placesFold yields the indexes of sub, a lowercase ASCII word, in text in
// any case.
func placesFold(text, sub string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; ; {
			j := indexFold(text[i:], sub)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j + len(sub)
		}
	}
}

// kebabName reports whether v (after an @) is a name of lower-case words
// joined by hyphens, maybe numbered at the end: Vercel's reference to a
// secret it stores ("API_SECRET": "@api-secret"), not a password.
func kebabName(v string) bool {
	hyphen := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
		case c == '-' && i > 0 && v[i-1] != '-' && i+1 < len(v):
			hyphen = true
		case c >= '0' && c <= '9' && i > 0:
			for j := i; j < len(v); j++ {
				if v[j] < '0' || v[j] > '9' {
					return false // digits only end a name: api-secret-2
				}
			}
			return hyphen
		default:
			return false
		}
	}
	return hyphen && v[0] >= 'a' && v[0] <= 'z'
}
