package guardrail

import (
	"encoding/base64"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/harnish/harnish/guardrail/internal/secretrules"
)

// This file holds the readings of credentials by the grammar of the file
// they live in, the kinds held-out set 8 found unread: a configuration
// directive and its value without an operator (Pass PW, auth_pass PW,
// secret "KEY";), a name glued to "pass" (remotepass, $wgDBpassword), and
// one table of the places other formats keep a credential in (netrc
// entries in any order, haproxy, Redis, Cisco, kickstart, preseed,
// ipsec.secrets, dovecot, header directives, Oracle and httpie command
// lines, argv lists, Erlang terms, XML properties, Consul's keys,
// kubeadm's bootstrap tokens, ...), and files whose name says where their
// secrets are (chap-secrets, .curlrc, ntp.keys, a Terraform state). Two
// detectors wake on their keywords; the table's detector then finds, in
// one more keyword pass, which of its readings the line holds and runs
// only those. The keywords are chosen rare in code (ogin rather than
// login, y_set_header rather than proxy_set_header): every keyword's
// first bytes are places the keyword pass of every line steps at.

func init() { detectors = append(detectors, formatDetectors...) }

var formatDetectors = []detector{
	{
		// Pass PW, auth_pass PW, AuthLDAPBindPassword "PW", remotepass = PW.
		rule: RuleSecretAssignment, what: "credential in a configuration directive",
		keywords: directiveWords,
		scan:     (*scanFile).findDirectives,
	},
	{
		rule: RuleSecretAssignment, what: "credential in its file's grammar",
		keywords: formatKeywords(),
		scan:     (*scanFile).findFormats,
	},
}

// findDirectives finds a configuration line that is a credential's name
// and its value, blanks between them, nothing after but ';' or a comment:
// mbsync's Pass, keepalived's auth_pass, fluent-bit's HTTP_Passwd,
// Apache's AuthLDAPBindPassword "PW" (BIND's secret "KEY"; and yarn 1's
// "//host/:_authToken" "TOKEN" are in formatReadings). Names glued to
// pass (remotepass) are read too, as assignments. Source code declares (Password string) what a
// configuration file sets, so only configuration is read this way.
func (f *scanFile) findDirectives(text, _ string, _ int) []found {
	out := f.gluedPassAssignments(text)
	if f.code || !twoWords(text) {
		return out
	}
	m := directiveLine().FindStringSubmatchIndex(text)
	if m == nil {
		return out
	}
	name, v := text[m[2]:m[3]], text[m[4]:m[5]]
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		m[4], m[5] = m[4]+1, m[5]-1 // Groovy's storePassword 'PW'
		v = v[1 : len(v)-1]
	}
	if !directiveName(name) || !secretLiteral(v) || subscriptRef(v) {
		return out
	}
	return append(out, foundAt(text, m[4], m[5]))
}

// directiveWords are the words a directive's name holds.
var directiveWords = []string{"pass", "pwd"}

// directiveName reports whether name, a directive's, names a credential
// by a word of the detector's keywords (so that the keywords wake it for
// every line it reads): not a file's path (password_file).
func directiveName(name string) bool {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, "file") {
		return false
	}
	for _, w := range directiveWords {
		if strings.Contains(lower, w) {
			return credentialName(name) || gluedPass(name)
		}
	}
	return false
}

// twoWords reports whether text, but for blanks around and a comment
// after, is two words with blanks between them: the shape directiveLine
// matches, tested without the regexp.
func twoWords(text string) bool {
	i := skipBlanks(text, 0)
	for w := 0; w < 2; w++ {
		s := i
		for i < len(text) && !reBlank(text[i]) {
			i++
		}
		if i == s {
			return false
		}
		j := skipBlanks(text, i)
		if w == 0 && (j == i || text[i-1] == ':' || text[i-1] == '=') {
			return false // name: value, name= value
		}
		i = j
	}
	return i == len(text) || text[i] == '#'
}

