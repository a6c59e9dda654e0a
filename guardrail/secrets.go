package guardrail

import (
	"encoding/base64"
	"iter"
	"math/bits"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// The secret rules; see "Edit rules" in the package documentation.
const (
	RuleSecretAWS        = "edit.secret.aws"
	RuleSecretGCP        = "edit.secret.gcp"
	RuleSecretAzure      = "edit.secret.azure"
	RuleSecretGitHub     = "edit.secret.github"
	RuleSecretGitLab     = "edit.secret.gitlab"
	RuleSecretSlack      = "edit.secret.slack"
	RuleSecretPrivateKey = "edit.secret.private-key"
	RuleSecretJWT        = "edit.secret.jwt"
	RuleSecretURL        = "edit.secret.url-credentials"
	RuleSecretBasicAuth  = "edit.secret.basic-auth"
	RuleSecretAssignment = "edit.secret.assignment"
)

// Secret is a credential found in text.
type Secret struct {
	// Rule is one of the RuleSecret constants.
	Rule string `json:"rule"`
	// What names the kind of credential for a person: "GitHub token".
	What string `json:"what"`
	// Line is the 1-based line the secret is on.
	Line int `json:"line"`
	// Masked is the offending part with all but its first few characters
	// (at most 4, never more than half) replaced by "***".
	Masked string `json:"masked"`
}

// ScanSecrets returns the credentials written literally in text, the
// content (or added lines) of the file at path, in line order. The path's
// extension decides how assignments are read: in source code (.go, .py,
// .ts, ...) only quoted values count, since an unquoted value is code; in
// configuration (.env, .yaml, .sh, ...) unquoted values count too.
//
// Placeholders are not secrets: empty values, ${VAR}, $VAR, %VAR%, {{...}},
// <...>, environment lookups, runs of one character, and values that say
// they are not real (containing "example", "dummy", "fake", "test",
// "changeme", "your", "xxx", "redacted", ...), such as AWS's documented
// AKIAIOSFODNN7EXAMPLE. The package documentation lists every rule with
// examples.
func ScanSecrets(path, text string) []Secret {
	return scanSecrets(path, func(yield func(Line) bool) {
		n := 0
		for l := range strings.SplitSeq(text, "\n") {
			n++
			if !yield(Line{Op: OpAdd, Text: strings.TrimSuffix(l, "\r"), NewLine: n}) {
				return
			}
		}
	})
}

// scanSecrets scans the added lines among lines (numbered by NewLine) of
// the file at name; the context lines among them are read only for what
// they say of the added lines after them.
func scanSecrets(name string, lines iter.Seq[Line]) []Secret {
	return scanSecretsBy(name, lines, (*scanFile).scanLine)
}

// scanSecretsBy is scanSecrets with scanLine as the scan of one line.
func scanSecretsBy(name string, lines iter.Seq[Line], scanLine func(f *scanFile, text, next string, lineNo int) []Secret) []Secret {
	var out []Secret
	f := &scanFile{path: name, code: sourceExts[strings.ToLower(path.Ext(name))]}
	f.providers = secretrules.Default().File(name)
	pgpass := path.Base(name) == ".pgpass" || path.Base(name) == "pgpass.conf"
	userlist := path.Base(name) == "userlist.txt" // pgbouncer's
	keyfile := keyFile(name)
	secretsfile := secretsFile(name) // pppd's, davfs2's, curl's
	// Each line is scanned when the one after it is known: the next line
	// in the file, when it is there, may hold a private key's body.
	var beforeText string // the line scanned last, and its number
	beforeNo := 0
	var kube *kubeSecrets
	if yamlFile(name) {
		kube = &kubeSecrets{dataIndent: -1}
	}
	var kubeFound []Secret // and the other per-file readers'
	tf := tfVariablesOf(name)
	// pem says the lines are inside a private key whose BEGIN line is a
	// context line: an edit that replaces its body alone (keyBody).
	var pem keyBody
	scan := func(l Line, after *Line) {
		// A context line is not written by the change, but says what the
		// added lines after it are: a key whose value an edit replaces
		// alone, the Secret manifest a data value is in. It is read for
		// that, and its own findings dropped.
		context := l.Op != OpAdd
		if tf != nil {
			if s := tf.line(l.Text, l.NewLine); !context {
				kubeFound = append(kubeFound, s...)
			}
		}
		if kube != nil {
			if l.NewLine != beforeNo+1 {
				*kube = kubeSecrets{dataIndent: -1} // lines apart: another hunk
			}
			if s := kube.line(l.Text, l.NewLine); !context {
				kubeFound = append(kubeFound, s...)
			}
		}
		// What the lines before say of this one: a key whose value is on
		// this line, a curl command this line continues.
		if beforeNo == l.NewLine-1 && beforeNo > 0 {
			f.prev2, f.prev = f.prev, beforeText
			f.curl = continues(beforeText) && (f.curl || strings.Contains(beforeText, "curl"))
		} else {
			f.prev, f.prev2, f.curl = "", "", false
		}
		if context || pem.in {
			if s, ok := pem.line(l.Text, l.NewLine, context, beforeNo == l.NewLine-1 && beforeNo > 0); ok {
				out = append(out, s)
			}
		}
		beforeText, beforeNo = l.Text, l.NewLine
		if context || len(l.Text) < 8 {
			return
		}
		if pgpass {
			if s, ok := pgpassLine(l.Text, l.NewLine); ok {
				out = append(out, s)
				return
			}
		}
		if userlist {
			if s, ok := userlistLine(l.Text, l.NewLine); ok {
				out = append(out, s)
				return
			}
		}
		if secretsfile {
			if s, ok := secretsFileLine(name, l.Text, l.NewLine); ok {
				out = append(out, s)
				return
			}
		}
		if keyfile {
			if s, ok := keyFileLine(l.Text, l.NewLine); ok {
				out = append(out, s)
				return
			}
		}
		var next string
		if after != nil && after.Op == OpAdd && after.NewLine == l.NewLine+1 {
			next = after.Text
		}
		out = append(out, scanLine(f, l.Text, next, l.NewLine)...)
	}
	var prev Line
	have := false
	for l := range lines {
		if have {
			scan(prev, &l)
		}
		prev, have = l, true
	}
	if have {
		scan(prev, nil)
	}
	if len(kubeFound) > 0 {
		out = mergeLines(out, kubeFound)
	}
	return out
}

// keyBody finds the body of a private key added under a BEGIN line that
// is already in the file (a context line of the diff): an edit that
// replaces a placeholder body, or the whole body, alone. The scan of an
// added BEGIN line finds the others.
type keyBody struct {
	in, found bool // inside such a key; its body already reported
}

// line reads the next line of the new side (context says it is a context
// line, adjacent that it follows the last one read) and returns the
// secret it adds. Only context lines, and any line while in is set, need
// to be read.
func (k *keyBody) line(text string, lineNo int, context, adjacent bool) (Secret, bool) {
	if !adjacent {
		k.in = false
	}
	if !context && !k.in {
		return Secret{}, false
	}
	if strings.Contains(text, "PRIVATE KEY") && strings.Contains(text, "-----") {
		k.in = context && privateKey().MatchString(text)
		k.found = false
		return Secret{}, false
	}
	if context || k.found {
		return Secret{}, false
	}
	m := keyMaterial().FindString(text)
	if m == "" || isPlaceholder(m) || strings.Contains(text, "...") {
		return Secret{}, false
	}
	k.found = true
	return Secret{Rule: RuleSecretPrivateKey, What: "private key", Line: lineNo, Masked: mask(m)}, true
}

// mergeLines returns the secrets of out and more in line order, but for
// those of more on a line out already has one on.
func mergeLines(out, more []Secret) []Secret {
	for _, s := range more {
		if !slices.ContainsFunc(out, func(o Secret) bool { return o.Line == s.Line }) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b Secret) int { return a.Line - b.Line })
	return out
}

