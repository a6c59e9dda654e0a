package guardrail

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the readings held-out set 12 (secrets as edits and
// languages carry them, written blind) found missing: a password under a
// name in another language (Passwort, contrasena, senha, mot_de_passe,
// parol; 密码, пароль, パスワード as a key), a credential's name and value
// as two elements with no operator between them (an Erlang or Elixir
// tuple {db_password, "..."}, an EDN map's :password "...", a Lisp's
// (def api-key "...")), a literal a decoding call takes under a key's
// name (Elixir's key: Base.decode64!("...")), and a value split over two
// lines (("abc"⏎"def"), "abc" +⏎"def", a URL's user: at the end of one
// literal and its password the next). It also holds what that set's
// look-alikes showed is text, not a credential: the words of a locale
// file (de.json's "password": "Passwort"), a value of letters of another
// script alone (Пароль), a prompt (set /p PW=Password:) and a masked echo
// (··········). Like every detector each runs only on a line with its
// keyword and checks bytes before anything else.

func init() { detectors = append(detectors, formsDetectors...) }

var formsDetectors = []detector{
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: foreignScriptNames,
		find:     func(text, _ string, _ bool) []found { return findForeignNames(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: elementPairKeywords(),
		find:     func(text, _ string, _ bool) []found { return findElementPairs(text) },
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"decode64", "decode32", "decode16", "frombase64string", "unhexlify", "hex2bin"},
		may:      func(text string) bool { return strings.ContainsAny(text, `"'`) },
		find:     func(text, _ string, _ bool) []found { return findDecodedKeys(text) },
	},
	{
		rule: RuleSecretURL, what: "password in a URL",
		keywords: []string{"://"},
		may: func(text string) bool {
			t := trimEnd(text)
			return strings.HasSuffix(t, `:"`) || strings.HasSuffix(t, ":'")
		},
		find: findSplitURLPasswords,
	},
}

// foreignScriptNames are the words for a password in other scripts that
// end a name: Chinese 密码 and 密碼, Japanese パスワード, Russian пароль
// and Пароль (by "ароль"), and contraseña, whose ñ no ASCII name holds.
// Each byte of theirs is a class of the keyword matcher's, which every
// line's scan pays for in the width of its table: the words are few.
var foreignScriptNames = []string{"密码", "密碼", "パスワード", "ароль", "contraseña"}

// credentialKeywords are the words one of which every name
// credentialName or keyName takes holds: the assignment detector's
// keywords, and those of this file's detectors that find a name and its
// value in shapes other than an assignment.
var credentialKeywords = append([]string{"pass", "pwd", "secret", "token", "key", "credential", "creds", "masterauth", "pat", "pw",
	"authtok", "authident", "hmac", "bearer"}, foreignNameKeywords...)

// foreignPasswordWords are words for a password in other languages that
// names are written with, as a name's last word: SMTP_PASSWORT,
// Kennwort, contrasena (contraseña without its tilde), db_senha, parol
// (пароль transliterated), MOT_DE_PASSE glued, wachtwoord. credentialWord
// takes them as a name's last word.
var foreignPasswordWords = []string{"passwort", "kennwort", "contrasena", "senha", "parol", "motdepasse", "wachtwoord"}

// findForeignNames finds a literal assigned to a name written in another
// script whose last word is a password's (数据库密码: ..., "пароль" = ...,
// contraseña: ...): the name runs from a blank, a quote or the line's
// start to the keyword, and the value after '=', ':' or a full-width '：'
// is judged as an assigned value is.
func findForeignNames(text string) []found {
	var out []found
	for _, kw := range foreignScriptNames {
		for k := range places(text, kw) {
			e := k + len(kw)
			if kw == "ароль" && k >= 2 && (text[k-2:k] == "П" || text[k-2:k] == "п") {
				k -= 2
			}
			if k > 0 && !nameStart(text[k-1]) && text[k-1] < utf8.RuneSelf {
				continue // inside an ASCII word: not a name of its own
			}
			i := e
			if i < len(text) && (text[i] == '"' || text[i] == '\'') {
				i++
			}
			i = skipSpace(text, i)
			switch {
			case strings.HasPrefix(text[i:], "："):
				i += len("：")
			case strings.HasPrefix(text[i:], "=>"), strings.HasPrefix(text[i:], ":="):
				i += 2
			case i < len(text) && (text[i] == '=' || text[i] == ':') && !strings.HasPrefix(text[i:], "=="):
				i++
			default:
				continue
			}
			i = skipSpace(text, i)
			if s, e, ok := valueAt(text, i); ok && secretLiteral(text[s:e]) {
				out = append(out, foundAt(text, s, e))
			}
		}
	}
	return out
}

// nameStart reports whether c, the byte before a name, can end what
// precedes one: a blank, a quote, a bracket, a separator.
func nameStart(c byte) bool {
	return strings.IndexByte(" \t\"'{[(,;.$_-", c) >= 0
}

// valueAt returns the value starting at i: a quoted literal's inside, or
// a bare word up to a blank, , or ;.
func valueAt(text string, i int) (s, e int, ok bool) {
	if i >= len(text) {
		return 0, 0, false
	}
	if q := text[i]; q == '"' || q == '\'' || q == '`' {
		e := closing(text, i+1, q)
		if e >= len(text) {
			return 0, 0, false
		}
		return i + 1, e, true
	}
	e = i
	for e < len(text) && strings.IndexByte(" \t,;", text[e]) < 0 {
		e++
	}
	for e > i && strings.IndexByte("})]", text[e-1]) >= 0 {
		e--
	}
	return i, e, e > i
}

// namedValue reports whether v, a literal given to name without an
// assignment's operator, is a credential: a credential's name and a
// literal of one word that is not a name, or a key's name and a
// generated value.
func namedValue(name, v string) bool {
	if credentialName(name) {
		return secretLiteral(v) && !ownName(name, v)
	}
	return keyName(name) && strongKey(v)
}

// elementPairKeywords are the ends of findElementPairs' shapes: every
// end of a name credentialName or keyName takes, followed by what comes
// between the name and its literal (password ", key, ", pass', ",
// token* ").
func elementPairKeywords() []string {
	var out []string
	for _, w := range append(credentialSuffixes, "key", "pat") {
		for _, sep := range []string{` "`, `, "`, `,"`, `', "`, `',"`, `* "`} {
			out = append(out, w+sep)
		}
	}
	return out
}

// findElementPairs finds a credential's name and value given as two
// elements: an Erlang or Elixir tuple ({db_password, "..."},
// {:api_key, "..."}), an EDN or Clojure map's keyword and value
// (:password "..."), and a Lisp's definition ((def api-key "..."),
// (setq openai-api-key "..."), (define token "...")).
func findElementPairs(text string) []found {
	var out []found
	n := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		if n++; n > 16 {
			break // a line of data
		}
		e := closing(text, i+1, '"')
		if e >= len(text) {
			break
		}
		if name, ok := elementName(text, i); ok && namedValue(name, text[i+1:e]) {
			out = append(out, foundAt(text, i+1, e))
		}
		i = e
	}
	return out
}