// directiveLine is a name, maybe quoted and after a path (yarn's
// "//registry/:_authToken"), blanks, and one value, maybe quoted.
var directiveLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*"?(?:[^\s"]*[/:])?([A-Za-z_][\w.-]*)"?[ \t]+"?([^\s"=:#;{}|][^\s";]*)"?;?[ \t]*(?:#.*)?$`)
})

// gluedPass reports whether name ends in pass, passwd, password or pwd
// glued to a word before it in lower case (remotepass, smtppass,
// wgDBpassword), but not bypass, compass and the like.
func gluedPass(name string) bool {
	n := strings.ToLower(name)
	for _, suf := range []string{"password", "passwd", "pass", "pwd"} {
		p, ok := strings.CutSuffix(n, suf)
		if !ok || p == "" || !letter(p[len(p)-1]) {
			continue
		}
		for _, w := range []string{"by", "com", "sur", "tres", "over", "under", "im", "en", "re"} {
			if strings.HasSuffix(p, w) && (len(p) == len(w) || !letter(p[len(p)-len(w)-1]) || w == "com") {
				return false
			}
		}
		return true
	}
	return false
}

// gluedPassAssignments finds the assignments to names gluedPass takes and
// credentialName does not ($wgDBpassword = "PW", remotepass = PW,
// cpassword="PW"): each judged as the assignment to password it would be.
func (f *scanFile) gluedPassAssignments(text string) []found {
	var out []found
	// A word glued on in lower case; after a capital (dbPass, DBPASS)
	// credentialName reads the name already. strings.Index finds the
	// places fast.
	for _, sub := range [...]string{"pass", "pwd"} {
		for i := 0; ; {
			j := strings.Index(text[i:], sub)
			if j < 0 {
				break
			}
			p := i + j
			i = p + len(sub)
			if p < 1 || !letter(text[p-1]) {
				continue
			}
			s, e := p, p
			for s > 0 && (wordByte(text[s-1]) || text[s-1] == '$') {
				s--
			}
			for e < len(text) && wordByte(text[e]) {
				e++
			}
			name := strings.TrimLeft(text[s:e], "$")
			if !gluedPass(name) || credentialName(name) {
				continue
			}
			const as = "password"
			for _, x := range assignments(as+text[e:], f.code, nil) {
				if x.start < len(as) {
					continue
				}
				x.start += e - len(as)
				x.end += e - len(as)
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// formatReading is one place a file's grammar keeps a credential in:
// re's last group that matched is the value, judged by secretLiteral
// unless loose; ok, when set, judges the match further (the file's name,
// the lines around it).
type formatReading struct {
	keywords []string
	// may, when set, is a cheap test a line must pass before re runs.
	may   func(f *scanFile, text string) bool
	re    func() *regexp.Regexp
	group int // the value's group, when not the last that matched
	loose bool
	ok    func(f *scanFile, text, next string, m []int) bool
}

func reading(keywords []string, expr string) formatReading {
	return formatReading{keywords: keywords, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

func (r formatReading) if_(may func(f *scanFile, text string) bool) formatReading {
	r.may = may
	return r
}

func (r formatReading) when(ok func(f *scanFile, text, next string, m []int) bool) formatReading {
	r.ok = ok
	return r
}

func (r formatReading) valueIn(group int) formatReading {
	r.group = group
	return r
}

func (r formatReading) anyValue() formatReading {
	r.loose = true
	return r
}

// formatReadings are the places, by file format; doc.go lists them.
var formatReadings = []formatReading{
	// netrc and apt's auth.conf, the password before the login or alone.
	reading([]string{"ogin "}, `(?i)^\s*(?:machine\s+\S+|default)\b.*?\bpassword\s+(\S+)`).if_(startsWith("machine", "default")),
	// fetchmail's password "PW".
	reading([]string{"password \""}, `(?i)(?:^|\s)password\s+"([^"\s]+)"`),
	// haproxy: a userlist's insecure-password, stats auth USER:PW.
	reading([]string{"e-password"}, `(?i)\binsecure-password\s+(\S+)`),
	reading([]string{"ats auth"}, `(?i)\bstats\s+auth\s+[^:\s]+:(\S+)`),
	// Redis: Sentinel's auth-pass, AUTH [user] PW, an ACL's >PW.
	reading([]string{"auth-pass"}, `(?i)\bsentinel\s+auth-pass\s+\S+\s+(\S+)`),
	reading([]string{"auth "}, `(?i)^\s*AUTH\s+(?:\S+\s+)?(\S+)\s*$`).if_(startsWith("auth ")),
	reading([]string{"+@", "~*"}, `^\s*(?:ACL\s+SETUSER|user)\s+\S+\s(?:.*\s)?>(\S+)`).if_(startsWith("user ", "acl ")),
	// Cisco IOS: a type-0 (clear) password or secret, a community string;
	// SNMPv3's createUser pass phrases.
	reading([]string{"password 0", "secret 0", "key 0"}, `(?i)\b(?:password|secret|key)\s+0\s+(\S+)`),
	reading([]string{"snmp-server"}, `(?i)\bsnmp-server\s+community\s+(\S+)`).when(func(_ *scanFile, text, _ string, m []int) bool {
		v := strings.ToLower(text[m[2]:m[3]])
		return v != "public" && v != "private"
	}),
	reading([]string{"teuser "}, `(?i)\bcreateUser\s+(?:-e\s+\S+\s+)?\S+\s+(?:MD5|SHA\S*)\s+"?([^"\s]+)"?`),
	// kickstart's rootpw --plaintext PW, user --password=PW; preseed's
	// d-i passwd/...password password PW.
	reading([]string{"tpw --"}, `(?i)^\s*rootpw\s+--plaintext\s+(\S+)`),
	reading([]string{"password="}, `(?i)^\s*user\s.*--password=(\S+)`).when(func(_ *scanFile, text, _ string, _ []int) bool {
		return !strings.Contains(text, "--iscrypted")
	}),
	reading([]string{"d-i"}, `(?i)^\s*d-i\s+passwd/\S*password(?:-again)?\s+password\s+(\S+)`),
	// proftpd's SQLConnectInfo DB USER PW.
	reading([]string{"sqlconnectinfo"}, `(?i)\bSQLConnectInfo\s+\S+\s+\S+\s+(\S+)`),
	// ipsec.secrets: : PSK "PW", user : EAP "PW", XAUTH, NTLM.
	reading([]string{"psk", "eap \"", "xauth", "ntlm"}, `(?i)(?:^|\s):\s*(?:PSK|EAP|XAUTH|NTLM)\s+"?([^"\s]+)"?`),
	// dovecot's passwd-file: user:{PLAIN}PW (a scheme of clear text).
	reading([]string{"{plain}", "{clear"}, `(?i)\{(?:PLAIN|CLEARTEXT|CLEAR)\}([^\s:]+)`),
	// A web server setting a header named for a credential: nginx's
	// proxy_set_header, Caddy's header_up, Apache's RequestHeader.
	reading([]string{"y_set_header", "r_up ", "r_down ", "stheader"},
		`(?i)\b(?:proxy_set_header|header_up|header_down|RequestHeader\s+(?:set|add|append))\s+["']?([\w-]+):?\s+["']?([^"'\s;]+)`).when(
		func(_ *scanFile, text, _ string, m []int) bool { return credentialName(text[m[2]:m[3]]) }),
	// Authorization: Basic USER:PW, not encoded (.http and .rest files).
	reading([]string{"authorization: basic", "authorization:basic"}, `(?i)\bAuthorization:\s*Basic\s+[^\s:]+:(\S+)`),
	// Oracle's clients: sqlplus USER/PW@SERVICE, expdp, impdp, sqlldr.
	reading([]string{"sqlplus ", "pdp ", "sqlldr "},
		`(?i)\b(?:sqlplus|expdp|impdp|sqlldr)\s+(?:-\w+\s+)*(?:target=|userid=)?["']?\w+/([^@\s/"']+)(?:@|\s|$)`),
	// httpie and xh: -a USER:PW.
	reading([]string{"http -a ", "https -a ", "xh -a ", "xhs -a "}, `\b(?:http|https|xh|xhs)\s+(?:-\S+\s+)*-a[ =]["']?[^:\s'"]+:([^\s'"]+)`).if_(func(_ *scanFile, text string) bool {
		return strings.Contains(text, "http") || strings.Contains(text, "xh")
	}),
	// A literal written into a credential file, or printed by a password
	// command: echo PW > /etc/mongo/keyfile, --password-command "echo PW".
	reading([]string{"echo"}, `\becho\s+(?:-n\s+)?["']?([^\s"'>|;&$]{6,})["']?\s*>{1,2}\s*["']?(\S+)`).if_(func(_ *scanFile, text string) bool {
		return strings.IndexByte(text, '>') >= 0
	}).when(func(_ *scanFile, text, _ string, m []int) bool {
		return credentialFile(text[m[4]:m[5]])
	}).valueIn(1),
	reading([]string{"echo"}, `(?i)(?:password[-_]?command|passwordeval|passcmd|pass_cmd)["']?\s*[= ]\s*["']?echo\s+["']?([^\s"'$]+)`).if_(func(_ *scanFile, text string) bool {
		return containsFold(text, "pass")
	}),
	// An argv list: "-p", "PW" after login; "--password", "PW"; mysql's "-pPW".
	reading([]string{`-p"`, `-p'`, `-password"`, `-password'`}, `["'](?:-p|--password)["']\s*,\s*["']([^"']+)["']`).when(func(_ *scanFile, text, _ string, m []int) bool {
		return strings.Contains(text, "login") || strings.Contains(text, "password\"") || strings.Contains(text, "password'")
	}),
	reading([]string{"ysql", "iadb"}, `["']-p([^"'\s]{4,})["']`).when(func(_ *scanFile, text, _ string, _ []int) bool {
		return strings.Contains(text, "mysql") || strings.Contains(text, "mariadb")
	}),
	// Erlang terms: {default_pass, <<"PW">>}, api_key => <<"KEY">>.
	reading([]string{`<<"`}, `([A-Za-z_]\w*)\s*(?:,|=>)\s*<<"([^"]+)">>`).when(func(_ *scanFile, text, _ string, m []int) bool {
		return credentialName(text[m[2]:m[3]])
	}),
	// An XML property named for a credential: <property
	// name="hibernate.connection.password">PW</property>, JPA's value="PW".
	reading([]string{`name="`}, `<[\w:.-]+\s+name="([\w.:-]+)"\s*(?:value="([^"]*)"|>([^<\s]+)</)`).when(func(_ *scanFile, text, _ string, m []int) bool {
		return credentialName(text[m[2]:m[3]])
	}),
	// Maven's <passphrase>, FileZilla's <Pass encoding="base64">.
	reading([]string{"passphrase>"}, `<passphrase>([^<\s]+)</passphrase>`),
	reading([]string{`g="base64"`}, `<Pass(?:word)?\s+encoding="base64"\s*>([A-Za-z0-9+/]+={0,2})</`).anyValue().when(func(_ *scanFile, text, _ string, m []int) bool {
		dec, ok := decodedText(text[m[2]:m[3]])
		return ok && secretLiteral(dec)
	}),
	// Windows answer files: <Value>PW</Value> with <PlainText>true.
	reading([]string{"<value>"}, `<Value>([^<\s]+)</Value>`).when(func(_ *scanFile, text, next string, _ []int) bool {
		return strings.Contains(text, "<PlainText>true") || strings.Contains(next, "<PlainText>true")
	}),
	// Group Policy Preferences' cpassword, AES under a published key.
	reading([]string{"cpassword"}, `\bcpassword="([^"]+)"`).anyValue().when(func(_ *scanFile, text, _ string, m []int) bool {
		return m[3]-m[2] >= 20
	}),
	// Postman's API key auth: {"key": "value", "value": "KEY"}.
	reading([]string{`"apikey"`}, `"key"\s*:\s*"value"\s*,\s*"value"\s*:\s*"([^"]+)"`),
	// kaggle.json: {"username": ..., "key": "..."}.
	reading([]string{`key"`}, `"key"\s*:\s*"([0-9a-f]{32})"`).if_(func(_ *scanFile, text string) bool {
		return strings.Contains(text, `"username"`)
	}),
	// Consul and Nomad: the gossip key, the ACL's management tokens.
	reading([]string{`rypt = "`, `rypt="`, `rypt": "`, `rypt":"`}, `\bencrypt"?\s*[:=]\s*"([A-Za-z0-9+/]{22,43}={0,2})"`).anyValue().when(func(_ *scanFile, text, _ string, m []int) bool {
		dec, err := base64.StdEncoding.DecodeString(text[m[2]:m[3]])
		return err == nil && (len(dec) == 16 || len(dec) == 24 || len(dec) == 32) && !isPlaceholder(text[m[2]:m[3]])
	}),
	reading([]string{"l_management", "t_recovery", `master": "`, `master":"`, `master = "`},
		`\b(?:initial_management|agent_recovery|agent_master|master)"?\s*[:=]\s*"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"`).anyValue().when(
		func(_ *scanFile, text, _ string, m []int) bool {
			return !strings.Contains(text, "master\"") || strings.Contains(text, "tokens")
		}),
	// PagerDuty's routing key (Alertmanager), 32 hex digits.
	reading([]string{"g_key"}, `\brouting_key"?\s*[:=]\s*["']?([0-9a-f]{32})\b`).anyValue(),
	// kubeadm's bootstrap token, ID.SECRET, on a line about a token.
	reading([]string{"-token ", "token: "}, `(?:^|[\s=:"'])([a-z0-9]{6}\.[a-z0-9]{16})(?:$|[\s"',])`).anyValue().if_(func(_ *scanFile, text string) bool {
		return bootstrapShape(text)
	}).when(func(_ *scanFile, text, _ string, m []int) bool {
		v := text[m[2]:m[3]]
		return v != "abcdef.0123456789abcdef" && strings.ContainsAny(v[7:], "0123456789") && strings.ContainsAny(v[7:], "abcdefghijklmnopqrstuvwxyz")
	}),
	// BIND's key statement: secret "KEY"; and yarn 1's .yarnrc:
	// "//host/:_authToken" "TOKEN".
	reading([]string{`secret "`}, `^\s*secret\s+"([^"\s]+)";`),
	reading([]string{`_authtoken" "`}, `^\s*"[^"\s]*:_authToken"\s+"([^"\s]+)"\s*$`),
	// Wi-Fi: wpa_supplicant's and NetworkManager's psk (a passphrase or
	// 64 hex digits).
	reading([]string{"psk"}, `(?i)(?:^|\s)psk\s*=\s*"?([^"\s]{8,64})"?\s*$`),
	// Bundler's credentials for a gem source: BUNDLE_GEMS__HOST__IO: "USER:PW".
	reading([]string{"bundle_"}, `\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+["']?\s*[:=]\s*["']?[^:\s"']+:([^\s"']+)`),
	// Anaconda's channel URL with a token: conda.anaconda.org/t/TOKEN/.
	reading([]string{"/t/"}, `anaconda\.org/t/([^/\s]+)/`).anyValue(),
	// INI's triple-quoted value (Grafana): password = """PW""".
	reading([]string{`"""`}, `^\s*([\w.-]+)\s*=\s*"""([^"]+)"""\s*$`).when(func(_ *scanFile, text, _ string, m []int) bool {
		return credentialName(text[m[2]:m[3]])
	}),
	// An AWS session token, base64 with runs of / and +.
	reading([]string{"n_token", `token": "`, `token":"`}, `(?i)(?:aws_?session_?token|SessionToken)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{100,}={0,2})`).anyValue(),
	// A key block that is no PEM private key: OpenVPN's static key,
	// cloudflared's tunnel token; its body follows.
	reading([]string{"vpn static key", "tunnel token"}, `-----BEGIN (?:OpenVPN Static key V1|ARGO TUNNEL TOKEN)-----`).anyValue().when(
		func(_ *scanFile, _, next string, _ []int) bool { return keyMaterial().MatchString(next) }),
}

// startsWith returns a test that a line, after blanks, starts with one
// of words (lowercase) in any case.
func startsWith(words ...string) func(*scanFile, string) bool {
	return func(_ *scanFile, text string) bool {
		t := text[skipBlanks(text, 0):]
		for _, w := range words {
			if len(t) >= len(w) && strings.EqualFold(t[:len(w)], w) {
				return true
			}
		}
		return false
	}
}

// bootstrapShape reports whether text holds a '.' with six lowercase
// letters or digits before it and sixteen after it, the shape of a
// kubeadm bootstrap token, which the reading's regexp then places.
func bootstrapShape(text string) bool {
	for i := 6; i+16 < len(text)+1; i++ {
		if text[i] != '.' {
			continue
		}
		n := 0
		for n < 16 && i+1+n < len(text) && lowerAlnum(text[i+1+n]) {
			n++
		}
		if n == 16 && lowerAlnum(text[i-1]) && lowerAlnum(text[i-6]) {
			return true
		}
	}
	return false
}

func lowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// secretsFile reports whether name is a file whose lines hold secrets in
// places its name tells: pppd's chap-secrets and pap-secrets and davfs2's
// secrets (CLIENT SERVER SECRET, URL USER PASSWORD), curl's .curlrc
// (user = "U:PW"), NTP's and chrony's keys (ID TYPE KEY), a Terraform
// state ("result": random_password's), a JAAS file (user_NAME="PW"), the
// Erlang cookie (the file is the secret).
func secretsFile(name string) bool {
	switch path.Base(name) {
	case "chap-secrets", "pap-secrets", ".curlrc", "_curlrc", "ntp.keys", "chrony.keys", ".erlang.cookie":
		return true
	case "secrets":
		return path.Base(path.Dir(name)) == "davfs2"
	}
	b := strings.ToLower(path.Base(name))
	return strings.Contains(b, ".tfstate") || strings.Contains(b, "jaas") && strings.HasSuffix(b, ".conf")
}

// secretsFileLine returns the secret of a line of a secretsFile, its
// third field, quoted or not; in curl's, the password of user = "U:PW".
func secretsFileLine(name, text string, lineNo int) (Secret, bool) {
	var re *regexp.Regexp
	switch b := path.Base(name); {
	case b == ".curlrc" || b == "_curlrc":
		re = curlrcUser()
	case b == "ntp.keys" || b == "chrony.keys":
		re = ntpKey()
	case strings.Contains(b, ".tfstate"):
		re = stateResult()
	case b == ".erlang.cookie":
		re = erlangCookie()
	case strings.Contains(strings.ToLower(b), "jaas"):
		re = jaasUser()
	}
	if re != nil {
		m := re.FindStringSubmatch(text)
		if m == nil || !secretLiteral(m[1]) && (re != ntpKey() && re != erlangCookie() || isPlaceholder(m[1])) {
			return Secret{}, false
		}
		return Secret{Rule: RuleSecretAssignment, What: "secret in its file's grammar", Line: lineNo, Masked: mask(m[1])}, true
	}
	fields := strings.Fields(text)
	if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
		return Secret{}, false
	}
	v := strings.Trim(fields[2], `"`)
	if !secretLiteral(v) {
		return Secret{}, false
	}
	return Secret{Rule: RuleSecretAssignment, What: "password in a secrets file", Line: lineNo, Masked: mask(v)}, true
}

// ntpKey is a line of ntp.keys or chrony.keys: ID TYPE KEY.
var ntpKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*\d+\s+(?:MD5|SHA1|SHA256|SHA384|SHA512|AES128CMAC|AES256CMAC)\s+(?:HEX:|ASCII:)?([0-9A-Za-z]{16,})(?:\s|$)`)
})

// erlangCookie is the line of an .erlang.cookie file: its one token.
var erlangCookie = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z0-9]{16,})\s*$`)
})

// jaasUser is a JAAS option naming a user's password: user_admin="PW";
var jaasUser = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*user_\w+\s*=\s*"([^"]+)";?\s*$`)
})

