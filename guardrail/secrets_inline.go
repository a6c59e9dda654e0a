package guardrail

import "strings"

// Credentials that held-out set 5 (testdata/edits/secrets-heldout5.txt)
// found outside the shapes the other finders read: a configuration
// embedded in a multi-line string of source code, a credential named in
// prose with its value in a code span, user:password under an auth name,
// and pgbouncer's userlist.txt. Each runs inside an existing detector's
// finder, behind a byte search, so no line pays a keyword of its own.

// bareCodeValue reports whether v, the rest of a line of source code after
// a credential's name and an assignment operator, is a literal password
// rather than an expression: a configuration file's line inside a
// multi-line string (password = OklUD^GfiZo*). It is one word of random
// case, and its parts between operator bytes are not all names and
// numbers: an empty part after the unary operators that may lead (a
// trailing '!' or '*') or a part starting with a digit and holding a
// letter (2ac) cannot be an expression.
func bareCodeValue(before, v string) bool {
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t' || v[len(v)-1] == '\r') {
		v = v[:len(v)-1]
	}
	if len(v) < 10 || strings.IndexByte(")];,\"'{`", v[len(v)-1]) >= 0 || strings.ContainsAny(v, " \t()[]{}\"'`,;<>$\\") ||
		!configLine(before) || !randomCase(v) {
		return false
	}
	body := strings.TrimRight(v, "=")
	if strings.IndexByte(body, '=') >= 0 {
		return false
	}
	expr := true
	// Unary operators may lead an expression: *out.Token, &cfg.Key, !ok.
	start := len(body) - len(strings.TrimLeft(body, "*&!-+~^"))
	for i := start; i <= len(body); i++ {
		if i < len(body) && !strings.ContainsRune("+-*/^%!~&|@#.:?", rune(body[i])) {
			continue
		}
		if !exprPart(body[start:i]) {
			expr = false
			break
		}
		start = i + 1
	}
	return !expr && literal(v)
}

// configLine reports whether before, a line up to an assigned value, is
// a configuration file's line: blanks, a name, blanks and '=' or ':'. A
// value further into a line (a query string joined from literals) is not
// read as one.
func configLine(before string) bool {
	t := strings.TrimRight(before, " \t")
	if t == "" || t[len(t)-1] != '=' && t[len(t)-1] != ':' {
		return false
	}
	t = strings.TrimRight(t[:len(t)-1], " \t")
	t = strings.TrimLeft(t, " \t")
	return t != "" && userName(t)
}