// elementName returns the name given as the element before the literal
// whose opening quote is at q, in one of findElementPairs' shapes: a
// tuple's name, its ',' and maybe a blank ({name, "), an EDN keyword or a
// Lisp's definition and a blank (:name ", (def name ").
func elementName(text string, q int) (string, bool) {
	j := q
	if j > 0 && text[j-1] == ' ' {
		j--
	}
	tuple := j > 0 && text[j-1] == ','
	if tuple {
		j--
	} else if j == q {
		return "", false // no blank between a keyword and its value
	}
	quoted := tuple && j > 0 && text[j-1] == '\'' // an Erlang atom in quotes
	if quoted {
		j--
	}
	earmuffs := !tuple && !quoted && j > 0 && text[j-1] == '*' // a Lisp's *special* variable
	if earmuffs {
		j--
	}
	e := j
	for j > 0 && identByte(text[j-1]) {
		j--
	}
	if j == e {
		return "", false
	}
	name := text[j:e]
	if earmuffs {
		if j == 0 || text[j-1] != '*' {
			return "", false
		}
		j--
	}
	if quoted {
		if j == 0 || text[j-1] != '\'' {
			return "", false
		}
		j--
	}
	if tuple {
		if j > 0 && text[j-1] == ':' {
			j-- // an Elixir atom
		}
		return name, j > 0 && text[j-1] == '{'
	}
	if j > 0 && text[j-1] == '/' {
		for j > 0 && (identByte(text[j-1]) || text[j-1] == '/') {
			j-- // a namespaced keyword: :stripe/secret-key
		}
		return name, j > 0 && text[j-1] == ':' && (j == 1 || strings.IndexByte(" \t{[,", text[j-2]) >= 0)
	}
	if j > 0 && text[j-1] == ':' {
		// An EDN keyword at a map's start or after another value.
		j--
		return name, j == 0 || strings.IndexByte(" \t{[,", text[j-1]) >= 0
	}
	// A Lisp's form, (def NAME "...") maybe with metadata before the
	// name ((def ^:private NAME "...")), or Tcl's and fish's set NAME
	// "..." opening a line.
	if j < 2 || text[j-1] != ' ' {
		return "", false
	}
	b := strings.TrimRight(text[:j], " ")
	if strings.TrimLeft(b, " \t") == "set" {
		return name, true
	}
	o := strings.LastIndexByte(b, '(')
	if o < 0 {
		return "", false
	}
	form, _, _ := strings.Cut(b[o+1:], " ")
	switch strings.ToLower(form) {
	case "def", "defonce", "defconst", "defvar", "defparameter", "defcustom", "setq", "setf", "setq-default", "define", "set!":
		return name, true
	}
	return "", false
}