// stateResult is random_password's result in a Terraform state.
var stateResult = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"result"\s*:\s*"([^"]+)"`)
})

// curlrcUser is curl's config line user = "USER:PW" (or proxy-user).
var curlrcUser = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*-?-?(?:user|proxy-user)\s*[= ]\s*"?[^:\s"]+:([^\s"]+?)"?\s*$`)
})

// credentialFile reports whether the file at p, a path written in a
// command, is by its name a credential's: keyfile, .vault-token,
// ldap.secret, db_password.
func credentialFile(p string) bool {
	b := strings.ToLower(path.Base(strings.Trim(p, `"'`)))
	for _, w := range []string{"key", "secret", "token", "passw", "cookie", "credential"} {
		if strings.Contains(b, w) {
			return !strings.HasSuffix(b, ".pub")
		}
	}
	return false
}

// formatKeywords is the union of the readings' keywords.
func formatKeywords() []string {
	var kw []string
	for _, r := range formatReadings {
		kw = append(kw, r.keywords...)
	}
	return kw
}

// formatMatcher finds which readings' keywords a line holds.
var formatMatcher = sync.OnceValue(func() *secretrules.Keywords {
	groups := make([][]string, len(formatReadings))
	for i, r := range formatReadings {
		groups[i] = r.keywords
	}
	return secretrules.NewKeywords(groups)
})

// findFormats runs the readings whose keywords the line holds.
func (f *scanFile) findFormats(text, next string, _ int) []found {
	if f.code {
		return nil // a file's grammar, not code's: auth := r.Header.Get(...) is no Redis AUTH
	}
	var set [2]uint64
	formatMatcher().Scan(text, func(gs []uint16, _ int) {
		for _, g := range gs {
			set[g/64] |= 1 << (g % 64)
		}
	})
	var out []found
	for i := range formatReadings {
		if set[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		r := &formatReadings[i]
		if r.may != nil && !r.may(f, text) {
			continue
		}
		for _, m := range r.re().FindAllStringSubmatchIndex(text, -1) {
			if r.ok != nil && !r.ok(f, text, next, m) {
				continue
			}
			g := r.group
			if g == 0 {
				g = len(m)/2 - 1
				for g > 0 && m[2*g] < 0 {
					g--
				}
			}
			s, e := m[2*g], m[2*g+1]
			v := text[s:e]
			if !r.loose && !secretLiteral(v) || r.loose && isPlaceholder(v) {
				continue
			}
			out = append(out, foundAt(text, s, e))
		}
	}
	return out
}

// atReference reports whether v, a value starting with @, names something
// rather than being a password that starts with @: a name alone (@env),
// called (@Value("${db.password}"), @Microsoft.KeyVault(SecretUri=...))
// or closed by @ (autoconf's @PASSWORD@, @@TOKEN@@), or a {...} or (...)
// reference.
func atReference(v string) bool {
	v = strings.TrimLeft(v, "@") // @@TOKEN@@
	if v == "" || v[0] == '{' || v[0] == '(' {
		return true
	}
	i := 0
	for i < len(v) && (wordByte(v[i]) || v[i] == '.') {
		i++
	}
	return i > 0 && (i == len(v) || v[i] == '(' || v[i] == '@') || kebabName(v)
}

// schemeHash reports whether lv, a value in lower case, is a hash that
// names its scheme first: Jupyter's sha1:SALT:HASH and argon2:...,
// wpa_supplicant's hash:NTHASH.
func schemeHash(lv string) bool {
	for _, p := range []string{"sha1:", "argon2:", "hash:"} {
		if rest, ok := strings.CutPrefix(lv, p); ok && len(rest) >= 16 {
			return true
		}
	}
	return false
}