// startsWithCredentialWord reports whether line, after blanks, starts with
// one of the words lineCredential takes.
func startsWithCredentialWord(line string) bool {
	t := strings.TrimLeft(line, " \t")
	for _, w := range lineCredentialWords {
		if len(t) > len(w) && strings.EqualFold(t[:len(w)], w) && (t[len(w)] == ' ' || t[len(w)] == '\t') {
			return true
		}
	}
	return false
}

// containsFold reports whether s holds sub, a lowercase ASCII word, in any
// case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i]|0x20 == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// pgpassLine returns the password of a .pgpass line,
// host:port:database:user:password.
func pgpassLine(text string, lineNo int) (Secret, bool) {
	if strings.HasPrefix(strings.TrimSpace(text), "#") {
		return Secret{}, false
	}
	fields := strings.Split(text, ":")
	if len(fields) < 5 {
		return Secret{}, false
	}
	pw := strings.Join(fields[4:], ":")
	if !literal(pw) {
		return Secret{}, false
	}
	return Secret{Rule: RuleSecretAssignment, What: "password in a .pgpass file", Line: lineNo, Masked: mask(pw)}, true
}

// scanFile is what the scan of one file knows of it.
type scanFile struct {
	path string
	// code says the file is source code, where assigned values count only
	// when quoted.
	code bool
	// providers are gitleaks' rules for the file: none when its allowlist
	// exempts the file (lock files, vendored trees, ...).
	providers *secretrules.File
	// inner is set while a text derived from a line is scanned.
	inner bool
	// prev is the line before the one scanned, when it is the line before
	// it in the file; curl says the lines before it are a curl command
	// continued with a backslash onto it.
	prev string
	curl bool
	// prev2 is the line before prev, when prev is there: a function's
	// header when prev is only its opening brace.
	prev2 string
	// locale says whether the file holds translated text, whose values
	// under a credential's name are its words (secrets_forms.go): 0
	// until a finding asks, then 1 for no, 2 for yes.
	locale uint8
}

// found is a secret with its byte span in the line, for deduplication.
type found struct {
	Secret
	start, end int
}

