package guardrail

import "testing"

func TestNotCredentialValue(t *testing.T) {
	checkPredicate(t, "notCredentialValue", notCredentialValue, map[string]bool{
		"^1.0.0": true, "~2.3": true, ">=1.2.3-beta.1": true, "v1.4.0": true, "7.3.1": true,
		"1.0": true, "1.2.3+build.7": true,
		"1.2.3-Xk9mQz2Lp4Rw8TnVb6Hd": false, "12345": false, "1..2": false, "v1.": false,
		`\x1b[32mPASS`: true, `\033[0;32mPASS\033[0m`: true, `\u3299\ufe0f`: true, `\U0001F92B`: true,
		`\u0041\u0042\u0043\u0044\u0045`: false, `\xzz`: false,
		"abcdefghijk123456789": false, "Xk9mQz2Lp4": false, "aB3dE5gH7jK9mN1p": false,
		"https://sts.us-east-2.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15": true,
		"https://api.acme.io/v1/users":                                                true,
		"https://app:s3cr3t@db.acme.io/app":                                           false,
		"https://hooks.acme.io/services/T0AB12CD3/B0XY98ZW7/q8ZtR2mVx7LpWc4Tn9Kb3Hd6": false,
		"https://hooks.zapier.com/hooks/catch/bJdWL5uSLdrqauDu":                       false,
		"https://hooks.acme.io/catch/1234567/x8k2m9qz4w":                              false,
		"https://api.acme.io/v2/items/2024-06-15/report":                              true,
		"/etc": true, "/data/": true, "/Xk9mQz2": false, "/1abc": false,
		"--label": true, "--": false, "-p": false,
		"+dir": true, "+dir)": true, "+cHw3LLZv1U!DPgJD4": false, "+L8z+0M-jSw2fSb6lmdLGv": false,
		"New-Object": true, "Read-Host": true, "New-object": false, "Hello-World": false,
		"invalid_token": true, "client-valid-token-1": true, "x-amz-security-token": true,
		"token": false, "correct-horse-battery-staple": false,
		"value": true, "VALUE": true, "hunter2": false,
		"tokenValue": true, "secret_string": true, "tokenTrader": false,
	})
}

func TestOwnName(t *testing.T) {
	for _, c := range []struct {
		name, v string
		want    bool
	}{
		{"CorsErrorInvalidAllowCredentials", "InvalidAllowCredentials", true},
		{"encodeUserPassword", "encodeUserPassword", true},
		{"credential", "Credential=", true},
		{"PGSSLPASSWORD", "sslpassword", true},
		{"gdchServiceAccountKey", "gdch_service_account", true},
		{"s3DisableExpressSessionAuthKey", "s3_disable_express_session_auth", true},
		{"oauth2ServiceAccountKey", "oauth2.google.serviceAccount", true},
		{"headerAmzSessionToken", "x-amz-s3session-token", true},
		{"jsFetchCreds", "js.fetch:credentials", true},
		{"encryptionKey", "encryptionKey1024", true},
		{"refreshToken", "ReFrEsHtOkEn", true},
		// A password that is one word of the name, or no word at all.
		{"ELASTIC_PASSWORD", "elastic", false},
		{"SessionToken", "SESSION", false},
		{"password", "correct-horse-battery-staple", false},
		{"apiKey", "apikey_8f7a9s8df7a98sdf7a98sdf", false},
		{"serviceAccountKey", "q8ZtR2mVx7LpWc4Tn9Kb3Hd6", false},
		{"encryptionKey", "encryptionKey8f7a9s8d", false},
		{"DBPASSWORD", "word", false},
		{"", "", false},
	} {
		if got := ownName(c.name, c.v); got != c.want {
			t.Errorf("ownName(%q, %q) = %t, want %t", c.name, c.v, got, c.want)
		}
	}
}

func TestCamelName(t *testing.T) {
	checkPredicate(t, "camelName", camelName, map[string]bool{
		"s.ReadUint16LengthPrefixed": true, "s.readUint24LengthPrefixed": true, "glc_GetUserProfileName": true,
		"s.q8ZtR2mVx7LpWc4Tn9Kb3Hd6": false, "s.ReadUint": false, "s.AbcDefGhX1y2": false, "": false,
	})
}

func TestWordLike(t *testing.T) {
	checkPredicate(t, "wordLike", wordLike, map[string]bool{
		"oauth2": true, "s3session": true, "key1024": true, "2024": true, "ec2": true,
		"key12345": false, "a1b2": false, "7f3a9": false, "x_y": false, "abcdefghijklmnopqrstuvwxy": false,
	})
}

func TestColonThenWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"second pass: scan the bytes again", true},
		{"Bad token: oidc: issuer did not match", true},
		{"password: hunter2 # the old one", false},
		{"admin_password: Tr0ub4dor&3 is the default", false},
		{"password: letmein", false},
		{"token := abc def", false},
	} {
		vs := skipSpace(c.text, indexAfterOp(c.text))
		ve := vs
		for ve < len(c.text) && c.text[ve] != ' ' {
			ve++
		}
		if got := colonThenWords(c.text, vs, ve); got != c.want {
			t.Errorf("colonThenWords(%q) = %t, want %t", c.text, got, c.want)
		}
	}
}

// indexAfterOp returns the index after the first ':' or '=' run.
func indexAfterOp(text string) int {
	for i := 0; i < len(text); i++ {
		if text[i] == ':' || text[i] == '=' {
			for i < len(text) && (text[i] == ':' || text[i] == '=') {
				i++
			}
			return i
		}
	}
	return len(text)
}

func FuzzRealCodeShapes(f *testing.F) {
	for _, s := range []string{"^1.0.0", `\x1b[32m`, "abcdef123456", "https://a.b/c?d=e", "+dir)", "New-Object", "x-amz-s3session-token"} {
		f.Add("headerAmzSessionToken", s)
	}
	f.Fuzz(func(t *testing.T, name, v string) {
		notCredentialValue(v)
		if ownName(name, v) && len(valueWords(v)) == 0 {
			t.Fatalf("ownName(%q, %q) without words", name, v)
		}
		if e := queryValue("?"+name+"="+v, 1, len(name)+2, len(name)+2+len(v)); e < len(name)+2 || e > len(name)+2+len(v) {
			t.Fatalf("queryValue out of the value: %d", e)
		}
		listItems(name, v)
	})
}

// TestTriggersSkip guards the keyword pass's speed: its matcher skips from
// byte to byte to where a keyword may start, whatever bytes the keywords of
// gitleaks' rules and the detectors use.
func TestTriggersSkip(t *testing.T) {
	if !triggers().kw.Skips() {
		t.Fatal("the secret scan's keyword matcher does not skip")
	}
}

// checkPredicate checks f, named name, on each value of cases.
func checkPredicate(t *testing.T, name string, f func(string) bool, cases map[string]bool) {
	t.Helper()
	for v, want := range cases {
		if got := f(v); got != want {
			t.Errorf("%s(%q) = %t, want %t", name, v, got, want)
		}
	}
}
