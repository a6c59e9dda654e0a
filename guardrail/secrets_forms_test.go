package guardrail

import (
	"strings"
	"testing"
)

// formFinders are secrets_forms.go's finders, by name; the two-line ones
// read a line up to its first newline as the line, and the rest as the
// next one, so the file finders' fuzz test runs them too.
var formFinders = map[string]func(string) []found{
	"foreignnames": findForeignNames,
	"elementpairs": findElementPairs,
	"decodedkeys":  findDecodedKeys,
	"splitvalues": func(t string) []found {
		line, next, _ := strings.Cut(t, "\n")
		return findSplitValues(line, next)
	},
	"spliturl": func(t string) []found {
		line, next, _ := strings.Cut(t, "\n")
		return findSplitURLPasswords(line, next, false)
	},
}

func init() { addFinders("form-", formFinders) }

// TestFormFinders checks the bytes each of secrets_forms.go's
// finders takes, and that it takes nothing of the look-alikes beside
// them. A case's text is one line, or a line and the next after a
// newline for the two-line finders.
func TestFormFinders(t *testing.T) {
	const (
		pw  = "Rk7#vQ2m-Lp9xW"
		tok = "Vq3Lm8Tz1Rw6Pn4Xc9Kb2Hd7Jf5Gs0Ya"
		b64 = "fsfN4ouU7osj5EgPfFruaJ1CzCSjHhgjLNUzqa1Omo4="
	)
	checkFinders(t, formFinders, []finderCase{
		// Names in other scripts.
		{"foreignnames", "  密码: " + pw, []string{pw}},
		{"foreignnames", `数据库密码 = "` + pw + `"`, []string{pw}},
		{"foreignnames", "パスワード：" + pw, []string{pw}},
		{"foreignnames", `"Пароль": "` + pw + `",`, []string{pw}},
		{"foreignnames", "пароль=" + pw, []string{pw}},
		{"foreignnames", "contraseña: '" + pw + "'", []string{pw}},
		{"foreignnames", "密码: ${DB_PASSWORD}", nil},
		{"foreignnames", "密码: 至少十二位", nil},
		{"foreignnames", `"password": "密码"`, nil},
		{"foreignnames", "# 数据库密码（生产环境）", nil},
		{"foreignnames", "密码 == " + pw, nil},
		{"foreignnames", "密码: Password", nil},
		{"foreignnames", "xпароль: " + pw, nil}, // inside an ASCII word
		// A name and a literal as two elements.
		{"elementpairs", `    {db_password, "` + pw + `"}`, []string{pw}},
		{"elementpairs", `{:api_key,"` + tok + `"}`, []string{tok}},
		{"elementpairs", `{'db_password', "` + pw + `"},`, []string{pw}},
		{"elementpairs", ` :password "` + pw + `"}`, []string{pw}},
		{"elementpairs", `{:db {:password "` + pw + `"}}`, []string{pw}},
		{"elementpairs", `{:stripe/secret-key "` + tok + `"}`, []string{tok}},
		{"elementpairs", `(def api-key "` + tok + `")`, []string{tok}},
		{"elementpairs", `(setq openai-api-key "` + tok + `")`, []string{tok}},
		{"elementpairs", `(define token "` + tok + `")`, []string{tok}},
		{"elementpairs", `(define *password* "` + pw + `")`, []string{pw}},
		{"elementpairs", `(def ^:private api-key "` + tok + `")`, []string{tok}},
		{"elementpairs", `set api_key "` + tok + `"`, []string{tok}},
		{"elementpairs", `  set password "` + pw + `"`, []string{pw}},
		{"elementpairs", `(define (password "` + pw + `"))`, nil},
		{"elementpairs", `puts "set password "` + pw + `"`, nil},
		{"elementpairs", `(def *password "` + pw + `")`, nil},
		{"elementpairs", `{db_password, {env, "DB_PASSWORD"}}`, nil},
		{"elementpairs", ` :password #env DB_PASSWORD`, nil},
		{"elementpairs", `(def api-key (System/getenv "ACME_API_KEY"))`, nil},
		{"elementpairs", `(def password-min-length 12)`, nil},
		{"elementpairs", `(println password "` + pw + `")`, nil}, // a call, not a definition
		{"elementpairs", `m.Set(key, "` + tok + `")`, nil},
		{"elementpairs", `{:key "user-id"}`, nil},           // a key's name, not generated
		{"elementpairs", `{cache_key, "` + tok + `"}`, nil}, // not a secret's key
		{"elementpairs", `{password, "changeme"}`, nil},
		// A literal a decoding call takes under a key's name.
		{"decodedkeys", `key: Base.decode64!("` + b64 + `")`, []string{b64}},
		{"decodedkeys", `secret_key = Base64.decode64('` + b64 + `')`, []string{b64}},
		{"decodedkeys", `var signingKey = Convert.FromBase64String("` + b64 + `");`, []string{b64}},
		{"decodedkeys", `key: Base.decode64!(System.fetch_env!("CLOAK_KEY"))`, nil},
		{"decodedkeys", `icon = Base.decode64!("` + b64 + `")`, nil},
		{"decodedkeys", `key: Base.decode64!("aGVsbG8gd29ybGQ=")`, nil}, // a key's name: not generated enough
		// A value split over two lines.
		{"splitvalues", `    "PASSWORD": ("Xk29dkpq8L"` + "\n" + `                 "UUcaM531FB"),`, []string{"Xk29dkpq8L"}},
		{"splitvalues", `const password = 'Xk29dkpq8L' +` + "\n" + `  'UUcaM531FB';`, []string{"Xk29dkpq8L"}},
		{"splitvalues", `API_KEY = "` + tok[:16] + `"` + "\n" + `    "` + tok[16:] + `"`, []string{tok[:16]}},
		{"splitvalues", `message = "Your password " +` + "\n" + `  "has expired";`, nil},
		{"splitvalues", `password = ("Xk29dkpq8L"` + "\n" + `  + suffix)`, nil},
		{"splitvalues", `"PASSWORD": ("Xk29dkpq8L"` + "\n" + `    "UUcaM531FB"[::-1] or x),`, nil},
		{"splitvalues", `label = ("Xk29dkpq8L"` + "\n" + `  "UUcaM531FB")`, nil},
		// A URL's password in a literal of its own.
		{"spliturl", `    "postgresql+psycopg2://etl:"` + "\n" + `    "Xk29dkpq8LUUca"`, []string{`://etl:"`}},
		{"spliturl", `    "postgresql://etl:"` + "\n" + `    f"{password}"`, nil},
		{"spliturl", `    "http://localhost:"` + "\n" + `    "8080"`, nil},
		{"spliturl", `    "redis://cache.internal:"` + "\n" + `    "6379/0"`, nil},
		{"spliturl", `    "postgresql://etl:"` + "\n" + `    "@db/app"`, nil},
	})
}