// scanLine returns the secrets on one line; next is the following line when
// it is part of the same text (a private key's body).
func (f *scanFile) scanLine(text, next string, lineNo int) []Secret {
	// One pass finds the keywords of gitleaks' rules and of the detectors.
	t := triggers()
	var small [4]uint64
	hits := small[:]
	if t.words > len(small) {
		hits = make([]uint64, t.words)
	}
	var run uint64 // the detectors whose keywords the line holds
	// Where the keywords of names that hold credentials end: only the
	// names around them need judging, rather than every name on the line.
	var at [8]int
	names := at[:0]
	t.kw.Scan(text, func(gs []uint16, end int) {
		for _, g := range gs {
			if int(g) < t.rules {
				hits[g/64] |= 1 << (g % 64)
				continue
			}
			run |= 1 << (int(g) - t.rules)
			if int(g) == t.names && names != nil && (len(names) == 0 || names[len(names)-1] != end) {
				if len(names) == cap(names) {
					names = nil // too many to note: every name is judged
				} else {
					names = append(names, end)
				}
			}
		}
	})
	return f.judge(text, next, lineNo, hits, run, names, true)
}

// judge returns the secrets on one line: those gitleaks' rules whose bits
// hits holds find (numbered as [secretrules.Set.Keywords]), and those the
// detectors whose bits run holds find, each detector asked first through
// its may filter when filtered; the assignment detector judges the names
// around names, where its keywords end, or every name when names is nil.
// scanLine passes what the keywords pick; the differential test every
// rule whose keyword the line holds by strings.Contains, and every
// detector unfiltered over every name.
func (f *scanFile) judge(text, next string, lineNo int, hits []uint64, run uint64, names []int, filtered bool) []Secret {
	var fs []found
	file := f
	add := func(f found) {
		if f.Rule == RuleSecretAssignment && file.localeFile() && localeText(text[f.start:f.end]) {
			return // "password": "Passwort" in de.json
		}
		if !overlaps(fs, f.start, f.end) {
			f.Line = lineNo
			fs = append(fs, f)
		}
	}
	// The detectors whose bits run holds, in order: most lines wake few.
	for r := run | triggers().providers; r != 0; r &= r - 1 {
		i := bits.TrailingZeros64(r)
		if i >= len(detectors) {
			break
		}
		d := &detectors[i] // not a copy of it per line
		if d.providers {
			providerSecrets(f.providers, text, hits, add)
			continue
		}
		if filtered && d.may != nil && !d.may(text) {
			continue
		}
		var xs []found
		if d.byName {
			xs = assignmentsAndCalls(text, f.code, names)
		} else if d.scan != nil {
			xs = d.scan(f, text, next, lineNo)
		} else {
			xs = d.find(text, next, f.code)
		}
		for _, x := range xs {
			if x.Rule == "" {
				x.Rule, x.What = d.rule, d.what
			}
			add(x)
		}
	}
	for _, x := range f.derived(text, next, lineNo) {
		add(x)
	}
	if len(fs) == 0 {
		return nil
	}
	slices.SortFunc(fs, func(a, b found) int { return a.start - b.start })
	out := make([]Secret, len(fs))
	for i, f := range fs {
		out[i] = f.Secret
	}
	return out
}

// triggerSet finds in one pass which of gitleaks' rules and which
// detectors a line has keywords of: groups 0 to rules-1 are the rules (as
// secretrules numbers them), and the next ones detectors[i].
type triggerSet struct {
	kw    *secretrules.Keywords
	rules int
	words int // uint64s in a bitset of the rules
	names int // the group of the detector judging names (byName)
	// providers is the bit of the detector that stands for gitleaks'
	// rules, which every line runs.
	providers uint64
}

var triggers = sync.OnceValue(func() *triggerSet {
	if len(detectors) > 64 {
		panic("guardrail: more detectors than bits in judge's run")
	}
	groups := secretrules.Default().Keywords()
	t := &triggerSet{rules: len(groups), words: (len(groups) + 63) / 64}
	t.names = -1
	for i, d := range detectors {
		if d.byName {
			t.names = len(groups)
		}
		if d.providers {
			t.providers = 1 << i
		}
		groups = append(groups, d.keywords)
	}
	t.kw = secretrules.NewKeywords(groups)
	return t
})

// providerSecrets returns the provider tokens gitleaks' rules find in a
// line of the file at path, but for the placeholders harnish allows
// (labelled examples, runs of one character, ...). Many of the rules want
// a token to end at a quote, a blank or the line's end; in a URL it ends
// at & # @ ? and the like too, so a line with those is scanned once more
// with them read as blanks (the same length, so the same offsets).
func providerSecrets(rules *secretrules.File, text string, hits []uint64, add func(found)) {
	rules.ScanHits(text, tokenDelims, hits, func(m secretrules.Match) {
		if isPlaceholder(tokenBody(m.Secret)) || testToken(m.Secret) || namedNotSecret(m, text) || calledName(text, m.Start, m.End) || camelName(m.Secret) || documentedBasicToken(m.Secret) {
			return
		}
		rule, what := providerRule(m.Rule.ID)
		add(found{Secret: Secret{Rule: rule, What: what, Masked: mask(text[m.Start:m.End])}, start: m.Start, end: m.End})
	})
}