// decodeCalls are the calls that decode a literal into the key a name
// holds: Elixir's Base.decode64!, Ruby's Base64.decode64, .NET's
// Convert.FromBase64String, Python's binascii.unhexlify, PHP's hex2bin.
var decodeCalls = []string{"decode64", "decode32", "decode16", "frombase64string", "unhexlify", "hex2bin"}

// findDecodedKeys finds a literal a decoding call takes when the call is
// assigned to a credential's or a key's name: key: Base.decode64!("..."),
// secret_key = Base64.decode64('...').
func findDecodedKeys(text string) []found {
	var out []found
	for _, call := range decodeCalls {
		for i := range placesFold(text, call) {
			p := i + len(call)
			if p < len(text) && text[p] == '!' {
				p++ // Elixir's raising form
			}
			if p >= len(text) || text[p] != '(' {
				continue
			}
			s := skipSpace(text, p+1)
			if s >= len(text) || text[s] != '"' && text[s] != '\'' {
				continue
			}
			e := closing(text, s+1, text[s])
			if e >= len(text) {
				continue
			}
			c := i
			for c > 0 && (identByte(text[c-1]) || text[c-1] == ':') {
				c--
			}
			if name, ok := assignedName(text[:c]); ok && namedValue(name, text[s+1:e]) {
				out = append(out, foundAt(text, s+1, e))
			}
		}
	}
	return out
}

// assignedName returns the name that text, what precedes a value on its
// line, ends with before an assignment's operator (NAME =, name:, "name"
// =>, NAME :=).
func assignedName(text string) (string, bool) {
	t := strings.TrimRight(text, " \t")
	n := len(t)
	switch {
	case strings.HasSuffix(t, ":="), strings.HasSuffix(t, "=>"):
		t = t[:n-2]
	case strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "=="), strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "::"):
		t = t[:n-1]
	default:
		return "", false
	}
	t = strings.TrimRight(t, " \t")
	if n := len(t); n > 1 && (t[n-1] == '\'' || t[n-1] == '"') {
		t = t[:n-1]
	}
	e := len(t)
	for e > 0 && identByte(t[e-1]) {
		e--
	}
	return t[e:], e < len(t)
}

// trimEnd returns text without the blanks (and a carriage return) that
// end it: strings.TrimRight's work without building its set per call.
func trimEnd(text string) string {
	e := len(text)
	for e > 0 && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
		e--
	}
	return text[:e]
}

// findSplitValues finds a literal assigned to a credential's name that a
// line starts and the next continues: ("abc"⏎"def"), "abc" +⏎"def",
// literals side by side as Python and C join them. findConcat, which
// scans the literals such lines join, asks it; the joined value is
// judged, and the part on this line is where it is found.
func findSplitValues(text, next string) []found {
	n := strings.TrimLeft(next, " \t")
	if n == "" || n[0] != '"' && n[0] != '\'' {
		return nil
	}
	ne := closing(n, 1, n[0])
	if ne >= len(n) || !splitTail(n[ne+1:]) {
		return nil
	}
	t := trimEnd(text)
	if s, ok := strings.CutSuffix(t, "+"); ok {
		t = trimEnd(s)
	}
	if t == "" || t[len(t)-1] != '"' && t[len(t)-1] != '\'' {
		return nil
	}
	q := t[len(t)-1]
	ve := len(t) - 1
	vs := strings.LastIndexByte(t[:ve], q)
	if vs < 0 || vs > 0 && t[vs-1] == '\\' {
		return nil
	}
	before := trimEnd(t[:vs])
	before = strings.TrimSuffix(before, "(")
	name, ok := assignedName(before)
	if !ok {
		return nil
	}
	v := t[vs+1:ve] + n[1:ne]
	if strings.ContainsAny(v, " \t") || !namedValue(name, v) {
		return nil
	}
	return []found{{Secret: Secret{Rule: RuleSecretAssignment, What: "literal credential", Masked: mask(v)}, start: vs + 1, end: ve}}
}