// TestFormReadings checks, through ScanSecrets, the readings of
// secrets_forms.go that change older detectors' answers: foreign
// credential words, Perl's bare hash keys, locale files, labels,
// prompts and masked echoes.
func TestFormReadings(t *testing.T) {
	const pw = "Rk7vQ2mLp9xW"
	for _, c := range []struct {
		path, text string
		want       int
	}{
		{"config/settings.py", `SMTP_PASSWORT = "` + pw + `"`, 1},
		{"src/db.js", `  contrasena: '` + pw + `',`, 1},
		{"app/config.php", `$config['db_senha'] = '` + pw + `';`, 1},
		{"config/app.yml", "  parol: " + pw, 1},
		{"deploy/vars.env", "MOT_DE_PASSE=" + pw, 1},
		{"config/nl.py", `wachtwoord = "` + pw + `"`, 1},
		{"config/app.yml", "  Kennwort: " + pw, 1},
		{"bin/notify.pl", `$ENV{PAGERDUTY_TOKEN} = '` + pw + `';`, 1},
		{"bin/notify.pl", `$ENV{'PAGERDUTY_TOKEN'} = '` + pw + `';`, 1},
		{"lib/Config.pm", `$cfg{db_password} = "` + pw + `";`, 1},
		// Look-alikes.
		{"bin/notify.pl", `my $token = $ENV{PAGERDUTY_TOKEN};`, 0},
		{"templates/x.sh", `echo "${DB_PASSWORD}" = "` + pw + `"`, 0},
		{"src/passe.py", `impasse = "` + pw + `"`, 0},
		{"src/words.py", `parole = "` + pw + `"`, 0},
		{"locales/de.json", `{"password": "Passwort", "api_key": "API-Schlüssel"}`, 0},
		{"src/i18n/es.yml", "  password: Contraseña\n  token: Código", 0},
		{"config/locales/fr.yml", "  password: Mot de passe", 0},
		{"app/lang/de/auth.php", `'password' => 'Das Passwort ist falsch.',`, 0},
		{"web/de.json", `{"password": "Passwort"}`, 0},
		{"web/messages_de.properties", "password=Kennwort", 0},
		{"src/ui/Login.vue", `const labels = { password: "密码", token: "令牌" }`, 0},
		{"src/ui/strings.ts", `export const password = "パスワード";`, 0},
		{"src/ui/strings.ts", `export const secret = "Секрет";`, 0},
		{"src/i18n.ts", `  de: { password: "Passwort", email: "E-Mail" },`, 0},
		{"src/main.js", `const messages = { es: { password: 'Contraseña' }, pt: { password: 'Senha' } }`, 0},
		{"src/lang.py", `LABELS = {"pl": {"password": "Hasło"}, "nl": {"password": "Wachtwoord"}}`, 0},
		{"scripts/env.bat", `set /p DB_PASSWORD=Password:`, 0},
		{"notebooks/x.ipynb", `      "Token: \u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\u00b7\n"`, 0},
		{"scripts/login.sh", `PASSWORD="••••••••"`, 0},
		// Still found: a locale-named file's generated value, a value of
		// letters and digits in another script's words, a password that
		// ends in a colon after digits, a file named db.yaml.
		{"locales/de.json", `{"api_key": "` + pw + `"}`, 1},
		{"config/app.yml", "password: пароль2024secret", 1},
		{"config/app.yml", "password: Xk9mQ2:", 1},
		{"k8s/db.yaml", "password: Sommerzeit", 1},
		{"locales/de.yml", "password: Sommerzeit", 0},
		{"src/ui/strings.ts", `export const password = "Contraseña2024!";`, 1},
		{"config/app.yml", "password: Passwort1", 1},
		// A header's name opening a line, its value ending at a quote:
		// findToolFields read the byte before the line (FuzzFilteredFull).
		{"x.txt", `X-Api-Key: abcdef123456"`, 1},
		{"x.txt", `-token: "0`, 0},
	} {
		if got := ScanSecrets(c.path, c.text); len(got) != c.want {
			t.Errorf("ScanSecrets(%q, %q) = %+v, want %d", c.path, c.text, got, c.want)
		}
	}
}

// TestLocaleFile checks which paths hold translated text.
func TestLocaleFile(t *testing.T) {
	for path, want := range map[string]bool{
		"locales/de.json": true, "src/i18n/messages.ts": true, "config/locales/fr.yml": true,
		"app/lang/de/auth.php": true, "web/zh-CN.json": true, "web/pt_BR.yml": true,
		"res/messages_fr.properties": true, "po/de.po": true, "lib/l10n/app_en.arb": true,
		"web/ja.json": true, "Translations/Strings.resx": true,
		"Translations/Intl.cs": false, "python/lang/security/audit/x.py": false, "src/intl/format.go": false,
		"k8s/db.yaml": false, "ci.yml": false, "config/no.yml": false, "id.json": false,
		"src/language.go": false, "deploy/golang/app.yaml": false, "my.cnf": false,
	} {
		if got := localeFile(path); got != want {
			t.Errorf("localeFile(%q) = %v, want %v", path, got, want)
		}
	}
}