// calledName reports whether text[start:end] is a name in code, called
// or declared: letters and '_' only, followed by '(' (a C function
// GLC_CreateLightmapTextureArray( that a prefix rule reads as glc_...).
func calledName(text string, start, end int) bool {
	if end >= len(text) || text[end] != '(' {
		return false
	}
	for i := start; i < end; i++ {
		if !letter(text[i]) && text[i] != '_' {
			return false
		}
	}
	return true
}

// tokenDelims end a token in a URL, in the markup around one, in a
// JSON-escaped string (\"), in curl -u TOKEN: and in markdown's `code`.
const tokenDelims = "&#@?<>()[]{},|:`\\"

// testToken reports whether a provider's token says in its prefix that it
// is a test or sandbox key (sk_test_..., rk_test_..., FLWSECK_TEST-...),
// which reaches no real account.
func testToken(s string) bool {
	p := strings.ToLower(s[:min(len(s), 16)])
	if i := strings.LastIndexAny(p, "_-"); i > 0 {
		p = p[:i]
	}
	return strings.Contains(p, "_test") || strings.Contains(p, "sandbox")
}

// tokenBody returns a token without its provider prefix (ghp_, xoxb-,
// sk_live_, ...), the part that says whether it is a placeholder.
func tokenBody(s string) string {
	if i := strings.LastIndexAny(s[:min(len(s), 16)], "_-"); i > 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// providerFamilies map gitleaks rule IDs, by prefix, onto the rule IDs
// harnish had before it used gitleaks' rules, so events and audit logs keep
// their keys; other providers' rules are edit.secret.<gitleaks ID>.
var providerFamilies = []struct{ prefix, rule, what string }{
	{"aws-access-token", RuleSecretAWS, "AWS access key ID"},
	{"aws-", RuleSecretAWS, "AWS key"},
	{"github-", RuleSecretGitHub, "GitHub token"},
	{"gitlab-", RuleSecretGitLab, "GitLab token"},
	{"slack-webhook", RuleSecretSlack, "Slack webhook URL"},
	{"slack-", RuleSecretSlack, "Slack token"},
	{"gcp-", RuleSecretGCP, "GCP key"},
	{"azure-", RuleSecretAzure, "Azure secret"},
}

// providerRule returns the rule ID and the name for a person of the
// gitleaks rule id.
func providerRule(id string) (rule, what string) {
	for _, f := range providerFamilies {
		if strings.HasPrefix(id, f.prefix) {
			return f.rule, f.what
		}
	}
	what = strings.ReplaceAll(id, "-", " ")
	return "edit.secret." + id, strings.ToUpper(what[:1]) + what[1:]
}

func overlaps(fs []found, start, end int) bool {
	for _, f := range fs {
		if start < f.end && f.start < end {
			return true
		}
	}
	return false
}

// detector finds one kind of secret. Detectors run in order, and a later
// one's finding that overlaps an earlier one's is dropped, so the specific
// rules come before the generic assignment rule.
type detector struct {
	rule, what string
	// providers stands for gitleaks' rules, run at this point of the
	// order.
	providers bool
	// keywords are lowercase strings one of which a line must hold, in
	// any case, for the detector to run; may, if set, is a cheaper test
	// than find that a line must pass too. Both only spare work: find
	// returns nothing for a line that fails them (TestFilteredFindsWhatFullFinds).
	keywords []string
	// byName marks the detector of assignments, which judges the names
	// that hold one of its keywords (see assignments).
	byName bool
	may    func(text string) bool
	find   func(text, next string, code bool) []found
	// scan, if set, is find for a detector that scans text derived from
	// the line (in secrets_syntax.go).
	scan func(f *scanFile, text, next string, lineNo int) []found
}

// token finds matches of re's regexp whose submatch group (0: the whole
// match) is not a placeholder; body picks the part judged as placeholder,
// after a prefix.
func token(re func() *regexp.Regexp, group, prefix int) func(text, next string, code bool) []found {
	return func(text, _ string, _ bool) []found {
		var out []found
		for _, m := range re().FindAllStringSubmatchIndex(text, -1) {
			s, e := m[2*group], m[2*group+1]
			if s < 0 {
				continue
			}
			v := text[s:e]
			if isPlaceholder(v[min(prefix, len(v)):]) || notCredentialValue(v) {
				continue
			}
			out = append(out, found{Secret: Secret{Masked: mask(v)}, start: s, end: e})
		}
		return out
	}
}

// The detectors' patterns, compiled when a line first passes their filter.
var (
	awsSecret = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:aws_?secret(?:_?access)?_?key|secret_?access_?key)["']?\s*(?::=|=>|[:=])\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)`)
	})
	gcpKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"private_key"\s*:\s*"(-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*)"`)
	})
	azureKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{20,}={0,2})`)
	})
	privateKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)
	})
	jwt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`)
	})
	// syntaxCredentials are the patterns of passwords in a file's own
	// syntax, each with a cheap test a line must pass first; the last
	// group of a match is the password.
	syntaxCredentials = []struct {
		may   func(string) bool
		spans func(string) [][]int
		// unquoted says the value is a bare word, which code does not
		// assign.
		unquoted bool
	}{
		{startsWithCredentialWord, func(t string) [][]int {
			if s, e, ok := lineCredential(t); ok && !proseWord(t[s:e]) {
				return [][]int{{0, len(t), s, e}}
			}
			return nil
		}, true},
		{func(t string) bool { return containsFold(t, "login") }, allGroups(netrcPassword), false},
		{func(t string) bool { return strings.Contains(t, "</") }, allGroups(xmlCredential), false},
		{func(t string) bool { return strings.Contains(t, "'") }, allGroups(sqlPassword), false},
	}
	// netrcPassword is .netrc's machine HOST login USER password PW.
	netrcPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\blogin\s+\S+\s+password\s+(\S{4,})`)
	})
	// xmlCredential is an XML element named for a credential holding a
	// value: <password>PW</password>, <apiKey>...</apiKey>.
	xmlCredential = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<[\w:.-]*(?:password|passwd|secret|token|apikey|api-key|api_key|accesskey|credentials?)>([^<>\s]{4,})</`)
	})
	// sqlPassword is SQL's PASSWORD 'PW' (CREATE USER, ALTER ROLE) and
	// IDENTIFIED BY 'PW'.
	sqlPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:password|identified\s+by)\s+'([^'\s]{4,})'`)
	})
	// connPassword is Password= or Pwd= in a key=value; list.
	connPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)[;"']\s*(?:password|pwd)=([^;"'\s]{4,})(?:;|["']|$)`)
	})
	// cliPassword is the password of sshpass -p and of the MySQL clients'
	// -pPASSWORD (attached, or quoted after -p).
	cliPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:sshpass\s+(?:-\w+\s+)*-p\s*|(?:mysql|mysqldump|mysqladmin|mariadb)\b[^|;&\n]*?\s-p)['"]?([^\s'"$]{4,})`)
	})
	// basicHeader is the value of an Authorization: Basic header, after
	// its "B" or "b" (a literal prefix, which regexp finds fast); authField
	// the auth field of .npmrc (_auth=) and Docker's config.json ("auth":
	// ...). Both are base64 of user:password.
	basicHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`asic\s+([A-Za-z0-9+/]{8,}={0,2})`)
	})
	authField = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`auth["']?\s*[:=]\s*["']?([A-Za-z0-9+/]{8,}={0,2})`)
	})
	keyMaterial = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z0-9+/]{32,}`)
	})
	pemHeaderLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*["']?(?:Proc-Type|DEK-Info|Comment|Version):`)
	})
)

