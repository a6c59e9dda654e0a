package guardrail

import (
	"testing"
)

// positionalFinders are secrets_positional.go's finders of one line, by name;
// the file finders' fuzz test runs them too.
var positionalFinders = map[string]func(string) []found{
	"positional": findPositional,
	"lookup":     findLookupDefaults,
	"fields":     findToolFields,
	"attributes": findAttributePairs,
	"sessions":   findSessionsAndPairs,
	"salts":      func(t string) []found { return findSalts(t, false) },
	"codesalts":  func(t string) []found { return findSalts(t, true) },
}

func init() { addFinders("positional-", positionalFinders) }

// TestPositionalFinders checks the bytes each finder of secrets_positional.go
// takes, and that it takes nothing of the look-alikes beside them.
func TestPositionalFinders(t *testing.T) {
	const (
		tok = "Vq3Lm8Tz1Rw6Pn4Xc9Kb2Hd7"
		hex = "5e0c9a2f7b1d4e8a6c3f0b9d2e7a1c4f"
		sid = "AC" + hex
	)
	checkFinders(t, positionalFinders, []finderCase{
		// Signing secrets and keys by position.
		{"positional", `const t = jwt.sign({ sub: id }, '` + tok + `', { expiresIn: '1h' });`, []string{tok}},
		{"positional", `token = jwt.encode(payload, "` + tok + `", algorithm="HS256")`, []string{tok}},
		{"positional", `f = Fernet(b"` + tok + `=")`, []string{tok + "="}},
		{"positional", `let key = EncodingKey::from_secret(b"` + tok + `");`, []string{tok}},
		{"positional", `var k = new SymmetricSecurityKey(Encoding.UTF8.GetBytes("` + tok + `"));`, []string{tok}},
		{"positional", `mac = hmac.new(b"` + tok + `", body, hashlib.sha256)`, []string{tok}},
		{"positional", `let r = client.get(u).bearer_auth("` + tok + `").send().await?;`, []string{tok}},
		{"positional", `tokenString, err := token.SignedString([]byte("` + tok + `"))`, []string{tok}},
		{"positional", `Algorithm algorithm = Algorithm.HMAC256("` + tok + `");`, []string{tok}},
		{"positional", `$jwt = JWT::encode($payload, '` + tok + `', 'HS256');`, []string{tok}},
		{"positional", `cipher = AES.new(b"` + tok[:16] + `", AES.MODE_GCM)`, []string{tok[:16]}},
		{"positional", `const c = crypto.createCipheriv('aes-256-cbc', '` + tok + `Qa8zWx7E', iv);`, []string{tok + "Qa8zWx7E"}},
		{"positional", `const c = crypto.createCipheriv('aes-256-cbc', key, iv);`, nil},
		{"positional", `cipher = AES.new(key, AES.MODE_GCM)`, nil},
		{"positional", `const t = jwt.sign({ sub: id }, process.env.JWT_SECRET);`, nil},
		{"positional", `token = jwt.encode(payload, settings.SECRET, algorithm="HS256")`, nil},
		{"positional", `token = jwt.encode(payload, "secret", algorithm="HS256")`, nil}, // the name, a placeholder
		{"positional", `f = Fernet(Fernet.generate_key())`, nil},
		{"positional", `const t = jwt.sign(p, cfg["jwt"]["secret"]);`, nil},
		{"positional", `const t = jwt.sign(p, "` + tok + `" + suffix);`, nil},
		// A password after its user.
		{"positional", `if err := c.Login(ctx, "admin", "Amber7!quartz"); err != nil {`, []string{"Amber7!quartz"}},
		{"positional", `conn.connect("tcp://10.0.0.9:3306", "app", "Meadow79$fen");`, []string{"Meadow79$fen"}},
		{"positional", `$pdo = new PDO('mysql:host=db;dbname=crm', 'crm', 'Granite!q87');`, []string{"Granite!q87"}},
		{"positional", `Credentials = new NetworkCredential("it@acme.io", "Lp#vn@ji4!-Wh"),`, []string{"Lp#vn@ji4!-Wh"}},
		{"positional", `Connection c = DriverManager.getConnection("jdbc:mysql://db:3306/shop", "shop", "Qz7!mLp2vRx9");`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `const s = new Sequelize('shop', 'shop', 'Qz7!mLp2vRx9', { host: 'db' });`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `Connection c = DriverManager.getConnection(url, user, password);`, nil},
		{"positional", `ftp = FTP("ftp.partner.com", "acme", "Qz7!mLp2vRx9")`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `val c = Credentials.basic("acme", "Qz7!mLp2vRx9")`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `let c = Client::new().basic_auth("acme", Some("Qz7!mLp2vRx9"));`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `req.basic_auth 'acme', 'Qz7!mLp2vRx9'`, []string{"Qz7!mLp2vRx9"}},
		{"positional", `request.addValue("` + tok + `", forHTTPHeaderField: "X-API-Key")`, []string{tok}},
		{"positional", `request.addValue("application/json", forHTTPHeaderField: "Content-Type")`, nil},
		{"positional", `request.addValue("` + tok + `", forHTTPHeaderField: "X-Request-Id")`, nil},
		{"positional", `ftp = FTP("ftp.partner.com")`, nil},
		{"positional", `val c = Credentials.basic(user, pass)`, nil},
		{"positional", `req.basic_auth user, ENV['PARTNER_PASSWORD']`, nil},
		{"positional", `conn.connect("localhost", "root", "");`, nil},
		{"positional", `db.connect("orders", "replica-set")`, nil}, // words
		{"positional", `client.Login(ctx, user, password)`, nil},
		{"positional", `send_login("ops@acme.io", "ops@acme.io")`, nil},
		// A client's key, a bot's token, Twilio's token after the SID.
		{"positional", `co = cohere.Client("` + tok + `Qa8")`, []string{tok + "Qa8"}},
		{"positional", `const c = new postmark.ServerClient("c0aca125-fe2a-4836-8a3b-b282dd0e8c74");`, []string{"c0aca125-fe2a-4836-8a3b-b282dd0e8c74"}},
		{"positional", `ld, _ := ld.MakeClient("sdk-af9d2929-ef48-4f96-878a-9790a90eca7a", 5*time.Second)`, []string{"sdk-af9d2929-ef48-4f96-878a-9790a90eca7a"}},
		{"positional", `bot.run("MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs")`, []string{"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"}},
		{"positional", `client = Client("` + sid + `", "` + hex + `")`, []string{hex}},
		{"positional", `const c = require('twilio')('` + sid + `', '` + hex + `');`, []string{hex}},
		{"positional", `r = redis.Client("redis.internal:6379")`, nil},
		{"positional", `c = http.Client("https://api.acme.io/v1")`, nil},
		{"positional", `app.run("0.0.0.0")`, nil},
		{"positional", `let client = GraphQLClient("MyAppGraphQLClient2024")`, nil},
		{"positional", `client = QdrantClient("https://qdrant.internal.acme.io:6333/collections/v2")`, nil},
		{"positional", `client = MongoClient("mongodb://db1.internal:27017,db2.internal:27017/?replicaSet=rs0")`, nil},
		{"positional", `client = Client("` + sid + `", os.environ["TWILIO_AUTH_TOKEN"])`, nil},
		// Algolia's admin key; not its search-only key.
		{"positional", `const c = algoliasearch('63IRNYUTLQ', '` + hex + `');`, []string{hex}},
		{"positional", `const c = algoliasearch('63IRNYUTLQ', '` + hex + `'); // search-only key`, nil},
		// Key material decoded into a name that ends in key.
		{"positional", `const key = Buffer.from('` + hex + hex + `', 'hex');`, []string{hex + hex}},
		{"positional", `key, _ := hex.DecodeString("` + hex + hex + `")`, []string{hex + hex}},
		{"positional", `aes.Key = Convert.FromBase64String("3EMU5ETobWvkIsA13QR6I4UzBFpFPc7mmrtOtGHEZ2Q=");`, []string{"3EMU5ETobWvkIsA13QR6I4UzBFpFPc7mmrtOtGHEZ2Q="}},
		{"positional", `var jwtKey = []byte("` + tok + `")`, []string{tok}},
		{"positional", `digest, _ := hex.DecodeString("` + hex + hex + `")`, nil},
		{"positional", `body := []byte("` + tok + `")`, nil},
		{"positional", `cacheKey := []byte("user-profile")`, nil},
		{"positional", `key, _ := hex.DecodeString("6368616e676520746869732070617373776f726420746f206120736563726574")`, nil}, // "change this password to a secret"
		{"positional", `var sharedKey = []byte("0102030405060708090A0B0C0D0E0F10")`, nil},
		{"positional", `BranchToken: []byte("source branchToken1"),`, nil},
		// Lookups' defaults.
		{"lookup", `TOKEN = os.environ.get("API_TOKEN", "` + tok + `")`, []string{tok}},
		{"lookup", `secret = os.getenv("CLIENT_SECRET", "` + tok + `")`, []string{tok}},
		{"lookup", `'key' => env('STRIPE_SECRET', '` + tok + `'),`, []string{tok}},
		{"lookup", `SECRET_KEY = config("SECRET_KEY", default="` + tok + `")`, []string{tok}},
		{"lookup", `viper.SetDefault("jwt.secret", "` + tok + `")`, []string{tok}},
		{"lookup", `password := getEnv("DB_PASSWORD", "Qz7!mLp2vRx9")`, []string{"Qz7!mLp2vRx9"}},
		{"lookup", `DEBUG = config("DEBUG", default=False, cast=bool)`, nil},
		{"lookup", `viper.SetDefault("server.port", "8080")`, nil},
		{"lookup", `TOKEN = os.environ.get("API_TOKEN", "")`, nil},
		{"lookup", `PAGE = os.environ.get("PAGE_TOKEN", "` + tok + `")`, nil},
		{"lookup", `HOST = os.environ.get("DB_HOST", "db.internal")`, nil},
		{"lookup", `pw = os.getenv("DB_PASSWORD", "changeme")`, nil},
		// Headers in strings, tools' fields.
		{"fields", `h = curl_slist_append(h, "X-Api-Key: ` + tok + `");`, []string{tok}},
		{"fields", `curl -H "Authorization: SSWS 00HFXt0Yi-29PLu6RJXuMIAiRsFz2wuo9clBivdCms" https://acme.okta.com`, []string{"00HFXt0Yi-29PLu6RJXuMIAiRsFz2wuo9clBivdCms"}},
		{"fields", `config.omniauth :github, 'Iv1.8f3aa2eb484b4fe3', '` + hex + `1234abcd', scope: 'user:email'`, []string{hex + "1234abcd"}},
		{"fields", `  plaintext_value = "` + tok + `"`, []string{tok}},
		{"fields", `    <add key="https://www.nuget.org/api/v2/package" value="oy2ocry0kz6cvia4tb95lrkhvd943yjz3padhtsmzvut7u" />`, []string{"oy2ocry0kz6cvia4tb95lrkhvd943yjz3padhtsmzvut7u"}},
		{"fields", `$s = ConvertTo-SecureString "Kestrel!ripple65%" -AsPlainText -Force`, []string{"Kestrel!ripple65%"}},
		{"attributes", `<property name="password" value="Qz7!mLp2vRx9"/>`, []string{"Qz7!mLp2vRx9"}},
		{"attributes", `    <entry key="apiKey" value="` + tok + `"/>`, []string{tok}},
		{"attributes", `<param name="token" value="` + tok + `" />`, []string{tok}},
		{"attributes", `<property name="password" value="${db.password}"/>`, nil},
		{"attributes", `<entry key="apiKey" value=""/>`, nil},
		{"attributes", `<input type="password" name="password" value="">`, nil},
		{"attributes", `<param name="tokenType" value="Bearer"/>`, nil},
		{"attributes", `<property name="url" value="jdbc:postgresql://db/app"/>`, nil},
		{"salts", `HASH_SALT=` + tok, []string{tok}},
		{"salts", `  password_pepper: ` + hex, []string{hex}},
		{"codesalts", `const salt = "` + tok + `";`, []string{tok}},
		{"codesalts", `hashids = Hashids(salt="` + tok + `", min_length=8)`, []string{tok}},
		{"salts", `SALT_ROUNDS=10`, nil},
		{"codesalts", `const saltRounds = 12;`, nil},
		{"codesalts", `salt = bcrypt.gensalt()`, nil},
		{"codesalts", `salt := make([]byte, 16)`, nil},
		{"salts", `HASH_SALT=${HASH_SALT}`, nil},
		{"salts", `salt: sodium-chloride`, nil},
		{"codesalts", `basalt = "` + tok + `"`, nil},
		{"sessions", `Cookie: sessionid=k8v2m9x4q7w1z5n3b6c0j2h8f4d1s7a9; csrftoken=abc`, []string{"k8v2m9x4q7w1z5n3b6c0j2h8f4d1s7a9"}},
		{"sessions", `-H 'Cookie: connect.sid=s%3A` + tok + `'`, []string{"s%3A" + tok}}, // express-session's
		{"sessions", `Cookie: theme=dark; lang=en`, nil},
		{"sessions", `Cookie: sessionid=<session>`, nil},
		{"sessions", `var c = ConnectionMultiplexer.Connect("cache:6380,password=Qz7mLp2vRx9Kd3,ssl=True");`, []string{"Qz7mLp2vRx9Kd3"}},
		{"sessions", `var c = ConnectionMultiplexer.Connect($"cache:6380,password={pw},ssl=True");`, nil},
		{"sessions", `      - NEO4J_AUTH=neo4j/Qz7mLp2vRx9Kd3`, []string{"Qz7mLp2vRx9Kd3"}},
		{"sessions", `      NEO4J_AUTH: none`, nil},
		{"sessions", `      NEO4J_AUTH: neo4j/${NEO4J_PASSWORD}`, nil},
		{"fields", `h = curl_slist_append(h, "X-Api-Key: ");`, nil},
		{"fields", `h = curl_slist_append(h, "Content-Type: application/json");`, nil},
		{"fields", `  config.omniauth :github, ENV['GITHUB_KEY'], ENV['GITHUB_SECRET']`, nil},
		{"fields", `  plaintext_value = var.oauth_secret`, nil},
		{"fields", `    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" />`, nil},
		{"fields", `$s = ConvertTo-SecureString $env:SQL_PASSWORD -AsPlainText -Force`, nil},
		{"fields", `$s = Read-Host -AsSecureString | ConvertTo-SecureString`, nil},
	})
}

