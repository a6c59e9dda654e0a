package guardrail

import (
	"testing"
)

// contextFinders are secrets_context.go's finders of one line, by name; the
// file finders' fuzz test runs them too.
var contextFinders = map[string]func(string) []found{
	"azure":      func(t string) []found { return findAzureKeys("", t) },
	"azureunder": func(t string) []found { return findAzureKeys("  <StorageKey>", t) },
	"docker":     findDockerAuths,
	"prose":      findProse,
	"table":      findTableRows,
}

func init() { addFinders("context-", contextFinders) }

const (
	testAzureKey = "Wk3nQv8Rb1Ls0Tc5Xy7Ha2Pd9Jf4Ge6Mu0Ni3Ok8Rl5Sm1Tn7Uo2Vp9Wq4Xr6Ys0Zt3Au8Bv5Cw1Dx7Ey2Fz9Ga4Hb6Ic0Jd3Ke8Lf5Mg1Nh7Oi2Pj9Q=="
	// user:password in base64: ci-runner:Hx8!vQ2mLp.
	testDockerAuth = "Y2ktcnVubmVyOkh4OCF2UTJtTHA="
)

// TestContextFinders checks the bytes each one-line finder of
// secrets_context.go takes, and that it takes nothing of the look-alikes
// beside them.
func TestContextFinders(t *testing.T) {
	key := testAzureKey[:86] + "=="
	checkFinders(t, contextFinders, []finderCase{
		{"azure", `{ "AccountKey", "` + key + `" },`, []string{key}},
		{"azure", `Cleanup.exe -storagekey ` + key + ` -container logs`, []string{key}},
		{"azure", `  <account_key>` + key + `</account_key>`, []string{key}},
		{"azure", `  --conf spark.hadoop.fs.azure.account.key.lake.blob.core.windows.net=` + key + ` \`, []string{key}},
		{"azure", `"integrity": "sha512-` + key + `",`, nil},
		{"azure", `  <Modulus>` + key + `</Modulus>`, nil},
		{"azure", `AccountKey=` + azuriteKey, nil},
		{"azure", `{ "AccountName", "` + key + `" },`, nil}, // no key named
		{"azure", `key: ` + key[:84] + "==", nil},           // 62 bytes, not 64
		{"azure", `key: ` + "A" + key[:86] + "==", nil},     // 89: longer
		{"azureunder", `    ` + key, []string{key}},
		{"azureunder", `    hash: ` + key, nil},
		{"docker", `environment = ["DOCKER_AUTH_CONFIG={\"auths\":{\"reg.acme.io\":{\"auth\":\"` + testDockerAuth + `\"}}}"]`, []string{testDockerAuth}},
		{"docker", `environment = ["X={\\\"auths\\\":{\\\"r\\\":{\\\"auth\\\":\\\"` + testDockerAuth + `\\\"}}}"]`, []string{testDockerAuth}},
		{"docker", `  config.json: "{\n \"auths\": {\n  \"ghcr.io\": {\n   \"auth\": \"` + testDockerAuth + `\"\n  }\n }\n}"`, []string{testDockerAuth}},
		{"docker", `{"auths":{"r":{"auth":"` + testDockerAuth + `"}}}`, []string{testDockerAuth}},
		{"docker", `{"auths":{"r":{"auth":""}}}`, nil},
		{"docker", `{"auths":{"r":{"auth":"dXNlcm5hbWU="}}}`, nil},         // "username": no password
		{"docker", `{"auths":{"r":{"auth":"dXNlcjpwYXNzd29yZA=="}}}`, nil}, // user:password, a placeholder
		{"docker", `{"auths":{"r":{"auth":"AAECAwQFBgcICQ=="}}}`, nil},     // not text
		{"docker", `{\"auths\":{\"r\":{\"authority\":\"` + testDockerAuth + `\"}}}`, nil},
		{"prose", `[DEBUG] using key = 7c1e5a90d2b84f36a1c0e9d7b5f3a208`, []string{"7c1e5a90d2b84f36a1c0e9d7b5f3a208"}},
		{"prose", `2026-01-02 DEBUG Using Key=Rq7vL2mXp9Tz4Wc1 for request`, []string{"Rq7vL2mXp9Tz4Wc1"}},
		{"prose", `Your API key is Hn4Tq8Zp1Vx6Lm3Rb9Kc, keep it safe.`, []string{"Hn4Tq8Zp1Vx6Lm3Rb9Kc"}},
		{"prose", `the admin password is "Cobalt_harbor417!".`, []string{"Cobalt_harbor417!"}},
		{"prose", `Your API key is shown on the dashboard.`, nil},
		{"prose", `[DEBUG] using key = ****a1b2`, nil},
		{"prose", `[DEBUG] using keys from the keyring`, nil},
		{"prose", `[DEBUG] using tokenizer=bpe50k`, nil},
		{"prose", `// secret is "a-string-secret-at-least-256-bits-long"`, nil},
		{"prose", `The password is ${DB_PASSWORD}.`, nil},
		{"table", `apiKey |e0c4b1a97f3d52e6b8a0c9d1f2e3a4b5c6d7e8f9`, []string{"e0c4b1a97f3d52e6b8a0c9d1f2e3a4b5c6d7e8f9"}},
		{"table", `baseUrl |https://api.acme.io/v1`, nil},
		{"table", `apiKey |{{api_key}}`, nil},
		{"table", `token | string | the token to send`, nil},
	})
}

// TestContextThroughScan checks the readings that need the line before:
// getters returning a literal, a value on the line after its name.
func TestContextThroughScan(t *testing.T) {
	checkScans(t, []scanCase{
		{"creds.go", `func getSigningSecret() string { return "Tz8mQ1vL4xR7pW2n" }`, true},
		{"creds.go", "func (c *Client) apiToken() string {\n\treturn \"Tz8mQ1vL4xR7pW2n\"\n}", true},
		{"Config.java", "    public String getClientSecret() {\n        return \"Tz8mQ1vL4xR7pW2n\";\n    }", true},
		// A literal that is a part of what is returned; a conversion
		// called on the line before is not a getter's header.
		{"token_string.go", "\tif i >= token(len(_token_index)-1) {\n\t\treturn \"token(\" + strconv.FormatInt(int64(i+1), 10) + \")\"\n\t}", false},
		{"creds.go", `func apiToken() string { return "Tz8mQ1vL4" + suffix }`, false},
		{"creds.ts", `const getToken = () => "Tz8mQ1vL4xR7pW2n"; // rotated monthly`, true},
		{"Keys.php", "    public function getApiSecret(): string\n    {\n        return 'Tz8mQ1vL4xR7pW2n';\n    }", true},
		{"App.kt", `    fun getAuthToken(): String = "Tz8mQ1vL4xR7pW2n"`, true},
		{"Keys.cs", `    public static string GetPassword() => "Tz8mQ1vL4xR7pW2n";`, true},
		{"auth.js", `const getApiKey = () => 'Tz8mQ1vL4xR7pW2n';`, true},
		{"settings.py", "def webhook_secret():\n    return 'Tz8mQ1vL4xR7pW2n'", true},
		{"client.rb", "  def api_key\n    \"Tz8mQ1vL4xR7pW2n\"\n  end", true},
		{"keys.rs", "fn api_key() -> &'static str {\n    \"Tz8mQ1vL4xR7pW2n\"\n}", true},
		{"Keys.swift", `    static var apiKey: String { return "Tz8mQ1vL4xR7pW2n" }`, true},
		{"creds.go", `func getApiKey() string { return os.Getenv("API_KEY") }`, false},
		{"names.go", "func (c *Client) tokenType() string {\n\treturn \"Bearer\"\n}", false},
		{"urls.ts", `export const getTokenUrl = () => "https://auth.acme.io/oauth/token";`, false},
		{"check.go", `func validateToken(t string) string { return "invalid" }`, false},
		{"check.go", `if token == "" { return "Tz8mQ1vL4xR7pW2n" }`, false},
		{"storage.cpp", "static const std::string TestClientSecret{\n    \"Tz8mQ1vL4xR7pW2n\"};", true},
		{"Defaults.java", "    public static final String DEFAULT_CLIENTSECRET\n            = \"Tz8mQ1vL4xR7pW2n\";", true},
		{"env.ts", "export const key =\n  process.env.API_KEY ||\n  \"Tz8mQ1vL4xR7pW2n\";", true},
		{"config.js", "const secret = process.env.SESSION_SECRET\n  ?? 'Tz8mQ1vL4xR7pW2n';", true},
		{"secrets.py", "API_TOKEN = (\n    \"Tz8mQ1vL4xR7pW2n\"\n)", true},
		{"app.toml", "[auth]\nclient_secret = \"\"\"\nTz8mQ1vL4xR7pW2n\"\"\"", true},
		{"conf.go", "var defaultPassword =\n\t\"Tz8mQ1vL4xR7pW2n\"", true},
		{"env.ts", "export const key =\n  process.env.ACCOUNT_KEY ||\n  \"\";", false},
		{"env.ts", "export const authUrl =\n  process.env.AUTH_URL ||\n  \"Tz8mQ1vL4xR7pW2n\";", false},
		{"Defaults.java", "    public static final String PASSWORD_PROPERTY\n            = \"spring.datasource.password\";", false},
		{"app.toml", "[tls]\ncert = \"\"\"\nTz8mQ1vL4xR7pW2n\"\"\"", false},
		{"storage.env", "ACRPWD=Tz8mQ1vL4xR7pW2n", true},
		{"storage.cpp", "static const std::string TestAccountKey{\n    \"Tz8mQ1vL4xR7pW2n\"};", true},
		{"func.yaml", "azure:\n  azureFunctionKey: Tz8mQ1vL4xR7pW2n-=", true},
		{"Defaults.java", "    public static final String ACCOUNT_KEY_HEADER\n            = \"x-ms-account-key\";", false},
		{"storage.env", "BYPASS=Tz8mQ1vL4xR7pW2n", false},
		{"setup.ts", `process.env.CLIENTSECRET = "Tz8mQ1vL4xR7pW2n";`, true},
		{"duo.json", `{"ikey": "DIWXYZ0123456789ABCD", "skey": "Tz8mQ1vL4xR7pW2nTz8mQ1vL4xR7pW2n0a1b2c3d"}`, true},
		{"secret.yaml", "kind: Secret\ndata:\n  azurestorageaccountname: YWNtZWZpbGVz", false},
		{"secret.yaml", "kind: Secret\ndata:\n  db-password: VHo4bVExdkw0eFI3cFcybg==", true},
	})
}