// followedBy reports whether text holds lit followed by a blank (as \s
// means in a regexp) or, when assign, by an optional quote, blanks and ':'
// or '=': a place where basicHeader or authField can start.
func followedBy(text, lit string, assign bool) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], lit)
		if j < 0 {
			return false
		}
		i += j + len(lit)
		k := i
		if assign && k < len(text) && (text[k] == '"' || text[k] == '\'') {
			k++
		}
		n := k
		for k < len(text) && reBlank(text[k]) {
			k++
		}
		if !assign && k > n || assign && k < len(text) && (text[k] == ':' || text[k] == '=') {
			return true
		}
	}
}

// reBlank reports whether c is a blank as \s means in a regexp.
func reBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// allGroups returns the finder of re's matches with their groups.
func allGroups(re func() *regexp.Regexp) func(string) [][]int {
	return func(t string) [][]int { return re().FindAllStringSubmatchIndex(t, -1) }
}

// proseWord reports whether v, the value of a line of a credential word
// and a value, is a word ending a sentence: "password combination."
func proseWord(v string) bool {
	if len(v) < 2 || strings.IndexByte(".,;", v[len(v)-1]) < 0 {
		return false
	}
	for i := 0; i < len(v)-1; i++ {
		if !letter(v[i]) {
			return false
		}
	}
	return true
}

// lineCredentialWords are the words lineCredential takes.
var lineCredentialWords = []string{"password", "passwd", "requirepass", "masterauth", "passphrase", "bindpw", "rootpw"}

// lineCredential returns the span of the value of a configuration line
// that is a credential word and its value, nothing else (requirepass PW,
// password PW): the group of
//
//	(?i)^\s*(?:password|passwd|requirepass|masterauth|passphrase|bindpw|rootpw)\s+([^\s=:'"#]\S{3,})\s*$
//
// matched by hand, as the regexp would (words in any case by Unicode's
// simple folding, \S and {3,} by runes). It runs on every line that starts
// with such a word, password := ... among them, and compiling the regexp
// cost a fresh process more than the rest of a small edit's check;
// TestLineCredential and FuzzLineCredential hold the two equal.
func lineCredential(text string) (start, end int, ok bool) {
	i := skipBlanks(text, 0)
	for _, w := range lineCredentialWords {
		j, ok := foldPrefix(text, i, w)
		if !ok {
			continue
		}
		k := skipBlanks(text, j)
		if k == j || k == len(text) || strings.IndexByte("=:'\"#", text[k]) >= 0 {
			continue
		}
		start, runes := k, 0
		for k < len(text) && !reBlank(text[k]) {
			_, size := utf8.DecodeRuneInString(text[k:])
			k += size
			runes++
		}
		if runes >= 4 && skipBlanks(text, k) == len(text) {
			return start, k, true
		}
	}
	return 0, 0, false
}

