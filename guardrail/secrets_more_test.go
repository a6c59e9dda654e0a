package guardrail

import (
	"testing"
)

// moreFinders are secrets_more.go's finders of one line, by name; the
// file finders' fuzz test runs them too.
var moreFinders = map[string]func(string) []found{
	"properties": findPropertyInits,
	"lets":       findLets,
	"assertions": findAssertions,
	"query":      findQueryCredentials,
	"oracle":     findOracleURLs,
	"xmlnamed":   findXMLNamed,
	"plist":      func(t string) []found { return findPlistValue("<key>ApiSecret</key>", t) },
	"escaped":    findEscapedPairs,
	"passelems":  findPassElements,
	"attribute":  func(t string) []found { return findAttribute(t, 0) },
	"arrows":     findArrows,
}

func init() { addFinders("more-", moreFinders) }

// TestMoreFinders checks the bytes each finder of secrets_more.go takes,
// and that it takes nothing of the look-alikes beside them.
func TestMoreFinders(t *testing.T) {
	checkFinders(t, moreFinders, []finderCase{
		{"properties", `    public string MailPwd { get; set; } = "9rlPnVHihvAEWuCPN";`, []string{"9rlPnVHihvAEWuCPN"}},
		{"properties", `public string ApiKey { get; init; } = @"k7Qz+2mW/9vXr4TaLp0s";`, []string{"k7Qz+2mW/9vXr4TaLp0s"}},
		{"properties", `public string DbPassword { get; set; } = Environment.GetEnvironmentVariable("DB_PASSWORD");`, nil},
		{"properties", `public string PasswordHint { get; set; } = "Min8chars";`, nil},
		{"properties", `public string Password { get; set; } = "";`, nil},
		{"lets", `  let(:api_token) { 'McGkGP/t89DKRvDuJ0A2lrd9' }`, []string{"McGkGP/t89DKRvDuJ0A2lrd9"}},
		{"lets", `  let!(:password) { "Quartz-meadow112%" }`, []string{"Quartz-meadow112%"}},
		{"lets", `  let(:password) { 'password' }`, nil},
		{"lets", `  let(:token) { create(:token) }`, nil},
		{"lets", `  let(:user) { 'Quartz-meadow112%' }`, nil},
		{"assertions", `    assert settings.s3_secret == "eijRdFxeHQEU8quJxb49Zth"`, []string{"eijRdFxeHQEU8quJxb49Zth"}},
		{"assertions", `expect(config.serviceAccountPass).toBe('.m#7HAeAD4B6C');`, []string{".m#7HAeAD4B6C"}},
		{"assertions", `        assertEquals("IehS87jCenlkXOajNSDo1HD*", config.getMailPwd());`, []string{"IehS87jCenlkXOajNSDo1HD*"}},
		{"assertions", `    assert cfg["api_key"] == "3f9Qa7LmZx81Rt"`, []string{"3f9Qa7LmZx81Rt"}},
		{"assertions", `    assert settings.api_key != "3f9Qa7LmZx81Rt"`, nil},
		{"assertions", `expect(screen.getByLabelText('Password')).toBeInTheDocument();`, nil},
		{"assertions", `    assert "password=***" in caplog.text`, nil},
		{"assertions", `    assert resp.json()["token_type"] == "bearer"`, nil},
		{"assertions", `    assertEquals("Invalid password", err.getMessage());`, nil},
		{"assertions", `    assert user.name == "Zq81mXa93kLp"`, nil},
		{"assertions", `    assert credentials.scopes == ["https://www.google.com/calendar/feeds"]`, nil},
		{"assertions", `        assert token.endswith(b".c2lnbmF0dXJl")`, nil},
		{"assertions", `        assert new_creds.quota_project_id == "new-project-456"`, nil},
		{"assertions", `        assert decoded_access_token["scope"] == "https://www.googleapis.com/auth/iam"`, nil},
		{"assertions", `        self.assertEqual(conn.proxy_pass, 'p4ssw0rd99')`, []string{"p4ssw0rd99"}},
		{"assertions", `    assert "Zq81mXa93kLpQ" == cfg["client_secret"]`, []string{"Zq81mXa93kLpQ"}},
		{"assertions", `    assertThat(props.getSigningKey()).isEqualTo("Vf9sQ2kLm81ZxT0pRw7e");`, []string{"Vf9sQ2kLm81ZxT0pRw7e"}},
		{"query", `URL = "https://api.acme.io/export?format=csv&apikey=w8fm7uyjw6Fxd6mIYmTCQ2LoRvLuxLUV"`, []string{"w8fm7uyjw6Fxd6mIYmTCQ2LoRvLuxLUV"}},
		{"query", "fetch(`https://api.acme.io/v2/feed?client_secret=uQVyyXiobcJkvy1t9CzE&limit=50`)", []string{"uQVyyXiobcJkvy1t9CzE"}},
		{"query", `curl -s 'https://api.acme.io/v1/status?sig=BRVJ%2FIUuyYzkorKsax7fK7KDDaVojO0G3PNIFalHh4U%3D'`, []string{"BRVJ%2FIUuyYzkorKsax7fK7KDDaVojO0G3PNIFalHh4U%3D"}},
		{"query", `jdbc:postgresql://db:5432/orders?user=app&password=e~N2B2D0.axgbRp4"`, []string{"e~N2B2D0.axgbRp4"}},
		{"query", "const url = `https://api.acme.io/v1/items?page_token=${next}&limit=100`;", nil},
		{"query", `Requests arrive as POST /hooks?sig=<hex signature>&ts=<unix time>.`, nil},
		{"query", `https://api.acme.io/oauth/authorize?response_type=token&client_id=abc123def456`, nil},
		{"query", `https://maps.acme.io/embed?key=mapsEmbedKeyForDocs`, nil},
		{"query", `x = a?key=b&auth=Zq81mXa93kLpQw7eRt5yUi0o`, nil},
		{"query", `https://storage.acme.io/b/o?X-Goog-Credential=svc%40acme%2F20260101%2Fauto`, nil},
		{"query", `    'https://api.twitter.com/oauth/authorize?oauth_token=sdf0o9823sjdfsdf&foo=bar'`, nil},
		{"query", `Array.isArray(f.token)?f.token.length==1||c==1?f.token=f.token[0]:c-1`, nil},
		{"query", `"Url": "http://calculator.s3.amazonaws.com/calc5.html?key=cloudformation/7870825a-xmpl-4def-92e7-c4f8dd360cca"`, nil},
		{"query", `"Url": "http://calculator.s3.amazonaws.com/calc5.html?key=cf-2e351785-e821-450c-9d58-625e1e1ebfb6"`, nil},
		{"query", `https://a.s3.amazonaws.com/x.out?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1440196197&Signature=n%2BtqYTjP6fNiMzYu6dRNmTYpYXw%3D`, nil},
		{"oracle", `url = "jdbc:oracle:thin:api/ExsoI9VqE6CY2.@//db:1521/ORCLPDB1"`, []string{"ExsoI9VqE6CY2."}},
		{"oracle", `url = "jdbc:oracle:oci8:scott/tiger@orcl"`, nil},
		{"oracle", `url = "jdbc:oracle:thin:@//db:1521/ORCLPDB1"`, nil},
		{"oracle", `url = "jdbc:oracle:thin:${DB_USER}/${DB_PASSWORD}@//db:1521/X"`, nil},
		{"xmlnamed", `    <add key="JwtSecret" value="d0bd05a6457a4d13928357b24dcbb339aa" />`, []string{"d0bd05a6457a4d13928357b24dcbb339aa"}},
		{"xmlnamed", `<string name="smtp_pass">Kz3rs0Mc2MijDpjOcJKrBB</string>`, []string{"Kz3rs0Mc2MijDpjOcJKrBB"}},
		{"xmlnamed", `      <add key="ClearTextPassword" value="%NUGET_PASSWORD%" />`, nil},
		{"xmlnamed", `<string name="password_hint">Enter your password</string>`, nil},
		{"xmlnamed", `<add key="ApiBaseUrl" value="https://api.acme.io/v2/x1" />`, nil},
		{"plist", `  <string>Kz3rs0Mc2MijDpjOcJKrBB</string>`, []string{"Kz3rs0Mc2MijDpjOcJKrBB"}},
		{"passelems", `  <pwd>Kz3rs0Mc2MijDpjOcJKrBB</pwd>`, []string{"Kz3rs0Mc2MijDpjOcJKrBB"}},
		{"passelems", `<smtpPass>Harbor*copper938*</smtpPass>`, []string{"Harbor*copper938*"}},
		{"passelems", `<bypass>true</bypass>`, nil},
		{"passelems", `<pwd>${DB_PWD}</pwd>`, nil},
		{"passelems", `<compass>north-by-northwest</compass>`, nil},
		{"plist", `  <string>io.acme.app</string>`, nil},
		{"escaped", `{"value": "{\"rootPwd\":\"CHDWtU1ebeS6F6VVcDFY4\",\"region\":\"eu-west-1\"}"}`, []string{"CHDWtU1ebeS6F6VVcDFY4"}},
		{"escaped", `{"value": "{\"region\":\"eu-west-1\",\"retries\":3}"}`, nil},
		{"escaped", `{"value": "{\"password\":\"${DB_PASSWORD}\"}"}`, nil},
		{"attribute", `@api_token "jhDXH8HjuqGCZ2ErGUUM3k"`, []string{"jhDXH8HjuqGCZ2ErGUUM3k"}},
		{"attribute", `@token_ttl 3600`, nil},
		{"attribute", `@password_field "password"`, nil},
		{"arrows", `webhook_secret <- "1bf8656505b124bf365ca3b24226df65"`, []string{"1bf8656505b124bf365ca3b24226df65"}},
		{"arrows", `api_key <- Sys.getenv("API_KEY")`, nil},
		{"arrows", `token <- httr2::oauth_token_cached(client)`, nil},
	})
}