// splitTail reports whether rest, what follows the literal that
// continues a split value, ends it or joins it to more: ')', ',', ';',
// '+', '}', or nothing.
func splitTail(rest string) bool {
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.IndexByte("),;+}", rest[0]) >= 0
}

// findSplitURLPasswords finds a URL's password that a literal of its own
// holds, after one that ends with the URL's user and ':'
// ("postgresql://etl:"⏎"<password>"⏎"@host/db"): the next line's literal,
// a word that is no port, path or host.
func findSplitURLPasswords(text, next string, _ bool) []found {
	t := trimEnd(text)
	if !strings.HasSuffix(t, `:"`) && !strings.HasSuffix(t, ":'") {
		return nil
	}
	q := t[len(t)-1]
	u := strings.LastIndex(t, "://")
	if u < 0 || strings.IndexByte(t[u:len(t)-1], q) >= 0 {
		return nil
	}
	user := t[u+3 : len(t)-2]
	if user == "" || !userName(user) || strings.ContainsAny(user, "@.") {
		return nil // a host before its port: http://db.internal:
	}
	n := strings.TrimLeft(next, " \t")
	if n == "" || n[0] != q {
		return nil
	}
	ne := closing(n, 1, q)
	if ne >= len(n) {
		return nil
	}
	v := n[1:ne]
	if strings.ContainsAny(v, "/@:. \t") || !secretLiteral(v) {
		return nil
	}
	return []found{{Secret: Secret{Masked: mask(v)}, start: u, end: len(t)}}
}

// textLabel reports whether v, a value assigned to a credential's name,
// is text rather than a credential: letters of another script than
// Latin's alone (Пароль, パスワード, 确认密码, with blanks or '-'), the
// word password in another language (Passwort, Contraseña), a prompt of
// letters ending in ':' (Password:, Kennwort:), or the masked
// echo of one, a run of one character or of one \uXXXX escape
// (··········, \u00b7\u00b7...). runes is v's length in runes.
func textLabel(v string, runes int) bool {
	if runes == len(v) { // ASCII: most values, told apart by a byte
		switch {
		case v[len(v)-1] == ':':
			return len(v) > 4 && lettersOnly(v[:len(v)-1]) // a prompt: Password:
		case v[0] == '\\':
			return escapeRun(v)
		}
		return passwordWord(v)
	}
	if passwordWord(v) {
		return true
	}
	p := strings.TrimSuffix(v, ":")
	if first, _ := utf8.DecodeRuneInString(p); utf8.RuneCountInString(p) >= 4 && onlyRune(p, first) {
		return true // ••••••••
	}
	other := false
	for _, r := range p {
		switch {
		case r < utf8.RuneSelf:
			if r != ' ' && r != '-' {
				return false // Latin letters, digits, symbols: maybe a password
			}
		case unicode.Is(unicode.Latin, r):
			return false // ñ, ü: a Latin word, or a password with accents
		case unicode.IsLetter(r) || unicode.IsMark(r):
			other = true
		case unicode.IsPunct(r) || unicode.IsSpace(r):
		default:
			return false
		}
	}
	return other
}

// passwordWords are the word password in the languages applications
// are translated into most, as a translation gives it ("password":
// "Passwort"): the value names the field, as secretKey: api-key does.
var passwordWords = []string{"passwort", "kennwort", "contraseña", "contrasena", "senha", "wachtwoord", "parola",
	"hasło", "haslo", "salasana", "lösenord", "losenord", "passord", "adgangskode", "jelszó", "heslo", "geslo",
	"lozinka", "şifre", "sifre", "parool", "lykilorð"}

// passwordWordsByLen are passwordWords by their length in bytes, which
// their upper-case forms share: most values are told apart by it.
var passwordWordsByLen = func() (m [16][]string) {
	for _, w := range passwordWords {
		m[len(w)] = append(m[len(w)], w)
	}
	return m
}()

// passwordWord reports whether v is one of passwordWords, in any case.
func passwordWord(v string) bool {
	if len(v) >= len(passwordWordsByLen) {
		return false
	}
	for _, w := range passwordWordsByLen[len(v)] {
		if strings.EqualFold(v, w) {
			return true
		}
	}
	return false
}

// onlyRune reports whether s is r repeated.
func onlyRune(s string, r rune) bool {
	for _, c := range s {
		if c != r {
			return false
		}
	}
	return true
}

