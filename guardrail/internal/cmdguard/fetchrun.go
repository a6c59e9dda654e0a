package cmdguard

import (
	"regexp"
	"strings"
	"sync"
)

// fetchAndRun reports whether interpreter code downloads code and runs
// what it got: it calls a network fetch (urlopen, requests.get, fetch,
// https.get, URI.open, LWP, file_get_contents of a URL, ...) and evaluates
// something other than a literal (exec(r.read()), eval(d), new
// Function(body)). That is curl URL | python3 written in the language
// itself: running a downloaded script (pkg.install).
func fetchAndRun(l *lang, src string) bool {
	m := fetchRunMarkers[l.name]
	if m.fetch == nil {
		return false
	}
	fetched := false
	for _, f := range m.fetch {
		if strings.Contains(src, f) {
			fetched = true
			break
		}
	}
	return fetched && fetchRunPatterns()[l.name].MatchString(blankStrings(src))
}

// fetchRunMarkers are, per language, the calls that fetch from the network.
var fetchRunMarkers = map[string]struct{ fetch []string }{
	"Python":     {[]string{"urlopen(", "requests.get(", "httpx.get(", "urlretrieve(", "urllib.request", "requests.request("}},
	"JavaScript": {[]string{"fetch(", "https.get(", "http.get(", "https.request(", "('https')", `("https")`, "('http')", `("http")`, "axios", "got("}},
	"Ruby":       {[]string{"open-uri", "URI.open", "Net::HTTP", "URI("}},
	"Perl":       {[]string{"LWP", "HTTP::Tiny", "get(\"http", "get('http"}},
	"PHP":        {[]string{"file_get_contents(\"http", "file_get_contents('http", "curl_exec("}},
}

// fetchRunPatterns match, in code whose strings are blanked, a call that
// evaluates a value that is not a literal.
var fetchRunPatterns = sync.OnceValue(func() map[string]*regexp.Regexp {
	re := regexp.MustCompile
	return map[string]*regexp.Regexp{
		"Python":     re(`\b(?:exec|eval)\(\s*[^'"\s)]`),
		"JavaScript": re("\\beval\\(\\s*[^'\"`\\s)]|\\bnew\\s+Function\\(|\\bFunction\\(\\s*[^'\"`\\s)]|\\bvm\\.run\\w*\\(|\\brunInThisContext\\("),
		"Ruby":       re(`\b(?:eval|instance_eval|class_eval)[\s(]\s*[^'"\s)]`),
		"Perl":       re(`\beval\s*\(?\s*(?:[$&]|[A-Za-z_][\w:]*\s*\()`),
		"PHP":        re(`\beval\(\s*[^'"\s)]`),
	}
})