// exprPart reports whether p can stand between two operators of an
// expression: a name, or a number.
func exprPart(p string) bool {
	if p == "" {
		return false
	}
	if p[0] >= '0' && p[0] <= '9' {
		for i := 1; i < len(p); i++ {
			if letter(p[i]) && p[i]|0x20 != 'e' && p[i]|0x20 != 'x' && !(p[i]|0x20 >= 'a' && p[i]|0x20 <= 'f' && len(p) > 1 && p[1]|0x20 == 'x') {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(p); i++ {
		if !wordByte(p[i]) {
			return false
		}
	}
	return true
}

// findCodeSpans finds a credential named in prose with its value in a
// code span: "user `reporter` and password `P^NF1…`", "the token is
// `…`". The value is a word of random case or a token; a span that names
// a setting (`GITHUB_TOKEN`) or holds a placeholder is not one.
func findCodeSpans(text string) []found {
	var out []found
	for i := strings.IndexByte(text, '`'); i >= 0; {
		e := strings.IndexByte(text[i+1:], '`')
		if e < 0 {
			break
		}
		vs, ve := i+1, i+1+e
		if v := text[vs:ve]; len(v) >= 8 && i > 0 && (text[i-1] == ' ' || text[i-1] == ':') &&
			!strings.ContainsAny(v, " \t[](){}<>\\") && strings.IndexByte(strings.TrimRight(v, "="), '=') < 0 &&
			(randomCase(v) || tokenLike(v)) && !(reference(v) && !generated(v)) && spanNamed(text[:i]) && literal(v) {
			out = append(out, found{Secret: Secret{Masked: mask(v)}, start: vs, end: ve})
		}
		n := strings.IndexByte(text[ve+1:], '`')
		if n < 0 {
			break
		}
		i = ve + 1 + n
	}
	return out
}

// spanNamed reports whether before, the prose before a code span, ends
// with a credential's name: "password", "password:", "password is",
// "API token =".
func spanNamed(before string) bool {
	t := strings.TrimRight(before, " \t")
	t = strings.TrimRight(t, ":=")
	t = strings.TrimRight(t, " \t")
	for _, w := range []string{" is", " was", " of"} {
		if strings.HasSuffix(t, w) {
			t = strings.TrimRight(t[:len(t)-len(w)], " \t")
			break
		}
	}
	e := len(t)
	s := e
	for s > 0 && identByte(t[s-1]) {
		s--
	}
	if s == e {
		return false
	}
	switch strings.ToLower(t[s:e]) {
	case "pass", "key", "pat", "pw", "keys":
		return false // verbs and words of prose: pass `x` in the options
	}
	return credentialName(t[s:e])
}

// findAuthUserPass finds user:password as the value of an auth name
// (cloud.auth: "elastic:…", http_auth = "user:…", auth="…:…"), whose
// password part is a generated or random-case word.
func findAuthUserPass(text string) []found {
	var out []found
	for i := range places(text, "auth") {
		if i > 0 && letter(text[i-1]) {
			continue // oauth, OAuth: not an auth name
		}
		j := i + len("auth")
		if j < len(text) && (text[j] == '"' || text[j] == '\'') {
			j++
		}
		j = skipSpace(text, j)
		if j < len(text) && (text[j] == ':' || text[j] == '=') {
			j = skipSpace(text, j+1)
			if j < len(text) && (text[j] == '"' || text[j] == '\'') {
				j++
			}
			e := j
			for e < len(text) && !strings.ContainsRune(" \t\"',;)}", rune(text[e])) {
				e++
			}
			if c := strings.IndexByte(text[j:e], ':'); c > 0 && letter(text[j]) && userName(text[j:j+c]) {
				if pw := text[j+c+1 : e]; len(pw) >= 8 && !strings.ContainsAny(pw, ":\\=&") && !strings.HasPrefix(pw, "//") &&
					(randomCase(pw) || tokenLike(pw)) && literal(pw) {
					out = append(out, found{Secret: Secret{Masked: mask(pw)}, start: j + c + 1, end: e})
				}
			}
		}
	}
	return out
}

// userName reports whether u can be a user's name: letters, digits and
// ._@- only.
func userName(u string) bool {
	for i := 0; i < len(u); i++ {
		if !wordByte(u[i]) && !strings.ContainsRune(".@-", rune(u[i])) {
			return false
		}
	}
	return u != ""
}

// userlistLine returns the password of a line of pgbouncer's
// userlist.txt, "user" "password", unless it is a verifier (md5…,
// SCRAM-SHA-256$…).
func userlistLine(text string, lineNo int) (Secret, bool) {
	t := strings.TrimSpace(text)
	if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
		return Secret{}, false
	}
	fields := strings.Split(t[1:len(t)-1], `" "`)
	if len(fields) != 2 {
		return Secret{}, false
	}
	pw := fields[1]
	if strings.HasPrefix(pw, "SCRAM-SHA-256$") || len(pw) == 35 && strings.HasPrefix(pw, "md5") && hexOnly(pw[3:]) || !literal(pw) {
		return Secret{}, false
	}
	return Secret{Rule: RuleSecretAssignment, What: "password in pgbouncer's userlist.txt", Line: lineNo, Masked: mask(pw)}, true
}

// sealedCiphertext reports whether v is a Bitnami SealedSecret's
// encrypted value: base64 of a two-byte length (0x02 0x00, a 4096-bit
// RSA block) and the blocks, "AgA"…"AgD" and at least 100 characters.
func sealedCiphertext(v string) bool {
	return len(v) >= 100 && strings.HasPrefix(v, "Ag") && v[2] >= 'A' && v[2] <= 'D' && !strings.ContainsAny(v, " -_.")
}

// findDefine finds a credential defined by the C preprocessor, t a line
// from its '#' on and off where t starts in the line: #define API_KEY
// "...".
func findDefine(t string, off int) []found {
	rest, ok := strings.CutPrefix(t, "#define")
	if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return nil
	}
	rest = strings.TrimLeft(rest, " \t")
	n := 0
	for n < len(rest) && identByte(rest[n]) {
		n++
	}
	if n == 0 || !credentialName(rest[:n]) {
		return nil
	}
	v := strings.TrimLeft(rest[n:], " \t")
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	e := closing(v, 1, '"')
	if e >= len(v) || !literal(v[1:e]) || strings.ContainsAny(v[1:e], " \t") {
		return nil
	}
	vs := off + len(t) - len(v) + 1
	return []found{{Secret: Secret{Masked: mask(v[1:e])}, start: vs, end: vs + e - 1}}
}