// escapeRun reports whether v is one \uXXXX escape repeated, four times
// or more, maybe ending with the line's \n: a JSON string of a masked
// echo ("\u00b7\u00b7\u00b7\u00b7\n").
func escapeRun(v string) bool {
	for _, esc := range []string{`\n`, `\r`} {
		v = strings.TrimSuffix(v, esc) // the line's end the echo printed
	}
	if len(v) < 24 || len(v)%6 != 0 || v[0] != '\\' || v[1] != 'u' {
		return false
	}
	for i := 6; i < len(v); i += 6 {
		if v[i:i+6] != v[:6] {
			return false
		}
	}
	return true
}

// localeFile reports whether name is a file of translated text: under a
// locales, i18n, l10n, lang or translations folder, or named for a
// language (de.json, zh-CN.yml, messages_fr.properties, app_es.arb), or
// a gettext catalogue.
func localeFile(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	// Under a locales folder, code is still code (a linter's lang/
	// package), but for the languages whose catalogues are code.
	ext := strings.ToLower(base[max(dot, 0):])
	if !sourceExts[ext] || ext == ".php" || ext == ".js" || ext == ".ts" {
		for _, dir := range localeDirs {
			if i := indexFold(name, dir); i >= 0 && (i == 0 || name[i-1] == '/') {
				return true
			}
		}
	}
	if dot < 0 {
		return false
	}
	switch strings.ToLower(base[dot:]) {
	case ".po", ".pot", ".arb", ".xliff", ".xlf", ".strings":
		return true
	case ".json", ".yml", ".yaml", ".properties", ".toml", ".js", ".ts":
	default:
		return false
	}
	stem := base[:dot]
	if len(stem) > 8 && strings.EqualFold(stem[:8], "messages") {
		stem = stem[9:] // messages_fr, messages.de
	}
	return len(stem) <= 7 && languageTag(strings.ToLower(stem))
}

// localeFile reports whether the file holds translated text, working it
// out when a finding first asks.
func (f *scanFile) localeFile() bool {
	if f.locale == 0 {
		f.locale = 1
		if localeFile(f.path) {
			f.locale = 2
		}
	}
	return f.locale == 2
}

// localeDirs are the folders of translated text, ending in '/'.
var localeDirs = []string{"locale/", "locales/", "i18n/", "l10n/", "lang/", "langs/", "translations/", "translation/", "intl/"}

// languageTag reports whether s is a language's tag: a language's
// two-letter code, maybe followed by '-' or '_' and a region or script
// (de, zh-cn, pt_br, zh-hans). Codes that are words a file is named for
// too (id, is, no, my, ca, db is none) are left out.
func languageTag(s string) bool {
	lang, region, _ := strings.Cut(strings.ReplaceAll(s, "_", "-"), "-")
	if !languageCodes[lang] {
		return false
	}
	return region == "" || (len(region) == 2 || len(region) == 4) && lettersOnly(region)
}

// languageCodes are the ISO 639-1 codes of the languages applications
// are commonly translated into.
var languageCodes = func() map[string]bool {
	m := map[string]bool{}
	for c := range strings.FieldsSeq("af ar az bg bn cs cy da de el en es et eu fa fi fr ga gl he hi hr hu hy " +
		"it ja ka kk km ko lo lt lv mn nb ne nl nn pl pt ro ru si sk sl sq sr sv sw ta te th tl tr uk ur uz vi zh") {
		m[c] = true
	}
	return m
}()

// localeText reports whether v, a value a locale file gives a
// credential's name, is a translation: letters of any script, with
// blanks and punctuation, and no digits.
func localeText(v string) bool {
	letters := 0
	for _, r := range v {
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			letters++
		case unicode.IsDigit(r):
			return false
		case r == ' ' || unicode.IsPunct(r):
		default:
			return false
		}
	}
	return letters >= 2
}

// foreignNameKeywords are the foreignPasswordWords the assignment
// detector's keywords do not already hold (as passwort holds pass).
var foreignNameKeywords = slices.DeleteFunc(slices.Clone(foreignPasswordWords), func(w string) bool {
	return strings.Contains(w, "pass")
})

// bareSubscript reports whether the name that ends at i, where text has
// a '}', is a hash's key written bare in braces (Perl's $ENV{TOKEN},
// $cfg{db_password}), not a template's or a shell's variable.
func bareSubscript(text string, i int) bool {
	j := i
	for j > 0 && identByte(text[j-1]) {
		j--
	}
	return j > 1 && text[j-1] == '{' && text[j-2] != '{' && text[j-2] != '$' && identByte(text[j-2])
}