// places yields where sub occurs in text, each place in order (a place
// may overlap the one before).
func places(text, sub string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i <= len(text); i++ {
			j := strings.Index(text[i:], sub)
			if j < 0 || !yield(i+j) {
				return
			}
			i += j
		}
	}
}

// skipBlanks returns the index of the first byte from i on that is not a
// blank as \s means in a regexp.
func skipBlanks(text string, i int) int {
	for i < len(text) && reBlank(text[i]) {
		i++
	}
	return i
}

// foldPrefix reports whether text at i starts with word (lowercase ASCII)
// in any case, as a regexp's (?i) reads it, and where it ends.
func foldPrefix(text string, i int, word string) (int, bool) {
	for _, c := range word {
		if i >= len(text) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != c && !foldsTo(r, c) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// foldsTo reports whether r is in the simple case-folding orbit of c
// (S, s and ſ; K, k and the Kelvin sign).
func foldsTo(r, c rune) bool {
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

// azuriteKey is the documented, public account key of the Azure storage
// emulator; it guards nothing.
const azuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

var detectors = []detector{
	{
		rule: RuleSecretGCP, what: "GCP service-account private key",
		keywords: []string{`"private_key"`},
		find: func(text, _ string, _ bool) []found {
			m := gcpKey().FindStringSubmatchIndex(text)
			if m == nil {
				return nil
			}
			body := text[m[2]:m[3]]
			if !keyMaterial().MatchString(body) || strings.Contains(body, "...") {
				return nil
			}
			return []found{{Secret: Secret{Masked: mask(body)}, start: m[2], end: m[3]}}
		},
	},
	{
		rule: RuleSecretPrivateKey, what: "private key",
		keywords: []string{"private key"},
		find: func(text, next string, _ bool) []found {
			loc := privateKey().FindStringIndex(text)
			if loc == nil {
				return nil
			}
			// A key needs its body: on this line (a "\n"-escaped string) or
			// on the next. A marker alone is code that looks for keys.
			body := text[loc[1]:]
			if !keyMaterial().MatchString(body) && !keyMaterial().MatchString(next) && !pemHeaderLine().MatchString(next) && !pgpArmor(text, loc, next) {
				return nil
			}
			if m := keyMaterial().FindString(body + " " + next); m != "" && isPlaceholder(m) {
				return nil
			}
			if strings.Contains(body, "...") || strings.Contains(next, "...") {
				return nil
			}
			return []found{{Secret: Secret{Masked: mask(text[loc[0]:loc[1]])}, start: loc[0], end: loc[1]}}
		},
	},
	{rule: RuleSecretAWS, what: "AWS secret access key", keywords: []string{"secretaccess", "secret_access", "awssecret", "aws_secret"}, find: token(awsSecret, 1, 0)},
	{
		rule: RuleSecretAzure, what: "Azure storage or service key",
		keywords: []string{"accountkey", "sharedaccesskey"},
		find: func(text, next string, code bool) []found {
			var out []found
			for _, f := range token(azureKey, 1, 0)(text, next, code) {
				if !strings.HasPrefix(text[f.start:], azuriteKey) {
					out = append(out, f)
				}
			}
			return out
		},
	},
	{
		rule: RuleSecretBasicAuth, what: "Basic-auth credentials",
		keywords: []string{"basic ", "basic\t", "basic\f", "basic\r", "auth"}, // \s after Basic
		// Where either pattern can start: most lines with "auth" have
		// neither (auth.Refresh, OAuth).
		may: func(text string) bool { return followedBy(text, "asic", false) || followedBy(text, "auth", true) },
		find: func(text, _ string, _ bool) []found {
			var out []found
			for _, m := range basicHeader().FindAllStringSubmatchIndex(text, -1) {
				// [Bb]asic at the start of a word.
				if m[0] == 0 || text[m[0]-1]|0x20 != 'b' || m[0] > 1 && wordByte(text[m[0]-2]) {
					continue
				}
				out = appendBasic(out, text, m[2], m[3])
			}
			for _, m := range authField().FindAllStringSubmatchIndex(text, -1) {
				// auth or _auth, after a quote, a blank or nothing.
				b := m[0]
				if b > 0 && text[b-1] == '_' {
					b--
				}
				if b > 0 && !strings.ContainsRune("\"' \t", rune(text[b-1])) {
					continue
				}
				out = appendBasic(out, text, m[2], m[3])
			}
			return append(out, findAuthUserPass(text)...)
		},
	},
	{providers: true},
	{
		rule: RuleSecretJWT, what: "JSON Web Token",
		keywords: []string{"eyj"},
		find: func(text, _ string, _ bool) []found {
			var out []found
			for _, loc := range jwt().FindAllStringIndex(text, -1) {
				v := text[loc[0]:loc[1]]
				header, _, _ := strings.Cut(v, ".")
				h, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(header, "="))
				if err != nil || !strings.Contains(string(h), `"alg"`) || anonJWT(v) {
					continue
				}
				out = append(out, found{Secret: Secret{Masked: mask(v)}, start: loc[0], end: loc[1]})
			}
			return out
		},
	},
	{
		rule: RuleSecretURL, what: "password in a URL",
		keywords: []string{"://"},
		find: func(text, _ string, _ bool) []found {
			var out []found
			for _, span := range urlPasswords(text) {
				pw := text[span[0]:span[1]]
				if isPlaceholder(pw) || exampleURLUser(text, span[0], pw) {
					continue
				}
				out = append(out, found{Secret: Secret{Masked: mask(pw)}, start: span[0], end: span[1]})
			}
			return out
		},
	},
	{
		// Password=...; in an ADO.NET, ODBC or JDBC connection string, which
		// code holds inside one quoted string.
		rule: RuleSecretAssignment, what: "password in a connection string",
		keywords: []string{"password=", "pwd="},
		find:     token(connPassword, 1, 0),
	},
	{
		// A password given on a command line: sshpass -p, mysql -pSECRET.
		rule: RuleSecretAssignment, what: "password on a command line",
		keywords: []string{"sshpass", "mysql", "mariadb"},
		find:     token(cliPassword, 1, 0),
	},
	{
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: credentialKeywords,
		byName:   true,
	},
	{
		// A password in a file's own syntax rather than an assignment:
		// .netrc's "login USER password PW", a configuration line
		// "requirepass PW" (Redis, and the like), an XML element
		// <password>PW</password>, SQL's PASSWORD 'PW' and IDENTIFIED BY 'PW'.
		rule: RuleSecretAssignment, what: "literal credential",
		keywords: []string{"password", "passwd", "requirepass", "masterauth", "passphrase", "bindpw", "rootpw", "identified", "secret>", "token>", "key>", "credential>", "credentials>"},
		find: func(text, _ string, code bool) []found {
			var out []found
			for _, c := range syntaxCredentials {
				if c.unquoted && code {
					continue // in code, a field and its type: password SecretReader
				}
				if !c.may(text) {
					continue
				}
				for _, m := range c.spans(text) {
					s, e := m[len(m)-2], m[len(m)-1]
					if s < 0 || !literal(text[s:e]) || overlaps(out, s, e) {
						continue
					}
					out = append(out, found{Secret: Secret{Masked: mask(text[s:e])}, start: s, end: e})
				}
			}
			return out
		},
	},
}

// sourceExts are the extensions of source code, where a value counts as a
// literal only when quoted.
var sourceExts = map[string]bool{
	".go": true, ".py": true, ".pyi": true, ".js": true, ".jsx": true, ".mjs": true, ".cjs": true,
	".ts": true, ".tsx": true, ".mts": true, ".cts": true, ".java": true, ".kt": true, ".kts": true,
	".scala": true, ".groovy": true, ".rb": true, ".php": true, ".cs": true, ".fs": true,
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hpp": true, ".hh": true,
	".hxx": true, ".rs": true, ".swift": true, ".m": true, ".mm": true, ".dart": true, ".lua": true,
	".pl": true, ".ex": true, ".exs": true, ".erl": true, ".clj": true, ".vue": true, ".svelte": true,
	".zig": true, ".jl": true, ".r": true, ".ps1": true, ".psm1": true,
	".hs": true, ".pas": true, ".pp": true, ".dpr": true, ".lpr": true, ".d": true, ".vb": true,
	".ml": true, ".mli": true, ".nim": true, ".cr": true, ".sol": true, ".adb": true, ".ads": true,
}

// mask returns the first characters of s (at most 4, never more than half
// of s) followed by "***".
func mask(s string) string {
	n := min(4, utf8.RuneCountInString(s)/2)
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "***"
}

// placeholderWords mark a value as not real wherever they appear in it.
var placeholderWords = []string{
	"example", "dummy", "fake", "placeholder", "changeme", "change_me", "change-me", "your",
	"redacted", "sample", "***", "####", "...", "test", "mock", "replace", "insert", "todo",
}

// placeholderValues mark a value as not real when they are the whole of it:
// the name of the thing itself, and the well-known defaults of local
// development servers.
var placeholderValues = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true,
	"key": true, "apikey": true, "api_key": true, "none": true, "null": true, "nil": true,
	"undefined": true, "empty": true, "n/a": true, "foo": true, "bar": true, "baz": true,
	"user": true, "username": true, "admin": true, "root": true, "guest": true, "postgres": true,
	"mysql": true, "default": true, "string": true, "required": true, "optional": true,
	"minioadmin": true,
	// The name with "my" before it: connectionstrings.com's
	// Password=myPassword, as documentation writes placeholders.
	"mypassword": true, "mypass": true, "mysecret": true, "mytoken": true, "myapikey": true,
	// The keys local OpenAI-compatible servers take and ignore.
	"ollama": true, "lm-studio": true, "not-needed": true, "sk-no-key-required": true,
	// The passwords every list of common ones starts with: they guard
	// nothing, and a fixture sets them (set_password('pass1234')).
	"pass1234": true, "password1": true, "password123": true, "hunter2": true, "letmein": true,
	"qwerty": true, "123456": true, "12345678": true, "secret123": true, "admin123": true,
	// Defaults a vendor documents for every install: the JDK's cacerts
	// password, Harbor's first admin password, the Android SDK's debug
	// keystore's store and key password.
	"changeit": true, "harbor12345": true, "android": true,
	// Values saying they are wrong: a test's rejected login.
	"wrong": true, "incorrect": true, "invalid": true, "wrongpassword": true, "wrong-password": true,
	"wrong_password": true, "badpassword": true, "bad-password": true, "invalid-password": true,
	"incorrect-password": true, "wrongpass": true, "invalidpassword": true,
	// GraphQL's built-in scalars, non-null: a schema's field type
	// (token: String!), not its value.
	"string!": true, "id!": true, "int!": true, "float!": true, "boolean!": true,
}

// yamlAlias reports whether v is a YAML alias, *name:
// ^\*[A-Za-z_][\w-]*$.
func yamlAlias(v string) bool {
	if len(v) < 2 || v[0] != '*' || !(letter(v[1]) || v[1] == '_') {
		return false
	}
	for i := 2; i < len(v); i++ {
		if !wordByte(v[i]) && v[i] != '-' {
			return false
		}
	}
	return true
}

// isPlaceholder reports whether v is evidently not a real credential.
func isPlaceholder(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	switch v[0] {
	case '!':
		if yamlTag(v) {
			return true // !vault, !Ref, !!binary: a tag, not a password that starts with !
		}
	case '$', '<', '{', '[', '&':
		// ${VAR}, $VAR, <your-token>, {{ .Values.x }}, [REDACTED],
		// YAML anchors and tags.
		return true
	case '@':
		if atReference(v) {
			return true // @Value("${db.password}"), @PASSWORD@, @env
		}
	case '%', '#', '_':
		// %VAR%, %(name)s, #{Octopus.Var}, __TOKEN__; not a password
		// that starts with % or _.
		if substitution(v) {
			return true
		}
	case '*':
		// ***, or a YAML alias (*name); not a password that starts with *.
		if strings.Trim(v, "*") == "" || yamlAlias(v) {
			return true
		}
	}
	lv := strings.ToLower(v)
	if placeholderValues[lv] || strings.Contains(lv, "{{") || strings.Contains(lv, "${") || angleSpan(lv) {
		return true
	}
	for _, w := range placeholderWords {
		if strings.Contains(lv, w) {
			return true
		}
	}
	if strings.Contains(lv, "xxx") && (len(lv) <= 24 || strings.Contains(lv, "xxxxxx")) {
		return true // sk-xxx; a long token may hold xxxx by chance
	}
	if b := strings.TrimRight(tokenBody(lv), "="); len(b) < len(lv) && len(b) >= 8 && distinct(b) == 1 {
		return true // glc_1111...: a prefix and a run
	}
	return distinct(lv) <= 3
}

// distinct counts the distinct bytes of s, stopping at 4.
func distinct(s string) int {
	var seen [256]bool
	n := 0
	for i := 0; i < len(s) && n < 4; i++ {
		if !seen[s[i]] {
			seen[s[i]] = true
			n++
		}
	}
	return n
}

// appendBasic adds the Basic credentials enc, text[start:end], base64 of
// user:password, unless they do not decode or are placeholders.
func appendBasic(out []found, text string, start, end int) []found {
	enc := text[start:end]
	dec, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(enc, "="))
	}
	if err != nil || !utf8.Valid(dec) {
		return out
	}
	user, pw, ok := strings.Cut(string(dec), ":")
	if !ok || isPlaceholder(pw) || isPlaceholder(user+pw) || documentedBasic(user, pw) {
		return out
	}
	return append(out, found{Secret: Secret{Masked: mask(enc)}, start: start, end: end})
}