// TestPositionalThroughScan checks the readings through the scan, with the
// placeholders the documented policy allows.
func TestPositionalThroughScan(t *testing.T) {
	checkScans(t, []scanCase{
		{"auth.ts", `const token = jwt.sign({ sub: user.id }, 'nRQFQ6ijWip6oxD8i2Y63xr35SO7', { expiresIn: '1h' });`, true},
		{"auth.ts", `const token = jwt.sign({ sub: user.id }, 'your-jwt-secret', { expiresIn: '1h' });`, false},
		{"jobs.py", `TOKEN = os.environ.get("SYNC_API_TOKEN", "8g6q9jTTvhzPlbWeYTuUkwkpIzR")`, true},
		{"jobs.py", `TOKEN = os.environ.get("SYNC_API_TOKEN", "<token>")`, false},
		{"db.cpp", `conn.connect("tcp://10.0.0.9:3306", "app", "Meadow79252$fennel");`, true},
		{"sms.js", `const client = require('twilio')('AC62e0e20fd5e6da2c8e3811804b4ff064', '2dffd4ea5bfb90018d6ab4695ed29fe9');`, true},
		{"docs/conn.md", `Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;`, false},
		{"local.py", `client = OpenAI(base_url="http://localhost:11434/v1", api_key="ollama")`, false},
		{"local.py", `client = OpenAI(base_url="http://localhost:1234/v1", api_key="lm-studio")`, false},
		{"search.js", `const searchClient = algoliasearch('63IRNYUTLQ', 'e22a5136712b880985d1950b22be0973'); // search-only key`, false},
	})
}
