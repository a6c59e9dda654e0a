package proc

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Masked replaces a secret in diagnostics.
const Masked = "***"

var (
	// secretKey matches a name that says its value is a secret.
	secretKey = `(?i:[a-z0-9_.-]*(?:token|passw(?:or)?d|pwd|secret|api[_-]?key|access[_-]?key|private[_-]?key|auth|credential|cookie|session)[a-z0-9_.-]*)`
	// secretAssign matches NAME=value or NAME: value (flags, env
	// assignments, config lines inside a script) and keeps the name.
	secretAssign = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(` + secretKey + `\s*[=:]\s*)((?i:bearer|basic)\s+\S+|"[^"]*"|'[^']*'|[^\s&;|'"]+)`)
	})
	// secretFlag is a flag whose value is the next argument.
	secretFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^--?` + secretKey + `$`)
	})
	// urlUserinfo matches the user:password@ (or token@) of a URL.
	urlUserinfo = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)([^/\s:@]+)(?::([^/\s@]*))?@`)
	})
	// bearer matches an Authorization header's credentials.
	bearer = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]+`)
	})
)

// MaskArgv returns a copy of argv fit for logs and error messages: the values
// of secret-looking flags and assignments (--token=x, --password x,
// API_KEY=x, password: x), the password (or lone token) of URLs, and
// bearer credentials are replaced by [Masked]. It errs on the side of
// masking.
func MaskArgv(argv []string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if i > 0 && secretFlag().MatchString(argv[i-1]) && !strings.HasPrefix(a, "-") {
			out[i] = Masked
			continue
		}
		out[i] = MaskText(a)
	}
	return out
}

// MaskText masks secrets in one string the way [MaskArgv] masks each argument.
func MaskText(s string) string {
	userinfo := urlUserinfo()
	s = userinfo.ReplaceAllStringFunc(s, func(m string) string {
		sub := userinfo.FindStringSubmatch(m)
		if strings.Contains(m[len(sub[1]):], ":") {
			return sub[1] + sub[2] + ":" + Masked + "@"
		}
		return sub[1] + Masked + "@"
	})
	s = secretAssign().ReplaceAllString(s, "${1}"+Masked)
	return bearer().ReplaceAllString(s, "${1}"+Masked)
}
