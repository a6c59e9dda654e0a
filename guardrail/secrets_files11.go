package guardrail

import "strings"

// This file holds the secret detectors for the kinds held-out set 11
// (whole small files as an agent writes them, written blind) found unread:
// a key an API takes in a URL's query under appid (OpenWeather's
// ?q=...&appid=<32 hex>), which findQueryCredentials leaves alone because
// the name does not end in a credential's word. Like every detector it
// runs only on a line with its keyword and checks bytes before anything
// else; a value counts only when literal does.

func init() { detectors = append(detectors, filesDetectors11...) }

var filesDetectors11 = []detector{
	{
		rule: RuleSecretAssignment, what: "credential in a URL's query",
		keywords: []string{"appid="},
		may:      func(text string) bool { return strings.ContainsAny(text, "?&") },
		find:     func(text, _ string, _ bool) []found { return findAppIDKeys(text) },
	},
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