// urlPasswords returns the spans of the passwords of the URLs in text,
// scheme://user:password@host: a scheme of 2 to 21 characters starting a
// word, a user without ':', and a password up to an '@' followed by the
// host.
func urlPasswords(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "://")
		if j < 0 {
			break
		}
		j += i
		i = j + 3
		k := j
		for k > 0 && j-k < 21 && schemeByte(text[k-1]) {
			k--
		}
		for k < j && (!letter(text[k]) || k > 0 && wordByte(text[k-1])) {
			k++
		}
		if j-k < 2 {
			continue
		}
		u := j + 3
		for u < len(text) && !strings.ContainsRune(" \t\n\r\f:@/'\"<>", rune(text[u])) {
			u = skipInterpolation(text, u) + 1
		}
		if u >= len(text) || text[u] != ':' {
			continue
		}
		q := u + 1
		for q < len(text) && !strings.ContainsRune(" \t\n\r\f@/'\"<>", rune(text[q])) {
			q++
		}
		if q > u+1 && q+1 < len(text) && text[q] == '@' && (wordByte(text[q+1]) && text[q+1] != '_' || text[q+1] == '[') {
			out = append(out, [2]int{u + 1, q})
			i = q + 1
		}
	}
	return out
}

func letter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func wordByte(c byte) bool { return letter(c) || c >= '0' && c <= '9' || c == '_' }

func schemeByte(c byte) bool {
	return letter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}
