package guardrail

import (
	"path"
	"strings"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// This file holds the readings held-out set 14 (data, ML and SaaS
// integrations, written blind) found missing, written as general readings
// of the files and calls those integrations use: a kaggle.json's key (32
// hex, which a name ending in key alone does not make a credential), the
// webhook URLs of Zapier and Make whose path is the secret, the
// EMAIL/token:TOKEN login Zendesk's API takes, the API key Freshdesk's
// takes as the user with X as the password (in a call or to curl -u), an
// Asana personal access token after Bearer; and Algolia's search-only key
// (public) under a name that says search. Each runs only on a line
// holding its keyword.

func init() { detectors = append(detectors, saasDetector) }

// saasDetector is one detector (one bit of the keyword pass) for this
// file's readings.
var saasDetector = detector{
	rule: RuleSecretAssignment, what: "literal credential of a SaaS integration",
	keywords: []string{"kaggle", `"key"`, "hooks.zapier.com/", "make.com/", "integromat.com/", "/token:", `"x")`, `'x')`, "curl", "bearer 1/", "bearer 2/"},
	scan:     func(f *scanFile, text, _ string, _ int) []found { return f.findSaaS(text) },
}

var (
	// A kaggle.json's "key": 32 hex, its quotes maybe escaped (the file
	// written by echo in a notebook's cell).
	kaggleKey = lazyRE(`\\?"key\\?"\s*:\s*\\?"([0-9a-f]{32})\\?"`)
	// Zapier's catch hook: the account's number and the hook's key.
	zapierHook = lazyRE(`hooks\.zapier\.com/hooks/catch/([0-9]{3,12})/([A-Za-z0-9]{5,16})\b`)
	// Make's (formerly Integromat's) webhook: 32 lower-case letters and
	// digits after the host.
	makeHook = lazyRE(`\bhook\.(?:[a-z0-9]+\.)?(?:make|integromat)\.com/([a-z0-9]{32})\b`)
	// Zendesk's API token login: the agent's email, /token, and the token.
	zendeskLogin = lazyRE(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+/token:([A-Za-z0-9]{20,})\b`)
	// Freshdesk's login: the API key as the user and X as the password.
	// The same login on curl's command line: -u KEY:X.
	freshdeskCurl = lazyRE(`(?:\s-u|\s--user)[ =]['"]?([A-Za-z0-9]{16,}):[Xx](?:['"]|\s|$)`)
	freshdeskAuth = lazyRE(`\(\s*["']([A-Za-z0-9]{16,})["']\s*,\s*(?:"[Xx]"|'[Xx]')\)`)
	// An Asana personal access token: 1/ or 2/, the user's (and the
	// app's) number, a colon and 32 hex.
	asanaPAT = lazyRE(`(?i)\bbearer ([12]/[0-9]{6,20}(?:/[0-9]{6,20})?:[0-9a-f]{32})\b`)
)

// findSaaS runs the readings whose keyword the line holds.
func (f *scanFile) findSaaS(text string) []found {
	var out []found
	if containsFold(text, "kaggle") || path.Base(f.path) == "kaggle.json" && strings.Contains(text, `"key"`) {
		out = appendSaaS(out, text, kaggleKey().FindAllStringSubmatchIndex(text, -1), 1)
	}
	if strings.Contains(text, "hooks.zapier.com/") {
		for _, m := range zapierHook().FindAllStringSubmatchIndex(text, -1) {
			if !sequence(text[m[2]:m[3]]) && !sequence(text[m[4]:m[5]]) {
				out = appendSaaS(out, text, [][]int{m}, 0)
			}
		}
	}
	if containsFold(text, "make.com/") || containsFold(text, "integromat.com/") {
		out = appendSaaS(out, text, makeHook().FindAllStringSubmatchIndex(text, -1), 0)
	}
	if strings.Contains(text, "/token:") {
		out = appendSaaS(out, text, zendeskLogin().FindAllStringSubmatchIndex(text, -1), 1)
	}
	if strings.Contains(text, `x")`) || strings.Contains(text, `x')`) || strings.Contains(text, `X")`) || strings.Contains(text, `X')`) {
		for _, m := range freshdeskAuth().FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; mixedToken(v) && !sequence(v) {
				out = appendSaaS(out, text, [][]int{m}, 1)
			}
		}
	}
	if containsFold(text, "curl") && (strings.Contains(text, ":X") || strings.Contains(text, ":x")) {
		for _, m := range freshdeskCurl().FindAllStringSubmatchIndex(text, -1) {
			if v := text[m[2]:m[3]]; mixedToken(v) && !sequence(v) {
				out = appendSaaS(out, text, [][]int{m}, 1)
			}
		}
	}
	if containsFold(text, "bearer ") {
		for _, m := range asanaPAT().FindAllStringSubmatchIndex(text, -1) {
			// The token's random part is its hex, after the colon.
			if v := text[m[2]:m[3]]; !literalRun(v[strings.LastIndexByte(v, ':')+1:]) {
				out = appendSaaS(out, text, [][]int{m}, 1)
			}
		}
	}
	return out
}

// appendSaaS appends the matches' group that is not a placeholder.
func appendSaaS(out []found, text string, ms [][]int, group int) []found {
	for _, m := range ms {
		s, e := m[2*group], m[2*group+1]
		v := text[s:e]
		if isPlaceholder(v) || literalRun(v) {
			continue
		}
		out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: e})
	}
	return out
}

// literalRun reports whether v is a run of one character (0000...).
func literalRun(v string) bool {
	return v != "" && strings.Count(v, v[:1]) == len(v)
}

// sequence reports whether v counts up a byte at a time (123456,
// abcdef), or is runs of four or more that do (abcdefghij1234567890, 9
// going on to 0), as documentation's examples do.
func sequence(v string) bool {
	if len(v) < 3 {
		return false
	}
	run := 1
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1]+1 || v[i-1] == '9' && v[i] == '0' {
			run++
			continue
		}
		if run < 4 {
			return false
		}
		run = 1
	}
	return run == len(v) || run >= 4
}

// algoliaSearchName reports whether gitleaks' algolia-api-key rule found
// a value under a name that says it is the search key (ALGOLIA_SEARCH_KEY,
// NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_KEY), which Algolia gives browsers.
func algoliaSearchName(m secretrules.Match, words []string) bool {
	if m.Rule.ID != "algolia-api-key" {
		return false
	}
	for _, w := range words {
		if w == "search" || w == "searchonly" {
			return true
		}
	}
	return false
}

// searchClientAssigned reports whether a line, in lower case, assigns its
// Algolia client to a name searchClient or search_client, as InstantSearch
// is given the search-only key (const searchClient = algoliasearch(...)).
func searchClientAssigned(lt string) bool {
	for _, n := range [...]string{"searchclient", "search_client"} {
		i := strings.Index(lt, n)
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(lt[i+len(n):], " \t")
		if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, ":=") {
			return true
		}
	}
	return false
}
