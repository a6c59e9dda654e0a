package guardrail

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// frameworkFinders are secrets_frameworks.go's finders of one line, by
// name; the file finders' fuzz test runs them too.
var frameworkFinders = map[string]func(string) []found{
	"appid":        findAppIDKeys,
	"sessioncalls": func(t string) []found { return findCalls(t, sessionCalls) },
	"namedargs":    findNamedArgs,
}

func init() { addFinders("framework-", frameworkFinders) }

// TestAppIDKeys checks the bytes findAppIDKeys takes, and that it takes
// nothing of the look-alikes beside them.
func TestAppIDKeys(t *testing.T) {
	const (
		hex = "9b1f4c7e2a8d5036b1e9f4a7c2d8e5b0"
		tok = "Vq3Lm8Tz1Rw6Pn4Xc9Kb2Hd7Jf5Gs0Ya"
	)
	for _, c := range []struct {
		text string
		want []string
	}{
		{"  const url = `https://api.openweathermap.org/data/2.5/weather?q=${city}&appid=" + hex + "`;", []string{hex}},
		{`r = requests.get("https://api.example.com/v1/x?APPID=` + hex + `&units=metric")`, []string{hex}},
		{`curl 'https://api.example.com/find?appid=` + tok + `'`, []string{tok}},
		{`fetch("/api/weather?appId=` + tok + `")`, []string{tok}},
		// Look-alikes: a number, a short public ID, a lookup, a template,
		// a placeholder, no URL, a longer name, a value that goes on.
		{`https://store.steampowered.com/api/appdetails?appid=730`, nil},
		{`https://open.weixin.qq.com/connect/oauth2/authorize?appid=wx1f2e3d4c5b6a7980&redirect_uri=x`, nil},
		{"const url = `https://api.openweathermap.org/data/2.5/weather?q=${city}&appid=${process.env.OWM_KEY}`;", nil},
		{`https://api.openweathermap.org/data/2.5/weather?q=London&appid={API_KEY}`, nil},
		{`https://api.openweathermap.org/data/2.5/weather?q=London&appid=YOUR_API_KEY_GOES_HERE_0000000000`, nil},
		{`params = "q=x&appid=` + hex + `"`, nil},
		{`https://api.example.com/x?parentappid=` + hex, nil},
		{`https://api.example.com/x?appid=` + hex + `/more`, nil},
		{`https://api.example.com/x?appid=` + hex[:20], nil},
	} {
		var got []string
		for _, f := range findAppIDKeys(c.text) {
			got = append(got, c.text[f.start:f.end])
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("findAppIDKeys(%q) (-want +got):\n%s", c.text, diff)
		}
	}
}