// TestMoreThroughScan checks set 6's readings through the whole scan, with
// their look-alikes in the same files, and the placeholders it allows.
func TestMoreThroughScan(t *testing.T) {
	checkScans(t, []scanCase{
		{"src/Settings.cs", `    public string EncryptionKey { get; set; } = "zHgbCl9i4bousp0+++ogIjsTheDg+YAe4tiZyF";`, true},
		{"infra/main.tf", `  hmac = "d0bd05a6457a4d13928357b24dcbb339"`, true},
		{"src/Config.hs", "bearer :: Text\nbearer = \"Vf9sQ2kLm81ZxT0pRw7e\"", true},
		{"ios/Info.plist", "  <key>Hmac</key>\n  <string>QyCUiXGH34yTVTWInAHNzg</string>", true},
		{"lib/client.ex", "defmodule Shop.Client do\n  @pass \"Tundra=copper144#\"", true},
		{"src/main/java/Clients.java", `            .rootPwd("Harbor*copper938*")`, true},
		{"k8s/secret.yaml", "apiVersion: v1\nkind: Secret\nstringData:\n  DB_PASSWORD: \"%X.!pmN#KrORTU%8A\"", true},
		{"config/app.ini", "[integration]\npass = #{Octopus.Password}", false},
		{"conf/app.lua", "return {\n  api_key = \"__SECRET__\",\n}", false},
		{"config/app.ini", "password = %DB_PASSWORD%", false},
		{"app/settings.py", `DSN = "dbname=app password=%(password)s"`, false},
		{"docker-compose.yml", "    environment:\n      SIGNING_KEY: ${SIGNING_KEY:?required}", false},
		{"scripts/setup.ps1", "$password = Read-Host -AsSecureString -Prompt 'Admin password'", false},
		{"scripts/setup.ps1", "$Password = 'Vf9sQ2kLm81ZxT0pRw7e'", true},
		{"src/sign.go", `	hmac := hmac.New(sha256.New, key)`, false},
		{"src/api.ts", `const bearer = "Bearer " + token;`, false},
		{"oauthlib/__init__.py", `SIGNATURE_HMAC = "HMAC-SHA1"`, false},
		{"docker_http.py", `_BEARER = 'Bearer'`, false},
		{"messages.py", `    oauth2JwtBearer: Oauth2JwtBearer.`, false},
		{"src/builder.java", `            .password(passwordField.getText())`, false},
	})
}

func TestSubstitution(t *testing.T) {
	for v, want := range map[string]bool{
		"%DB_PASSWORD%": true, "%(password)s": true, "%s": true, "#{Octopus.Password}": true, "__SECRET__": true,
		"%X.!pmN#KrORTU%8A": false, "%0m=88BpMZrl1IVgh": false, "__init": false, "#hash1234": false, "_Zq81mXa93kLp": false,
	} {
		if got := substitution(v); got != want {
			t.Errorf("substitution(%q) = %v, want %v", v, got, want)
		}
	}
}