// TestFrameworkReadings checks, through ScanSecrets, the placeholder readings
// set 11 asked for: <...> after KEY= is no element whose text is on the
// next line, and a value saying it is wrong is no password.
func TestFrameworkReadings(t *testing.T) {
	for _, c := range []struct {
		path, text string
		want       int
	}{
		{".env", "WEBHOOK_SECRET=${WEBHOOK_SECRET}\nSESSION_SECRET=<session-secret>\nSESSION_TTL_SECONDS=86400\n", 0},
		{"config.yml", "api_token: <api-token>\nretry_budget_ms=250000\n", 0},
		{"tests/test_login.py", `r = client.post("/login", json={"email": "a@b.c", "password": "wrong"})`, 0},
		{"login.test.ts", `await login({ user: 'qa', password: 'incorrect' });`, 0},
		{"login.test.ts", `await login({ user: 'qa', password: 'wrong-password' });`, 0},
		{"vercel.json", "{\n  \"env\": {\n    \"API_SECRET\": \"@api-secret\",\n    \"DB_PASSWORD\": \"@db-password-2\"\n  }\n}", 0},
		{"vercel.json", "{\n  \"env\": {\n    \"API_SECRET\": \"@Xk9-Qm2Lv7Rt4\"\n  }\n}", 1},
		{"schema.graphql", "type AuthPayload {\n  token: String!\n  refreshToken: String!\n  apiKeyId: ID!\n}", 0},
		{"src/schema.ts", "const typeDefs = gql`\n  type Mutation {\n    login(email: String!, password: String!): AuthPayload!\n  }\n`;", 0},
		{".env", "ADMIN_PASSWORD=Summer2024!", 1},
		{"vercel.json", "{\n  \"env\": {\n    \"API_SECRET\": \"@9abc-def\"\n  }\n}", 1},
		// Still found: an XML element on its own line, and a password
		// that only holds a word of these.
		{"settings.xml", "<servers>\n  <apiToken>\n    Xk9Qm2Lv7Rt4Wp8Zc3Nb\n  </apiToken>\n", 1},
		{"settings.xml", "<server><password>\n    Xk9Qm2Lv7Rt4Wp8Zc3Nb\n", 1},
		{"tests/test_login.py", `PASSWORD = "wrong-Horse-7Battery"`, 1},
	} {
		if got := ScanSecrets(c.path, c.text); len(got) != c.want {
			t.Errorf("ScanSecrets(%q, %q) = %+v, want %d", c.path, c.text, got, c.want)
		}
	}
}

// TestFrameworkFinders checks the bytes findCalls (with the session calls)
// and findNamedArgs take, and that they take nothing of the look-alikes.
func TestFrameworkFinders(t *testing.T) {
	const tok = "Vq3Lm8Tz1Rw6Pn4Xc9Kb2Hd7Jf5Gs0Ya"
	checkFinders(t, frameworkFinders, []finderCase{
		{"sessioncalls", `var store = sessions.NewCookieStore([]byte("` + tok + `"))`, []string{tok}},
		{"sessioncalls", `store := cookie.NewStore([]byte("` + tok + `"))`, []string{tok}},
		{"sessioncalls", `app.use(cookieParser('` + tok + `'));`, []string{tok}},
		{"sessioncalls", `fs := sessions.NewFilesystemStore("", []byte("` + tok + `"))`, []string{tok}},
		{"sessioncalls", `var store = sessions.NewCookieStore([]byte(os.Getenv("SESSION_KEY")))`, nil},
		{"sessioncalls", `app.use(cookieParser(process.env.COOKIE_SECRET));`, nil},
		{"sessioncalls", `app.use(cookieParser());`, nil},
		{"sessioncalls", `app.use(cookieParser('secret'));`, nil},
		{"sessioncalls", `store := memstore.NewStore([]byte("` + tok + `"))`, nil}, // not a cookie store's name
		{"namedargs", `set :session_secret, '` + tok + `'`, []string{tok}},
		{"namedargs", `set :db_password, "` + tok + `"`, []string{tok}},
		{"namedargs", `  buildConfigField("String", "API_KEY", "\"` + tok + `\"")`, []string{tok}},
		{"namedargs", `resValue("string", "maps_api_key", "\"` + tok + `\"")`, []string{tok}},
		{"namedargs", `set :session_secret, ENV.fetch('SESSION_SECRET')`, nil},
		{"namedargs", `set :session_secret, SecureRandom.hex(64)`, nil},
		{"namedargs", `set :sessions, true`, nil},
		{"namedargs", `set :deploy_to, "/srv/app"`, nil},
		{"namedargs", `reset :password, "` + tok + `"`, nil},
		{"namedargs", `buildConfigField("String", "API_KEY", "\"${localProps["apiKey"]}\"")`, nil},
		{"namedargs", `buildConfigField("String", "BASE_URL", "\"https://api.acme.dev\"")`, nil},
		{"namedargs", `buildConfigField("String", "API_KEY", apiKeyFromEnv)`, nil},
		{"namedargs", `resValue("string", "app_name", "\"Acme\"")`, nil},
	})
}
